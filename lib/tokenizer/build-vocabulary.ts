/**
 * Options → {@link VocabularyData}: added tokens, padding, token kinds (normal text, text-bearing
 * special, control), stop tokens and forbidden tokens, applied to the {@link TokenTable} a loader
 * produced. Shared by every loader so that options mean the same thing everywhere.
 */
import { InvalidArgumentError } from "../errors.js";
import { DEFAULT_STOP_TOKENS, DEFAULT_TEXT_SPECIAL_TOKENS } from "./special-tokens.js";
import { decodeText, TokenFlag, withAddedTokens, type AddedToken, type TokenTable } from "./token-table.js";
import { TokenKind, type VocabularyData } from "./vocabulary.js";

/** A token named by its id or by its text (a special token's content, or a text token's exact text). */
export type TokenRef = number | string;

/** Options every {@link TokenizerInfo} loader accepts. */
export interface VocabularyOptions {
  /**
   * Number of ids the model's logits cover, when larger than the tokenizer's token count (e.g.
   * Qwen3: 151,669 tokens, 151,936 logits). The extra ids are padding, never allowed.
   */
  vocabSize?: number;
  /**
   * The tokens that end generation (allowed exactly when the grammar can end). Default: every
   * special token named in {@link DEFAULT_STOP_TOKENS} plus the source's own end-of-sequence token.
   */
  stopTokens?: readonly TokenRef[];
  /**
   * Tokens appended after the last id, special unless `{special: false}` is given; one whose
   * content already is a special token of the vocabulary is not added again. For Kimi K3:
   * `["<|open|>", "<|sep|>", "<|close|>", "<|end_of_msg|>"]`.
   */
  addedTokens?: readonly (string | { content: string; special?: boolean })[];
  /**
   * Special tokens that stand for their text: allowed exactly where the grammar has their text.
   * Default: the Kimi K3 markers `<|open|>`, `<|sep|>`, `<|close|>` where present. Every other
   * special token is a control token and never allowed.
   */
  textSpecialTokens?: readonly string[];
  /** Tokens never allowed, whatever the grammar says. */
  forbiddenTokens?: readonly TokenRef[];
}

/** How default stop tokens are looked up: among special tokens only, or among all tokens. */
export type StopDetection = "special" | "all";

/** A vocabulary ready for the engine, with the table it was built from. */
export interface BuiltVocabulary {
  table: TokenTable;
  data: VocabularyData;
}

const encoder = new TextEncoder();

function checkList(value: unknown, path: string, what: string): asserts value is readonly unknown[] | undefined {
  if (value !== undefined && !Array.isArray(value)) throw new InvalidArgumentError(`${path}: expected an array of ${what}, found ${typeof value}`);
}

/** Finds the id of the text token whose bytes equal `text`'s UTF-8 bytes, or -1. */
function findTextToken(table: TokenTable, text: string): number {
  const want = encoder.encode(text);
  const { bytes, offsets, flags } = table;
  outer: for (let id = 0; id < table.count; id++) {
    const start = offsets[id]!;
    if (offsets[id + 1]! - start !== want.length || flags[id] !== TokenFlag.Text) continue;
    for (let k = 0; k < want.length; k++) if (bytes[start + k] !== want[k]) continue outer;
    return id;
  }
  return -1;
}

/** The id of a token named by id or text, or -1 when a name is not in the vocabulary. */
export function lookupToken(table: TokenTable, ref: TokenRef): number {
  if (typeof ref === "number") return Number.isInteger(ref) && ref >= 0 && ref < table.count && table.flags[ref] !== TokenFlag.Unused ? ref : -1;
  return table.specials.get(ref) ?? findTextToken(table, ref);
}

function resolve(table: TokenTable, ref: unknown, path: string): number {
  if (typeof ref === "number") {
    if (!Number.isInteger(ref) || ref < 0 || ref >= table.count) {
      throw new InvalidArgumentError(`${path}: token id ${ref} is out of range (expected an integer in [0, ${table.count}))`);
    }
    if (table.flags[ref] === TokenFlag.Unused) throw new InvalidArgumentError(`${path}: no token has id ${ref}`);
    return ref;
  }
  if (typeof ref !== "string" || ref.length === 0) {
    throw new InvalidArgumentError(`${path}: expected a token id or a non-empty token text, found ${JSON.stringify(ref)}`);
  }
  const id = lookupToken(table, ref);
  if (id < 0) throw new InvalidArgumentError(`${path}: no token ${JSON.stringify(ref)} in the vocabulary (expected a special token's content or a token's exact text)`);
  return id;
}

/** Ids of the tokens (among special ones, or all) whose text is one of `names`. */
function detect(table: TokenTable, names: readonly string[], among: StopDetection): number[] {
  const found: number[] = [];
  const wanted = new Set(names);
  for (const name of wanted) {
    const id = table.specials.get(name);
    if (id !== undefined) {
      found.push(id);
      wanted.delete(name);
    }
  }
  if (among === "all" && wanted.size > 0) {
    const lengths = new Set([...wanted].map((n) => encoder.encode(n).length));
    for (let id = 0; id < table.count; id++) {
      if (table.flags[id] !== TokenFlag.Text || !lengths.has(table.offsets[id + 1]! - table.offsets[id]!)) continue;
      if (wanted.has(decodeText(table, id))) found.push(id);
    }
  }
  return found;
}

/**
 * Applies the options to a loader's table. `eosNames` are the source's own end-of-sequence
 * tokens (e.g. tokenizer_config.json's `eos_token`), added to the default stop tokens.
 */
export function buildVocabulary(
  base: TokenTable,
  options: VocabularyOptions = {},
  defaults: { eosNames?: readonly string[]; eosIds?: readonly number[]; stopDetection?: StopDetection } = {},
): BuiltVocabulary {
  if (options === null || typeof options !== "object") throw new InvalidArgumentError(`options: expected an object, found ${options === null ? "null" : typeof options}`);
  checkList(options.addedTokens, "options.addedTokens", "strings or {content, special} objects");
  checkList(options.stopTokens, "options.stopTokens", "token ids or texts");
  checkList(options.textSpecialTokens, "options.textSpecialTokens", "token texts");
  checkList(options.forbiddenTokens, "options.forbiddenTokens", "token ids or texts");

  // Added tokens.
  const added: AddedToken[] = [];
  const addedNames = new Set<string>();
  (options.addedTokens ?? []).forEach((entry: unknown, i) => {
    const path = `options.addedTokens[${i}]`;
    const obj = typeof entry === "string" ? { content: entry } : entry;
    if (obj === null || typeof obj !== "object") throw new InvalidArgumentError(`${path}: expected a string or {content, special}, found ${JSON.stringify(entry)}`);
    const { content, special } = obj as { content?: unknown; special?: unknown };
    if (typeof content !== "string" || content.length === 0) throw new InvalidArgumentError(`${path}: expected a non-empty token text, found ${JSON.stringify(content)}`);
    if (special !== undefined && typeof special !== "boolean") throw new InvalidArgumentError(`${path}.special: expected true or false, found ${JSON.stringify(special)}`);
    const isSpecial = special !== false;
    if (addedNames.has(content)) throw new InvalidArgumentError(`${path}: ${JSON.stringify(content)} is listed twice`);
    addedNames.add(content);
    if (isSpecial && base.specials.has(content)) return;
    added.push({ id: base.count + added.length, content, special: isSpecial });
  });
  const table = withAddedTokens(base, added, "options.addedTokens");

  // Padding.
  let vocabSize = table.count;
  if (options.vocabSize !== undefined) {
    const v = options.vocabSize;
    if (typeof v !== "number" || !Number.isInteger(v) || v <= 0 || v > 0x7fffffff) {
      throw new InvalidArgumentError(`options.vocabSize: expected a positive integer, found ${JSON.stringify(v)}`);
    }
    if (v < table.count) {
      throw new InvalidArgumentError(`options.vocabSize: ${v} is smaller than the vocabulary's ${table.count} tokens (expected at least ${table.count})`);
    }
    vocabSize = v;
  }

  // Kinds: text tokens with bytes are Normal; special, unused and empty tokens are Control.
  const kinds = new Uint8Array(table.count);
  for (let id = 0; id < table.count; id++) {
    const isText = table.flags[id] === TokenFlag.Text && table.offsets[id + 1]! > table.offsets[id]!;
    kinds[id] = isText ? TokenKind.Normal : TokenKind.Control;
  }

  // Stop tokens.
  let stops: number[];
  if (options.stopTokens !== undefined) {
    stops = options.stopTokens.map((ref, i) => resolve(table, ref, `options.stopTokens[${i}]`));
  } else {
    stops = detect(table, [...DEFAULT_STOP_TOKENS, ...(defaults.eosNames ?? [])], defaults.stopDetection ?? "special");
    for (const id of defaults.eosIds ?? []) if (id >= 0 && id < table.count && table.flags[id] !== TokenFlag.Unused) stops.push(id);
  }
  const stopSet = new Set(stops);

  // Text-bearing special tokens.
  const explicitText = options.textSpecialTokens !== undefined;
  (options.textSpecialTokens ?? DEFAULT_TEXT_SPECIAL_TOKENS).forEach((name: unknown, i) => {
    const path = `options.textSpecialTokens[${i}]`;
    if (typeof name !== "string" || name.length === 0) throw new InvalidArgumentError(`${path}: expected a non-empty token text, found ${JSON.stringify(name)}`);
    const id = table.specials.get(name);
    if (id === undefined) {
      if (explicitText && findTextToken(table, name) < 0) {
        throw new InvalidArgumentError(`${path}: no special token ${JSON.stringify(name)} in the vocabulary`);
      }
      return;
    }
    if (stopSet.has(id)) {
      // A token is either text or a stop. Explicit choices win over detected defaults; two
      // explicit choices that disagree are an error.
      if (!explicitText) return;
      if (options.stopTokens !== undefined) {
        throw new InvalidArgumentError(`${path}: ${JSON.stringify(name)} is also listed in options.stopTokens (a token is either text or a stop, not both)`);
      }
      stopSet.delete(id);
    }
    kinds[id] = TokenKind.SpecialText;
  });

  // Forbidden tokens: control, and no longer stops.
  (options.forbiddenTokens ?? []).forEach((ref, i) => {
    const id = resolve(table, ref, `options.forbiddenTokens[${i}]`);
    kinds[id] = TokenKind.Control;
    stopSet.delete(id);
  });
  for (const id of stopSet) kinds[id] = TokenKind.Control;

  const stopTokenIds = Uint32Array.from([...stopSet].sort((a, b) => a - b));
  return {
    table,
    data: { vocabSize, bytes: table.bytes, offsets: table.offsets, kinds, stopTokenIds },
  };
}
