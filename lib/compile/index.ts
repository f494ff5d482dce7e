/**
 * The front-end compiler: formats, regexes, EBNF and JSON values lowered to the grammar IR;
 * IR simplification; the reference recognizer; GBNF export.
 */
import type { Format, StructuralTag } from "../format/types.js";
import { irToGbnf, type GbnfOptions } from "./gbnf.js";
import { lowerFormat, type LowerOptions } from "./lower.js";

export * from "./ir.js";
export { clearLoweringCache, lowerFormat, lowerJsonSchemaFormat, loweringCacheStats, setLoweringCacheSize } from "./lower.js";
export type { FragmentCacheStats } from "./fragments.js";
export type { LowerOptions } from "./lower.js";
export { simplifyGrammar } from "./simplify.js";
export type { SimplifyOptions } from "./simplify.js";
export { Recognizer, RecognizerState, isMatch, isViablePrefix, viablePrefixLength } from "./recognizer.js";
export {
  hexDigit, jsonEscape, jsonExponent, jsonFraction, jsonInteger, jsonLiteral, jsonNumber, jsonNumberRule, jsonString,
  jsonStringBody, jsonStringChar, jsonStringRule, jsonUnescapedChar, jsonUnsignedInteger, jsonValueRule, jsonWhitespace,
  jsonWhitespaceChar,
} from "./json-value.js";
export type { JsonValueOptions, JsonWhitespaceOptions } from "./json-value.js";
export { regexToIr } from "./regex/index.js";
export { ebnfToIr } from "./ebnf/index.js";
export type { EbnfOptions } from "./ebnf/index.js";
export { irToGbnf } from "./gbnf.js";
export type { GbnfOptions } from "./gbnf.js";

/** Options of {@link toGBNF}: those of the lowering and of the GBNF writer. */
export type ToGbnfOptions = LowerOptions & GbnfOptions;

/**
 * A llama.cpp GBNF grammar (root rule `root`) for a structural tag or format, so it can drive
 * node-llama-cpp's own grammar sampler. Throws a GrammarError where GBNF cannot express the
 * format: an `any_text` `max_tokens` limit (unless `ignoreTokenLimits`, which drops it), or
 * strings that are not valid UTF-8.
 */
export function toGBNF(format: StructuralTag | Format, options: ToGbnfOptions = {}): string {
  const gbnfOptions: GbnfOptions = {};
  if (options.ignoreTokenLimits !== undefined) gbnfOptions.ignoreTokenLimits = options.ignoreTokenLimits;
  const lowerOptions: LowerOptions = {};
  if (options.simplify !== undefined) lowerOptions.simplify = options.simplify;
  return irToGbnf(lowerFormat(format, lowerOptions), gbnfOptions);
}
