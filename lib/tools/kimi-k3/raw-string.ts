/**
 * String argument values of the Kimi K3 format. A `type="string"` argument's value is raw text
 * (not JSON) ending at `<|close|>argument<|sep|>`, so a string schema has to become a format over
 * raw text that never contains the argument or call close markers: if it could, the output
 * parser (which ends the value at the first close marker) would read something else than what
 * the grammar meant.
 *
 * - no constraint: text excluding both close markers;
 * - `enum` / `const`: a choice of the literal strings (those the other keywords accept);
 * - `pattern`: a regex with JSON Schema's search semantics (an unanchored side may be preceded or
 *   followed by any text not containing `<|`);
 * - `minLength` / `maxLength`: a regex when the longest value is too short to hold a close
 *   marker; otherwise text excluding the markers with `max_chars`, whose first `minLength`
 *   characters may not be `<` (the one approximation: it keeps a marker from starting there);
 * - anything else (`format`, `pattern` with length bounds, `not`, `allOf`, …) cannot be written
 *   exactly as raw text: the caller then offers only the JSON object form for the tool.
 */
import { ToolError } from "../../errors.js";
import { describeValue, indexPath, keyPath } from "../../format/json-path.js";
import { anyText, constString, or, regex, sequence } from "../../format/build.js";
import type { Format, JsonSchema } from "../../format/types.js";
import { isSchema, narrowToType, resolveLocalRef } from "../schema-types.js";
import { ARGUMENT_CLOSE, CALL_CLOSE } from "./markers.js";

/** The raw value cannot be expressed exactly. */
export const INEXPRESSIBLE = null;
/** No string satisfies the schema. */
export const NO_VALUE = "no value" as const;

export type RawStringResult = Format | typeof INEXPRESSIBLE | typeof NO_VALUE;

/** Keywords with no effect on which strings are valid. */
const ANNOTATIONS = new Set([
  "$comment", "$id", "$schema", "$anchor", "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly",
  "$defs", "definitions",
]);

/** Keywords of other types, ignored for strings. */
const OTHER_TYPE_KEYWORDS = new Set([
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties",
  "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties",
  "items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems",
]);

/** The close markers a raw string may not contain. */
const EXCLUDES = [ARGUMENT_CLOSE, CALL_CLOSE];

/** The shorter close marker's length: a string shorter than this cannot contain either one. */
const SHORTEST_MARKER = Math.min(...EXCLUDES.map((m) => [...m].length));

/** Any text without `<|`: a regex for the unanchored sides of a pattern. */
const NO_MARKER_TEXT = "(?:[^<]|<+[^<|])*<*";

/** Free text of a string argument. */
export function rawText(): Format {
  return anyText({ excludes: EXCLUDES });
}

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** The pattern's top-level alternatives (split at `|` outside groups and classes). */
function alternatives(pattern: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let from = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
    } else if (c === "(") {
      depth++;
    } else if (c === ")") {
      depth--;
    } else if (c === "|" && depth === 0) {
      out.push(pattern.slice(from, i));
      from = i + 1;
    }
  }
  out.push(pattern.slice(from));
  return out;
}

/** True when the pattern ends with a `$` that is not escaped. */
function endsWithAnchor(pattern: string): boolean {
  if (!pattern.endsWith("$")) return false;
  let backslashes = 0;
  for (let i = pattern.length - 2; i >= 0 && pattern[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 0;
}

/** One alternative as a full match: its anchors removed, an unanchored side padded. */
function anchoredAlternative(alternative: string): string {
  const start = alternative.startsWith("^");
  const end = endsWithAnchor(alternative);
  const body = alternative.slice(start ? 1 : 0, end ? -1 : undefined);
  return `${start ? "" : NO_MARKER_TEXT}(?:${body})${end ? "" : NO_MARKER_TEXT}`;
}

/**
 * A full-match regex for JSON Schema's `pattern`, which matches anywhere in the string unless
 * anchored: each top-level alternative keeps its own anchors, and an unanchored side gets text
 * without `<|` around it. A pattern anchored at both ends (with no top-level `|`) stays as written.
 */
export function patternRegex(pattern: string): string {
  const parts = alternatives(pattern);
  if (parts.length === 1 && pattern.startsWith("^") && endsWithAnchor(pattern)) return pattern;
  const converted = parts.map(anchoredAlternative);
  return converted.length === 1 ? converted[0]! : `(?:${converted.join("|")})`;
}

function nonNegativeInteger(value: unknown, path: string, keyword: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new ToolError(keyPath(path, keyword), `expected a non-negative integer, found ${describeValue(value)}`);
  }
  return value;
}

function lengthFormat(min: number, max: number | undefined): RawStringResult {
  if (max !== undefined && min > max) return NO_VALUE;
  if (max !== undefined && max < SHORTEST_MARKER) return regex(`[\\s\\S]{${min},${max}}`);
  const rest = max === undefined ? undefined : max - min;
  const text = anyText(rest === undefined ? { excludes: EXCLUDES } : { excludes: EXCLUDES, max_chars: rest });
  return min === 0 ? text : sequence(regex(`[^<]{${min}}`), text);
}

function compilePattern(pattern: string, path: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch (err) {
    throw new ToolError(keyPath(path, "pattern"), `invalid regular expression: ${(err as Error).message}`);
  }
}

/**
 * The raw-text format of a string argument whose schema (already narrowed to strings) is
 * `schema`; `path` is its JSON path in the request for errors (`tools[0].function.parameters.properties.x`),
 * `root` the parameters schema for `$ref`s. A malformed `pattern` or length is a `ToolError`.
 */
export function rawStringFormat(schema: JsonSchema, root: JsonSchema, path: string, depth = 0): RawStringResult {
  if (schema === true) return rawText();
  if (schema === false) return NO_VALUE;
  if (depth > 64) return INEXPRESSIBLE;
  const keys = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k) && !OTHER_TYPE_KEYWORDS.has(k) && k !== "type");
  if (keys.includes("$ref")) {
    // A reference alone (or with a string type) is the referenced schema; with other keywords
    // it would be an intersection, which raw text cannot express.
    if (keys.length !== 1) return INEXPRESSIBLE;
    const ref = schema["$ref"];
    const target = typeof ref === "string" ? resolveLocalRef(ref, root) : undefined;
    if (target === undefined) return INEXPRESSIBLE;
    return rawStringFormat(narrowToType(target, "string", root), root, path, depth + 1);
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    if (!keys.includes(key)) continue;
    const branches = schema[key];
    // oneOf is exact only with a single branch left: two could accept the same string.
    if (keys.length !== 1 || !Array.isArray(branches) || (key === "oneOf" && branches.length > 1)) return INEXPRESSIBLE;
    const formats: Format[] = [];
    for (let i = 0; i < branches.length; i++) {
      const branch = branches[i] as unknown;
      if (!isSchema(branch)) return INEXPRESSIBLE;
      const f = rawStringFormat(narrowToType(branch, "string", root), root, indexPath(keyPath(path, key), i), depth + 1);
      if (f === INEXPRESSIBLE) return INEXPRESSIBLE;
      // Branches that are choices themselves are spliced in: one flat choice reads better.
      if (f !== NO_VALUE) formats.push(...(f.type === "or" ? f.elements : [f]));
    }
    if (formats.length === 0) return NO_VALUE;
    return formats.length === 1 ? formats[0]! : or(...formats);
  }
  const supported = new Set(["enum", "const", "pattern", "minLength", "maxLength"]);
  if (keys.some((k) => !supported.has(k))) return INEXPRESSIBLE;
  const minLength = nonNegativeInteger(schema["minLength"], path, "minLength");
  const maxLength = nonNegativeInteger(schema["maxLength"], path, "maxLength");
  const pattern = schema["pattern"];
  if (pattern !== undefined && typeof pattern !== "string") {
    throw new ToolError(keyPath(path, "pattern"), `expected a regular expression string, found ${describeValue(pattern)}`);
  }
  if (Object.hasOwn(schema, "const") || Array.isArray(schema["enum"])) {
    const re = pattern === undefined ? undefined : compilePattern(pattern, path);
    let values: unknown[] = Array.isArray(schema["enum"]) ? schema["enum"] : [schema["const"]];
    if (Object.hasOwn(schema, "const") && Array.isArray(schema["enum"])) {
      values = values.filter((v) => JSON.stringify(v) === JSON.stringify(schema["const"]));
    }
    const accepted = new Set<string>();
    for (const v of values) {
      if (typeof v !== "string" || accepted.has(v)) continue;
      const n = codePointLength(v);
      if (minLength !== undefined && n < minLength) continue;
      if (maxLength !== undefined && n > maxLength) continue;
      if (re && !re.test(v)) continue;
      // A literal holding a close marker could not be read back: the value would end there.
      if (EXCLUDES.some((m) => v.includes(m))) continue;
      accepted.add(v);
    }
    const literals = [...accepted].map((v) => constString(v));
    if (literals.length === 0) return NO_VALUE;
    return literals.length === 1 ? literals[0]! : or(...literals);
  }
  if (pattern !== undefined) {
    if (minLength !== undefined || maxLength !== undefined) return INEXPRESSIBLE;
    return regex(patternRegex(pattern));
  }
  if (minLength !== undefined || maxLength !== undefined) return lengthFormat(minLength ?? 0, maxLength);
  return rawText();
}
