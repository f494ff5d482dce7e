/**
 * Lowering of `json_schema` formats with a `style` other than "json": the argument encodings of
 * the model families (syntax.ts names their markers; docs/compatibility.md describes each).
 */
import { GrammarError } from "../../errors.js";
import type { JsonSchemaFormat } from "../../format/types.js";
import type { GrammarBuilder, IrExpr } from "../ir.js";
import { lowerFlatStyle } from "./flat.js";
import { lowerNestedStyle } from "./nested.js";
import { ARGUMENT_STYLES, FLAT_STYLES, type FlatStyleName } from "./syntax.js";

export { ARGUMENT_STYLES, FLAT_STYLES, COHERE, MINIMAX_M3, decodeRawString, encodeFlatKey, escapeAttribute, escapeCohereKey } from "./syntax.js";
export type { ArgumentStyle, FlatStyle, FlatStyleName, ValueTagging } from "./syntax.js";
export { ArgumentSchemas, KINDS } from "./schemas.js";
export type { Kind, ValueKinds } from "./schemas.js";
export { readsAsOther } from "./raw-text.js";
export { keyPatterns, matchesPattern, underPatterns } from "./pattern-keys.js";
export type { KeyPattern } from "./pattern-keys.js";

/**
 * The grammar of a styled `json_schema` format at JSON path `path`; `undeclared` is what the
 * arguments object and the JSON values inside it allow past what their schemas declare.
 */
export function lowerStyledSchema(format: JsonSchemaFormat, b: GrammarBuilder, path: string, undeclared: "forbid" | "allow" = "forbid"): IrExpr {
  const style = format.style ?? "json";
  const anyOrder = format.any_order === true;
  if (anyOrder && !Object.hasOwn(FLAT_STYLES, style)) {
    throw new GrammarError(`${path}.any_order: argument style "${style}" nests its values as markup in declared order; any_order is supported with style "json" and the flat styles (${Object.keys(FLAT_STYLES).join(", ")})`);
  }
  const ctx = { b, path, maxWhitespace: format.max_whitespace_cnt, excludes: format.excludes ?? [], undeclared, anyOrder };
  if (Object.hasOwn(FLAT_STYLES, style)) return lowerFlatStyle(FLAT_STYLES[style as FlatStyleName], format, ctx);
  if (style === "cohere_xml" || style === "minimax_m3_xml") return lowerNestedStyle(style, format, ctx);
  throw new GrammarError(`${path}.style: unknown argument style "${style}"; expected one of ${ARGUMENT_STYLES.join(", ")}`);
}
