/**
 * The intermediate form every vocabulary loader builds before options apply: each token id's
 * output bytes, and whether the source marks it special. Tokens are collected as encoded strings
 * (in whatever order a file lists them), then decoded by vocabulary type into one buffer in id
 * order.
 */
import { TokenizerError } from "../errors.js";
import type { JsonCursor } from "./json-cursor.js";
import { decodeTokenInto, type VocabType } from "./token-bytes.js";

/** What the source says about a token id. */
export const TokenFlag = {
  /** Ordinary text. */
  Text: 0,
  /** Marked special by the source; its bytes are its literal content. */
  Special: 1,
  /** No token has this id. */
  Unused: 2,
} as const;
export type TokenFlag = (typeof TokenFlag)[keyof typeof TokenFlag];

/** Token bytes and flags in id order. */
export interface TokenTable {
  /** Ids 0 … count-1. */
  count: number;
  /** Token i is `bytes.subarray(offsets[i], offsets[i + 1])`. */
  bytes: Uint8Array;
  offsets: Uint32Array;
  /** One {@link TokenFlag} per id. */
  flags: Uint8Array;
  /** Special tokens by their content. */
  specials: Map<string, number>;
}

/** A token added on top of a table (added_tokens of a file, or the `addedTokens` option). */
export interface AddedToken {
  id: number;
  /** Literal text of the token (not in the vocabulary's encoding). */
  content: string;
  special: boolean;
}

/**
 * Collects encoded token strings with their ids, then decodes them into a {@link TokenTable}.
 */
export class TokenCollector {
  private raw = new Uint8Array(1 << 16);
  private rawLength = 0;
  private ids = new Int32Array(1024);
  private ends = new Uint32Array(1024);
  private n = 0;
  private readonly encoder = new TextEncoder();

  private reserveBytes(extra: number): void {
    if (this.rawLength + extra <= this.raw.length) return;
    let size = this.raw.length * 2;
    while (size < this.rawLength + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.raw.subarray(0, this.rawLength));
    this.raw = next;
  }

  private push(id: number): void {
    if (this.n === this.ids.length) {
      const ids = new Int32Array(this.n * 2);
      ids.set(this.ids);
      this.ids = ids;
      const ends = new Uint32Array(this.n * 2);
      ends.set(this.ends);
      this.ends = ends;
    }
    this.ids[this.n] = id;
    this.ends[this.n] = this.rawLength;
    this.n++;
  }

  /**
   * Reads the JSON string at the cursor as the encoded form of the next token; {@link commit}
   * then gives it its id.
   */
  readFromCursor(cursor: JsonCursor, path: string): void {
    cursor.ws();
    this.reserveBytes(cursor.stringEnd(path) - cursor.pos);
    this.rawLength = cursor.readStringBytes(path, this.raw, this.rawLength);
  }

  /** Ends the token read by {@link readFromCursor} with its id. */
  commit(id: number): void {
    this.push(id);
  }

  /** Adds the encoded string of token `id`. */
  addString(id: number, token: string): void {
    this.reserveBytes(token.length * 3);
    this.rawLength += this.encoder.encodeInto(token, this.raw.subarray(this.rawLength)).written;
    this.push(id);
  }

  /** Adds token `id` whose output bytes are given directly (they are not decoded again). */
  addBytes(id: number, bytes: Uint8Array): void {
    this.reserveBytes(bytes.length);
    this.raw.set(bytes, this.rawLength);
    this.rawLength += bytes.length;
    this.push(id);
  }

  get size(): number {
    return this.n;
  }

  /**
   * Decodes the collected strings by `vocabType` (entries whose `literal[k]` is set are kept
   * as they are) into a table in id order. Ids must be unique; ids never given are Unused.
   */
  finish(vocabType: VocabType, source: string, literal?: Uint8Array): TokenTable {
    const n = this.n;
    let count = 0;
    let ordered = true;
    for (let k = 0; k < n; k++) {
      const id = this.ids[k]!;
      if (id !== k) ordered = false;
      if (id + 1 > count) count = id + 1;
    }
    let entryOf: Int32Array | null = null;
    if (!ordered) {
      entryOf = new Int32Array(count).fill(-1);
      for (let k = 0; k < n; k++) {
        const id = this.ids[k]!;
        if (entryOf[id] !== -1) throw new TokenizerError(`${source}: token id ${id} is given to two tokens`);
        entryOf[id] = k;
      }
    }
    const bytes = new Uint8Array(this.rawLength);
    const offsets = new Uint32Array(count + 1);
    const flags = new Uint8Array(count);
    let at = 0;
    for (let id = 0; id < count; id++) {
      offsets[id] = at;
      const k = entryOf ? entryOf[id]! : id;
      if (k < 0) {
        flags[id] = TokenFlag.Unused;
        continue;
      }
      const start = k === 0 ? 0 : this.ends[k - 1]!;
      const end = this.ends[k]!;
      at = literal?.[k] ? decodeTokenInto("raw", this.raw, start, end, bytes, at) : decodeTokenInto(vocabType, this.raw, start, end, bytes, at);
    }
    offsets[count] = at;
    return { count, bytes: bytes.subarray(0, at), offsets, flags, specials: new Map() };
  }
}

const encoder = new TextEncoder();

/**
 * Returns a table with `added` applied: an added token replaces the token at its id (growing the
 * table when the id is past its end) and is recorded as special when it says so. Ids must be
 * unique among `added`.
 */
export function withAddedTokens(table: TokenTable, added: readonly AddedToken[], source: string): TokenTable {
  if (added.length === 0) return table;
  const byId = new Map<number, { bytes: Uint8Array; token: AddedToken }>();
  let count = table.count;
  let extra = 0;
  for (const token of added) {
    if (byId.has(token.id)) throw new TokenizerError(`${source}: token id ${token.id} is given to two added tokens`);
    const bytes = encoder.encode(token.content);
    byId.set(token.id, { bytes, token });
    extra += bytes.length;
    if (token.id + 1 > count) count = token.id + 1;
  }
  const bytes = new Uint8Array(table.bytes.length + extra);
  const offsets = new Uint32Array(count + 1);
  const flags = new Uint8Array(count);
  flags.set(table.flags);
  flags.fill(TokenFlag.Unused, table.count);
  const specials = new Map(table.specials);
  const ids = [...byId.keys()].sort((a, b) => a - b);
  let at = 0;
  let id = 0;
  // Runs of untouched ids are copied in one piece; their offsets shift by a constant.
  const copyRun = (until: number): void => {
    const end = Math.min(until, table.count);
    if (id < end) {
      const from = table.offsets[id]!;
      const to = table.offsets[end]!;
      bytes.set(table.bytes.subarray(from, to), at);
      const shift = at - from;
      for (let i = id; i < end; i++) offsets[i] = table.offsets[i]! + shift;
      at += to - from;
      id = end;
    }
    for (; id < until; id++) offsets[id] = at;
  };
  for (const addedId of ids) {
    copyRun(addedId);
    const entry = byId.get(addedId)!;
    offsets[addedId] = at;
    bytes.set(entry.bytes, at);
    at += entry.bytes.length;
    flags[addedId] = entry.token.special ? TokenFlag.Special : TokenFlag.Text;
    const previous = table.flags[addedId] === TokenFlag.Special ? decodeText(table, addedId) : undefined;
    if (previous !== undefined && specials.get(previous) === addedId) specials.delete(previous);
    if (entry.token.special) specials.set(entry.token.content, addedId);
    id = addedId + 1;
  }
  copyRun(count);
  offsets[count] = at;
  return { count, bytes: bytes.subarray(0, at), offsets, flags, specials };
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** A token's bytes as text (invalid UTF-8 replaced by U+FFFD). */
export function decodeText(table: Pick<TokenTable, "bytes" | "offsets">, id: number): string {
  return decoder.decode(table.bytes.subarray(table.offsets[id]!, table.offsets[id + 1]!));
}
