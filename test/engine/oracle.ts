/**
 * Brute-force masks from the reference recognizer (lib/compile/recognizer.ts), the oracle the
 * engine's masks are compared with: a token is allowed iff the output extended by its bytes is a
 * viable prefix, or a token node takes it as a whole; stop tokens iff the output is a complete
 * match; control tokens and padding ids never (unless a token node names them). The vocabulary
 * is walked in sorted byte order so that common prefixes are stepped once.
 *
 * A token may be taken both ways at once, so the oracle's state after some tokens is a set of
 * recognizer states (one for grammars without token nodes).
 */
import type { IrGrammar, IrTokenRef } from "../../lib/compile/ir.js";
import { Recognizer, type RecognizerState, type TokenUniverse } from "../../lib/compile/recognizer.js";
import { TokenKind, type VocabularyData } from "../../lib/tokenizer/vocabulary.js";

interface SortedVocab {
  /** Eligible token ids (text tokens with at least one byte) in byte order. */
  order: Uint32Array;
  stop: Set<number>;
}

const sortedCache = new WeakMap<VocabularyData, SortedVocab>();

function sorted(vocab: VocabularyData): SortedVocab {
  let s = sortedCache.get(vocab);
  if (s) return s;
  const ids: number[] = [];
  const count = vocab.kinds.length;
  for (let id = 0; id < count; id++) {
    if (vocab.kinds[id] !== TokenKind.Control && vocab.offsets[id + 1]! > vocab.offsets[id]!) ids.push(id);
  }
  const bytesOf = (id: number) => vocab.bytes.subarray(vocab.offsets[id]!, vocab.offsets[id + 1]!);
  ids.sort((x, y) => Buffer.compare(bytesOf(x), bytesOf(y)) || x - y);
  s = { order: Uint32Array.from(ids), stop: new Set(vocab.stopTokenIds) };
  sortedCache.set(vocab, s);
  return s;
}

/** Words of one mask row. */
export function maskWords(vocabSize: number): number {
  return Math.ceil(vocabSize / 32);
}

/** Whether token `id` is set in a row. */
export function maskHas(mask: Int32Array, id: number): boolean {
  return ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;
}

/** Ids set in `a` but not in `b`, and in `b` but not in `a`. */
export function maskDiff(a: Int32Array, b: Int32Array, vocabSize: number): { onlyA: number[]; onlyB: number[] } {
  const onlyA: number[] = [];
  const onlyB: number[] = [];
  for (let w = 0; w < maskWords(vocabSize); w++) {
    const x = a[w]! ^ b[w]!;
    if (x === 0) continue;
    for (let bit = 0; bit < 32; bit++) {
      if (((x >>> bit) & 1) === 0) continue;
      const id = w * 32 + bit;
      (((a[w]! >>> bit) & 1) === 1 ? onlyA : onlyB).push(id);
    }
  }
  return { onlyA, onlyB };
}

/** Ids set in a row, ascending. */
export function maskIds(mask: Int32Array, vocabSize: number): number[] {
  const out: number[] = [];
  for (let id = 0; id < vocabSize; id++) if (maskHas(mask, id)) out.push(id);
  return out;
}

/**
 * The token universe of a vocabulary, written apart from the engine's: a token text names the
 * token whose bytes are exactly it (a special token first, then the lowest id); the free tokens
 * are the text tokens that are not stop tokens.
 */
export function tokenUniverse(vocab: VocabularyData): TokenUniverse {
  const byText = new Map<string, number>();
  const count = vocab.kinds.length;
  for (let id = 0; id < count; id++) {
    const key = Buffer.from(vocab.bytes.subarray(vocab.offsets[id]!, vocab.offsets[id + 1]!)).toString("latin1");
    const known = byText.get(key);
    if (known === undefined || (vocab.kinds[known] === TokenKind.Normal && vocab.kinds[id] !== TokenKind.Normal)) byText.set(key, id);
  }
  const stops = new Set(vocab.stopTokenIds);
  return {
    resolve(ref: IrTokenRef): number {
      if (typeof ref === "number") return ref;
      const id = byText.get(Buffer.from(ref, "utf8").toString("latin1"));
      if (id === undefined) throw new Error(`oracle: no token ${JSON.stringify(ref)}`);
      return id;
    },
    isFree: (id) => id < count && vocab.kinds[id] !== TokenKind.Control && vocab.offsets[id + 1]! > vocab.offsets[id]! && !stops.has(id),
  };
}

/** The oracle's state: the recognizer states the tokens so far may have led to. */
export type OracleState = readonly RecognizerState[];

/** The oracle for one grammar and one vocabulary. */
export class BruteForce {
  readonly recognizer: Recognizer;
  private readonly vocab: VocabularyData;
  private readonly sortedVocab: SortedVocab;

  constructor(grammar: IrGrammar, vocab: VocabularyData) {
    this.recognizer = new Recognizer(grammar, { tokens: tokenUniverse(vocab) });
    this.vocab = vocab;
    this.sortedVocab = sorted(vocab);
  }

  initial(): OracleState {
    return [this.recognizer.initial()];
  }

  tokenBytes(id: number): Uint8Array {
    return this.vocab.bytes.subarray(this.vocab.offsets[id]!, this.vocab.offsets[id + 1]!);
  }

  /** Whether the output so far is a complete match. */
  accepts(state: OracleState): boolean {
    return state.some((s) => this.recognizer.accepts(s));
  }

  /** The state after a token (its bytes, or a token node), or null when neither is viable. */
  advance(state: OracleState, id: number): OracleState | null {
    const out: RecognizerState[] = [];
    const add = (s: RecognizerState | null) => {
      if (s !== null && !out.includes(s)) out.push(s);
    };
    const eligible = id < this.vocab.kinds.length && this.vocab.kinds[id] !== TokenKind.Control && this.tokenBytes(id).length > 0;
    for (const s of state) {
      if (eligible) add(this.recognizer.stepBytes(s, this.tokenBytes(id)));
      if (this.recognizer.hasTokenNodes) add(this.recognizer.stepToken(s, id));
    }
    return out.length === 0 ? null : out;
  }

  /** The brute-force mask at `state`. */
  mask(state: OracleState): Int32Array {
    const out = new Int32Array(maskWords(this.vocab.vocabSize));
    for (const s of state) this.maskOf(s, out);
    return out;
  }

  private maskOf(state: RecognizerState, out: Int32Array): void {
    const { order, stop } = this.sortedVocab;
    const { bytes, offsets } = this.vocab;
    const states: Array<RecognizerState | null> = [state];
    let prevStart = 0;
    let prevLen = 0;
    for (let k = 0; k < order.length; k++) {
      const id = order[k]!;
      const start = offsets[id]!;
      const len = offsets[id + 1]! - start;
      let lcp = 0;
      const limit = Math.min(len, prevLen);
      while (lcp < limit && bytes[start + lcp] === bytes[prevStart + lcp]) lcp++;
      for (let d = lcp; d < len; d++) {
        const s = states[d]!;
        states[d + 1] = s === null ? null : this.recognizer.step(s, bytes[start + d]!);
      }
      if (states[len] !== null) out[id >>> 5]! |= 1 << (id & 31);
      prevStart = start;
      prevLen = len;
    }
    if (this.recognizer.accepts(state)) for (const id of stop) out[id >>> 5]! |= 1 << (id & 31);
    if (this.recognizer.hasTokenNodes) {
      for (let id = 0; id < this.vocab.kinds.length; id++) {
        if (!stop.has(id) && this.recognizer.stepToken(state, id) !== null) out[id >>> 5]! |= 1 << (id & 31);
      }
    }
  }
}

/** A readable token for failure messages. */
export function describeToken(vocab: VocabularyData, id: number): string {
  if (id >= vocab.kinds.length) return `#${id} (padding)`;
  const text = Buffer.from(vocab.bytes.subarray(vocab.offsets[id]!, vocab.offsets[id + 1]!)).toString("latin1");
  return `#${id} ${JSON.stringify(text)}`;
}
