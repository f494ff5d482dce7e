/**
 * Vocabularies in GGUF form (`tokenizer.ggml.*`): read from a Hugging Face byte-level BPE
 * tokenizer.json, or given directly (e.g. a small SentencePiece vocabulary for tests), and turned
 * into the metadata entries node-llama-cpp needs to load a model and tokenize like the source.
 */
import { readFileSync } from "node:fs";
import { InvalidArgumentError, TokenizerError } from "../../errors.js";
import { KIMI_K3_STOP_TOKEN } from "../../tokenizer/special-tokens.js";
import type { GgufValue } from "./gguf-writer.js";

/** GGUF token types (llama.cpp's `llama_token_type`). */
export const GgufTokenType = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

/** A vocabulary as GGUF stores it. */
export interface GgufVocabulary {
  /** llama.cpp tokenizer model: "gpt2" (byte-level BPE) or "llama" (SentencePiece). */
  model: "gpt2" | "llama";
  /** Pre-tokenizer name for "gpt2" vocabularies ("llama-bpe", "qwen2", "default"). */
  pre?: string;
  /** Token strings in the vocabulary's encoding, by id. */
  tokens: readonly string[];
  /** One {@link GgufTokenType} per token. */
  types: readonly number[];
  /** SentencePiece scores (higher merges first), one per token. */
  scores?: readonly number[];
  /** BPE merges, "a b". */
  merges?: readonly string[];
  bosId?: number;
  eosId?: number;
  unknownId?: number;
}

/** Llama 3's pre-tokenizer split pattern and Qwen2's, which llama.cpp knows as "llama-bpe" and "qwen2". */
const KNOWN_PRE_TOKENIZERS: [string, string][] = [
  ["llama-bpe", "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
  ["qwen2", "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
];


interface TokenizerJsonForGguf {
  model?: { type?: unknown; vocab?: unknown; merges?: unknown };
  added_tokens?: unknown;
  pre_tokenizer?: unknown;
  decoder?: unknown;
}

function findSplitPattern(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = findSplitPattern(v);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  const obj = value as Record<string, unknown>;
  if (obj.type === "Split") {
    const regex = (obj.pattern as { Regex?: unknown } | undefined)?.Regex;
    if (typeof regex === "string") return regex;
  }
  for (const v of Object.values(obj)) {
    const found = findSplitPattern(v);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A byte-level BPE vocabulary as read from a tokenizer.json, before extra tokens are appended:
 * what the packaged vocabulary file (vocabulary-file.ts) stores.
 */
export interface BpeVocabulary {
  /** Pre-tokenizer name ("llama-bpe", "qwen2", "default"). */
  pre: string;
  /** Token strings by id; ids the tokenizer leaves unused are absent (holes). */
  tokens: readonly (string | undefined)[];
  /** One {@link GgufTokenType} per present token. */
  types: readonly (number | undefined)[];
  /** BPE merges, "a b". */
  merges: readonly string[];
}

/**
 * The vocabulary of a byte-level BPE tokenizer.json, spelled as llama.cpp's converter spells
 * it: vocabulary tokens in their byte-level form (normal), special added tokens as control
 * tokens, other added tokens user-defined.
 */
export function readBpeTokenizerJson(path: string): BpeVocabulary {
  let json: TokenizerJsonForGguf;
  try {
    json = JSON.parse(readFileSync(path, "utf8")) as TokenizerJsonForGguf;
  } catch (err) {
    throw new TokenizerError(`${path}: cannot read the tokenizer: ${(err as Error).message}`);
  }
  const vocab = json.model?.vocab;
  if (json.model?.type !== "BPE" || vocab === null || typeof vocab !== "object" || Array.isArray(vocab)) {
    throw new TokenizerError(`${path}: model: the tiny model needs a byte-level BPE tokenizer.json (model.type "BPE" with a {token: id} vocab)`);
  }
  if (!JSON.stringify(json.decoder ?? json.pre_tokenizer ?? null).includes('"ByteLevel"')) {
    throw new TokenizerError(`${path}: decoder: the tiny model needs a byte-level tokenizer (a ByteLevel decoder)`);
  }
  const tokens: (string | undefined)[] = [];
  const types: (number | undefined)[] = [];
  for (const [token, id] of Object.entries(vocab as Record<string, unknown>)) {
    if (typeof id !== "number" || !Number.isInteger(id) || id < 0) throw new TokenizerError(`${path}: model.vocab[${JSON.stringify(token)}]: expected a token id`);
    tokens[id] = token;
    types[id] = 1;
  }
  const added = Array.isArray(json.added_tokens) ? (json.added_tokens as { id?: unknown; content?: unknown; special?: unknown }[]) : [];
  added.forEach((t, i) => {
    if (typeof t.id !== "number" || typeof t.content !== "string") throw new TokenizerError(`${path}: added_tokens[${i}]: expected id and content`);
    tokens[t.id] = t.content;
    // As llama.cpp's converter does: special added tokens are control tokens, others user-defined.
    types[t.id] = t.special === true ? 3 : 4;
  });
  const merges = (Array.isArray(json.model.merges) ? json.model.merges : []).map((m: unknown, i) => {
    if (typeof m === "string") return m;
    if (Array.isArray(m) && m.length === 2 && typeof m[0] === "string" && typeof m[1] === "string") return `${m[0]} ${m[1]}`;
    throw new TokenizerError(`${path}: model.merges[${i}]: expected "a b" or ["a", "b"]`);
  });
  const split = findSplitPattern(json.pre_tokenizer);
  const pre = KNOWN_PRE_TOKENIZERS.find(([, pattern]) => pattern === split)?.[0] ?? "default";
  return { pre, tokens, types, merges };
}

/**
 * The GGUF vocabulary of a BPE vocabulary with `addedTokens` appended as control tokens (those
 * it already has as control tokens are not added again) and unused ids as `[PADn]` (unused).
 */
export function completeBpeVocabulary(base: BpeVocabulary, addedTokens: readonly string[]): GgufVocabulary {
  const tokens = [...base.tokens];
  const types = [...base.types];
  const specials = new Set<string>();
  tokens.forEach((t, id) => {
    if (t !== undefined && types[id] === 3) specials.add(t);
  });
  const present = new Set(tokens.filter((t) => t !== undefined));
  for (const content of addedTokens) {
    // A text the tokenizer already has as a token (Qwen's <tool_call>) is not added twice.
    if (specials.has(content) || present.has(content)) continue;
    tokens.push(content);
    types.push(3);
  }
  for (let id = 0; id < tokens.length; id++) {
    if (tokens[id] === undefined) {
      tokens[id] = `[PAD${id}]`;
      types[id] = 5;
    }
  }
  const full = tokens as string[];
  const idOf = (text: string): number => full.indexOf(text);
  const bos = idOf("<|begin_of_text|>");
  // The K3 end-of-message marker ends a message; without it, the tokenizer's own end of text.
  const eos = [KIMI_K3_STOP_TOKEN, "<|eot_id|>", "<|end_of_text|>", "<|im_end|>", "<|endoftext|>"].map(idOf).find((id) => id >= 0);
  return {
    model: "gpt2", pre: base.pre, tokens: full, types: types as number[], merges: base.merges,
    ...(bos >= 0 ? { bosId: bos } : {}), ...(eos === undefined ? {} : { eosId: eos }),
  };
}

/**
 * The GGUF vocabulary of a byte-level BPE tokenizer.json (Llama 3, Qwen2/3, …) with `addedTokens`
 * appended as control tokens; see {@link readBpeTokenizerJson} and {@link completeBpeVocabulary}.
 */
export function vocabularyFromTokenizerJson(path: string, addedTokens: readonly string[]): GgufVocabulary {
  return completeBpeVocabulary(readBpeTokenizerJson(path), addedTokens);
}

/** The `tokenizer.ggml.*` metadata entries of a vocabulary. */
export function vocabularyEntries(v: GgufVocabulary): [string, GgufValue][] {
  if (v.types.length !== v.tokens.length || (v.scores && v.scores.length !== v.tokens.length)) {
    throw new InvalidArgumentError(`vocabulary: ${v.tokens.length} tokens but ${v.types.length} types${v.scores ? ` and ${v.scores.length} scores` : ""}`);
  }
  const entries: [string, GgufValue][] = [
    ["tokenizer.ggml.model", { type: "string", value: v.model }],
    ...(v.pre === undefined ? [] : [["tokenizer.ggml.pre", { type: "string", value: v.pre }] as [string, GgufValue]]),
    ["tokenizer.ggml.tokens", { type: "array", itemType: "string", value: v.tokens }],
    ["tokenizer.ggml.token_type", { type: "array", itemType: "i32", value: v.types }],
  ];
  if (v.scores) entries.push(["tokenizer.ggml.scores", { type: "array", itemType: "f32", value: v.scores }]);
  if (v.merges) entries.push(["tokenizer.ggml.merges", { type: "array", itemType: "string", value: v.merges }]);
  if (v.bosId !== undefined) entries.push(["tokenizer.ggml.bos_token_id", { type: "u32", value: v.bosId }]);
  if (v.eosId !== undefined) entries.push(["tokenizer.ggml.eos_token_id", { type: "u32", value: v.eosId }]);
  if (v.unknownId !== undefined) entries.push(["tokenizer.ggml.unknown_token_id", { type: "u32", value: v.unknownId }]);
  entries.push(["tokenizer.ggml.add_bos_token", { type: "bool", value: v.bosId !== undefined }]);
  return entries;
}
