/**
 * The JSON Schema compiler: a schema (draft 2020-12, plus draft-07/04 forms) becomes grammar IR
 * for JSON text whose values the schema accepts.
 *
 * Strict by default: a keyword that cannot be enforced exactly throws a SchemaError naming the
 * keyword and its schema path, so the grammar never accepts more than the schema allows. With
 * `lenient`, such keywords are left out (the grammar accepts more) and listed in `unenforced`.
 * docs/json-schema.md lists what is enforced and what is refused.
 */
import { FormatError, InvalidArgumentError, SchemaError } from "../../errors.js";
import { parseJsonText } from "../../format/json-text.js";
import type { JsonSchema } from "../../format/types.js";
import { GrammarBuilder, type IrExpr, type IrGrammar } from "../ir.js";
import { SchemaCompiler, type SubSchemaLowering, type UnenforcedKeyword } from "./compiler.js";
import { excludesProblem } from "./excludes.js";
import { checkSchemaNesting, stackOverflowAsSchemaError } from "./nesting.js";
import { DIALECTS, type Dialect } from "./resolve.js";

export { excludesProblem };
export type { JsonSchema };
export type { SubSchemaLowering, UnenforcedKeyword };
export type { Dialect };

/** Options of the JSON Schema compiler. */
export interface JsonSchemaOptions {
  /** Whitespace between tokens: any JSON whitespace (default) or none. */
  whitespace?: "any" | "compact";
  /** At most this many whitespace characters between two tokens (default unbounded). */
  maxWhitespace?: number;
  /** Object members in any order, each at most once (default: declared order). */
  anyOrder?: boolean;
  /**
   * `format` as an assertion (default: the enforced formats are checked, the unknown ones
   * ignored) or, as JSON Schema 2020-12's default vocabulary says, an annotation ("ignore").
   * "openapi" asserts them too, and also OpenAPI's numeric formats `int32` and `int64` (an
   * integer within the signed 32- or 64-bit range), which JSON Schema does not define and the
   * other modes leave as annotations, like `float` and `double` always.
   */
  formats?: "assert" | "ignore" | "openapi";
  /**
   * The draft of a schema whose root has no `$schema` (default "2020-12"). A `$schema` naming a
   * draft overrides it. The draft decides which keywords exist — one it does not define is an
   * annotation — and whether `$ref` replaces its siblings (draft-07 and earlier).
   */
  draft?: Dialect;
  /**
   * What a schema that does not say allows past what it declares: the members of an object
   * without `additionalProperties` / `unevaluatedProperties`, the items of an array without
   * `items` / `unevaluatedItems`. "allow" (default) is JSON Schema's reading: any. "forbid" is
   * xgrammar's strict mode (the reading of its structural tags, `Grammar.from_json_schema` and
   * `compile_json_schema` by default): such an object admits only its declared, pattern and
   * `propertyNames` members, such an array only its `prefixItems`. As there, a schema of bare
   * `"type": "object"` or `"type": "array"` (annotations aside) stays any object or array, and the
   * rule applies only where xgrammar reads the schema as an object or array (docs/json-schema.md,
   * "Undeclared members and items").
   */
  undeclared?: "allow" | "forbid";
  /**
   * Strings the text of no JSON string of the value may contain: values and keys at every depth,
   * the text between the quotes as written, escapes included (`excludes: ["ab"]` rejects `"ab"`
   * but not `"\u0061b"`). Numbers, literals, quotes and punctuation are not filtered. This is
   * `excludes` of a structural tag's `json_schema` format (docs/compatibility.md). Non-empty
   * strings, at most 2000 code points in all.
   */
  excludes?: readonly string[];
  /** Compile keywords that cannot be enforced anyway, listing them (default false: refuse). */
  lenient?: boolean;
  /** Receives the keywords left unenforced (lenient mode), for callers of lowerJsonSchema. */
  unenforced?: UnenforcedKeyword[];
}

function checkOptions(options: JsonSchemaOptions): void {
  if (options.whitespace !== undefined && options.whitespace !== "any" && options.whitespace !== "compact") {
    throw new InvalidArgumentError(`options.whitespace: expected "any" or "compact", got ${JSON.stringify(options.whitespace)}`);
  }
  if (options.draft !== undefined && !DIALECTS.includes(options.draft)) {
    throw new InvalidArgumentError(`options.draft: expected one of ${DIALECTS.map((d) => JSON.stringify(d)).join(", ")}, got ${JSON.stringify(options.draft)}`);
  }
  if (options.formats !== undefined && options.formats !== "assert" && options.formats !== "ignore" && options.formats !== "openapi") {
    throw new InvalidArgumentError(`options.formats: expected "assert", "ignore" or "openapi", got ${JSON.stringify(options.formats)}`);
  }
  if (options.undeclared !== undefined && options.undeclared !== "allow" && options.undeclared !== "forbid") {
    throw new InvalidArgumentError(`options.undeclared: expected "allow" or "forbid", got ${JSON.stringify(options.undeclared)}`);
  }
  if (options.excludes !== undefined) {
    const problem = excludesProblem(options.excludes);
    if (problem !== null) throw new InvalidArgumentError(`options.excludes${problem.startsWith("[") ? "" : ": "}${problem}`);
  }
  const mw = options.maxWhitespace;
  if (mw !== undefined && (!Number.isInteger(mw) || mw < 0)) {
    throw new InvalidArgumentError(`options.maxWhitespace: expected a non-negative integer, got ${JSON.stringify(mw)}`);
  }
}

/** Reads a schema from JSON text, keeping the written text of numbers no double holds. */
export function parseSchemaText(text: string): JsonSchema {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (err) {
    if (err instanceof FormatError) throw new SchemaError("#", `the schema is not valid JSON: ${err.message}`);
    throw err;
  }
  checkSchema(value);
  return value;
}

function checkSchema(schema: unknown): asserts schema is JsonSchema {
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    throw new SchemaError("#", `a schema must be an object or a boolean, got ${Array.isArray(schema) ? "an array" : JSON.stringify(schema)}`);
  }
  checkSchemaNesting(schema);
}

/**
 * Lowers a JSON Schema into rules of `b` and returns the expression matching one JSON value the
 * schema accepts (no surrounding whitespace). Rule names start with a fresh prefix, so several
 * schemas can share one grammar. When it throws, rules may already have been added to `b`:
 * discard that builder.
 *
 * `subSchemas` (the lowering cache's hook, lib/compile/lower.ts) lowers the self-contained member
 * and item schemas as fragments of their own; it is not used in lenient mode, whose refusals are
 * listed with their paths in this schema.
 */
export function lowerJsonSchema(schema: JsonSchema, b: GrammarBuilder, options: JsonSchemaOptions = {}, subSchemas?: SubSchemaLowering): IrExpr {
  checkSchema(schema);
  checkOptions(options);
  const prefix = `${b.freshName("json")}/`;
  const compiler = new SchemaCompiler(
    schema,
    b,
    {
      whitespace: options.whitespace ?? "any",
      maxWhitespace: options.maxWhitespace ?? null,
      anyOrder: options.anyOrder ?? false,
      lenient: options.lenient ?? false,
      formats: options.formats ?? "assert",
      draft: options.draft ?? "2020-12",
      undeclared: options.undeclared ?? "allow",
      excludes: options.excludes ?? [],
    },
    prefix,
    subSchemas === undefined || options.lenient === true ? null : subSchemas,
  );
  let expr: IrExpr;
  try {
    expr = compiler.compileRoot();
  } catch (err) {
    throw stackOverflowAsSchemaError(err);
  }
  if (options.unenforced) options.unenforced.push(...compiler.unenforced);
  return expr;
}

/**
 * Compiles a JSON Schema into a standalone grammar whose root matches one JSON value the schema
 * accepts. `unenforced` lists what lenient mode left out (always empty when strict).
 *
 * The schema may be given as JSON text: its numbers are then read exactly as written
 * (`"maximum": 9223372036854775807` is 2^63 − 1, which no double holds). A schema object keeps
 * the written text of its numbers when it came from this package's JSON reader
 * (`parseJsonText`, structural tags); other numbers are read as their double's shortest decimal.
 */
export function compileJsonSchema(schema: JsonSchema | string, options: JsonSchemaOptions = {}): { grammar: IrGrammar; unenforced: UnenforcedKeyword[] } {
  const b = new GrammarBuilder();
  const unenforced: UnenforcedKeyword[] = [];
  const expr = lowerJsonSchema(typeof schema === "string" ? parseSchemaText(schema) : schema, b, { ...options, unenforced });
  b.define("root", expr);
  return { grammar: b.build("root"), unenforced };
}
