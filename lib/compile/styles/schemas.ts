/**
 * The JSON Schema side of the argument styles: one argument's schema looked at inside the
 * arguments schema it belongs to (so `$ref`s to the root's definitions resolve), through the JSON
 * Schema compiler's own analysis. The styles ask it which kinds of values an argument allows and
 * for the JSON grammar of one kind; the output parsers ask it the same question to decode raw
 * values, so grammar and parser never disagree on what a value is.
 */
// The JSON Schema compiler's modules import each other in a cycle (shapes, strings, formats);
// entering through its index first evaluates them in the order they expect.
import "../json-schema/index.js";
import { SchemaError } from "../../errors.js";
import { isPlainObject } from "../../format/json-path.js";
import type { JsonSchema } from "../../format/types.js";
import { GrammarBuilder, type IrExpr } from "../ir.js";
import { SchemaCompiler } from "../json-schema/compiler.js";
import { lowerJsonSchema } from "../json-schema/index.js";
import { numIsEmpty } from "../json-schema/numbers.js";
import type { Shape } from "../json-schema/shape.js";
import type { StrSet } from "../json-schema/strings.js";

/** The kinds of JSON value a schema allows (integers count as numbers). */
export interface ValueKinds {
  string: boolean;
  number: boolean;
  boolean: boolean;
  null: boolean;
  object: boolean;
  array: boolean;
}

/** The JSON kinds in the order tags offer them. */
export const KINDS = ["string", "number", "boolean", "null", "object", "array"] as const;
export type Kind = (typeof KINDS)[number];

/** Root keywords that locate definitions or annotate; carried into an argument's own schema. */
const CARRIED = ["$schema", "$id", "$defs", "definitions"] as const;

/** Options the JSON parts of a style share with plain JSON. */
export interface StyleJsonOptions {
  maxWhitespace?: number;
  /** Members and items a JSON value's schema does not declare (lowerJsonSchema's `undeclared`). */
  undeclared?: "allow" | "forbid";
  /** Strings no JSON string of the value may contain (lowerJsonSchema's `excludes`). */
  excludes?: readonly string[];
  /** Object members in any order (lowerJsonSchema's `anyOrder`). */
  anyOrder?: boolean;
}

/** One arguments schema (the root) and the schemas of its arguments, analysed in its context. */
export class ArgumentSchemas {
  constructor(
    readonly root: JsonSchema,
    /** Where the root is in the request, for messages (`format.json_schema`). */
    readonly where: string,
  ) {}

  /** `schema` (a part of the root, at JSON pointer `pointer`) with the root's definitions beside it. */
  private standalone(schema: JsonSchema, extra: Record<string, unknown> = {}): JsonSchema {
    const out: Record<string, unknown> = {};
    if (isPlainObject(this.root)) {
      for (const k of CARRIED) if (Object.hasOwn(this.root, k)) out[k] = this.root[k];
    }
    out["allOf"] = [schema];
    for (const [k, v] of Object.entries(extra)) out[k] = v;
    return out;
  }

  /** Runs `fn`, reporting schema errors at the argument's pointer instead of the wrapper's. */
  private located<T>(pointer: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof SchemaError) {
        const path = err.schemaPath.startsWith("#/allOf/0") ? pointer + err.schemaPath.slice("#/allOf/0".length) : err.schemaPath;
        const detail = err.message.slice(err.schemaPath.length + 2);
        throw new SchemaError(path, `${detail} (in ${this.where})`, err.keyword);
      }
      throw err;
    }
  }

  /** The compiler's shape of `schema`: its values per JSON type. */
  shape(schema: JsonSchema, pointer: string): Shape {
    return this.located(pointer, () => {
      const compiler = new SchemaCompiler(this.standalone(schema), new GrammarBuilder(), {
        whitespace: "any", maxWhitespace: null, anyOrder: false, lenient: false, formats: "assert", draft: "2020-12", undeclared: "allow",
      }, "shape/");
      return compiler.shapeOf(compiler.registry.root);
    });
  }

  /** Which kinds of value `schema` allows. */
  kinds(schema: JsonSchema, pointer: string): ValueKinds {
    if (schema === true) return { string: true, number: true, boolean: true, null: true, object: true, array: true };
    if (schema === false) return { string: false, number: false, boolean: false, null: false, object: false, array: false };
    const s = this.shape(schema, pointer);
    return {
      string: s.str.kind !== "none",
      number: !numIsEmpty(s.num),
      boolean: s.bool !== 0,
      null: s.nul,
      object: s.obj.length > 0,
      array: s.arr.length > 0,
    };
  }

  /** The strings `schema` allows. */
  strings(schema: JsonSchema, pointer: string): StrSet {
    return this.shape(schema, pointer).str;
  }

  /**
   * The JSON grammar of the values of `schema` whose kind is one of `kinds` (all of them when
   * absent), with no surrounding whitespace.
   */
  json(b: GrammarBuilder, schema: JsonSchema, pointer: string, kinds: readonly Kind[] | undefined, options: StyleJsonOptions): IrExpr {
    const extra: Record<string, unknown> = {};
    if (kinds !== undefined) extra["type"] = kinds.flatMap((k) => (k === "number" ? ["number"] : [k]));
    return this.located(pointer, () => lowerJsonSchema(this.standalone(schema, extra), b, {
      ...(options.maxWhitespace === undefined ? {} : { maxWhitespace: options.maxWhitespace }),
      ...(options.undeclared === undefined ? {} : { undeclared: options.undeclared }),
      ...(options.excludes === undefined || options.excludes.length === 0 ? {} : { excludes: options.excludes }),
      ...(options.anyOrder === true ? { anyOrder: true } : {}),
    }));
  }
}
