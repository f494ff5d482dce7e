/**
 * The flat argument styles (qwen_xml, minimax_xml, deepseek_xml, glm_xml, kimi_k3_xml): the
 * arguments object written as one tag per argument, `KEY_OPEN key KEY_END [tag] VALUE_OPEN value
 * CLOSE`, separated by whitespace, in declared order (optional arguments may be left out,
 * additional ones come last). A value is raw text when it is a string and JSON otherwise;
 * nested objects and arrays are plain JSON. syntax.ts has each style's markers.
 */
import { SchemaError } from "../../errors.js";
import { isPlainObject } from "../../format/json-path.js";
import type { JsonSchema, JsonSchemaFormat } from "../../format/types.js";
import { choice, lit, repeat, seq, type GrammarBuilder, type IrExpr } from "../ir.js";
import { keyIr, rawStringIr, whitespaceIr } from "./raw-text.js";
import { ArgumentSchemas, KINDS, type Kind, type ValueKinds } from "./schemas.js";
import { encodeFlatKey, type FlatStyle } from "./syntax.js";

/** Root keywords the tag-per-argument form honours exactly. */
const ROOT_KEYWORDS = new Set([
  "type", "properties", "required", "additionalProperties", "$defs", "definitions",
  "$comment", "$id", "$schema", "$anchor", "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly",
]);

function pointerOf(base: string, ...parts: string[]): string {
  return [base, ...parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1"))].join("/");
}

/** What one styled json_schema lowering needs. */
export interface StyleContext {
  b: GrammarBuilder;
  /** JSON path of the format, for messages. */
  path: string;
  maxWhitespace: number | undefined;
  /** Strings no raw value or argument name may contain. */
  excludes: readonly string[];
}

class FlatLowering {
  private readonly schemas: ArgumentSchemas;
  private readonly ws: IrExpr;

  constructor(private readonly style: FlatStyle, private readonly root: JsonSchema, private readonly ctx: StyleContext) {
    this.schemas = new ArgumentSchemas(root, `${ctx.path}.json_schema`);
    this.ws = whitespaceIr(ctx.maxWhitespace);
  }

  private fail(pointer: string, message: string, keyword?: string): never {
    throw new SchemaError(pointer, `argument style ${this.style.name}: ${message} (in ${this.ctx.path}.json_schema)`, keyword);
  }

  /** `text` where every `\n` stands for optional whitespace. */
  private loose(text: string): IrExpr {
    const parts = text.split("\n");
    const items: IrExpr[] = [];
    parts.forEach((p, i) => {
      if (i > 0) items.push(this.ws);
      if (p !== "") items.push(lit(p));
    });
    return items.length === 1 ? items[0]! : seq(...items);
  }

  /** The kinds other than string that are allowed. */
  private others(kinds: ValueKinds): Omit<ValueKinds, "string"> {
    return { number: kinds.number, boolean: kinds.boolean, null: kinds.null, object: kinds.object, array: kinds.array };
  }

  /** Every tag of one argument: `head` is the key part (KEY_OPEN key KEY_END). */
  private argument(head: IrExpr, schema: JsonSchema, pointer: string, name: string): IrExpr {
    const { style, ctx, schemas } = this;
    const kinds = schemas.kinds(schema, pointer);
    if (ctx.excludes.length > 0 && (kinds.object || kinds.array)) {
      this.fail(pointer, "excludes cannot be enforced inside the JSON objects and arrays of argument values; restrict the argument to strings and scalars", "excludes");
    }
    const close = lit(style.close);
    const open = this.loose(style.valueOpen);
    const rawExcludes = [style.close, ...ctx.excludes];
    const raw = (others: Omit<ValueKinds, "string">): IrExpr => rawStringIr(ctx.b, schemas.strings(schema, pointer), {
      excludes: rawExcludes, others, stripNewlines: style.stripNewlines, name: `${name}_raw`,
    });
    const json = (only: readonly Kind[]): IrExpr => seq(this.ws, schemas.json(ctx.b, schema, pointer, only, this.jsonOptions()), this.ws);
    const nonString = KINDS.filter((k) => k !== "string" && kinds[k]);
    const alts: IrExpr[] = [];
    switch (style.tagging) {
      case "untagged":
        if (kinds.string) alts.push(seq(head, open, raw(this.others(kinds)), close));
        if (nonString.length > 0) alts.push(seq(head, open, json(nonString), close));
        break;
      case "string-flag": {
        const none = { number: false, boolean: false, null: false, object: false, array: false };
        if (kinds.string) alts.push(seq(head, lit("true"), open, raw(none), close));
        if (nonString.length > 0) alts.push(seq(head, lit("false"), open, json(nonString), close));
        break;
      }
      case "json-type": {
        const none = { number: false, boolean: false, null: false, object: false, array: false };
        for (const k of KINDS) {
          if (!kinds[k]) continue;
          alts.push(seq(head, lit(k), open, k === "string" ? raw(none) : json([k]), close));
        }
        break;
      }
    }
    const body = alts.length === 1 ? alts[0]! : choice(...alts);
    return ctx.b.define(ctx.b.freshName(name), body);
  }

  private jsonOptions(): { maxWhitespace?: number } {
    return this.ctx.maxWhitespace === undefined ? {} : { maxWhitespace: this.ctx.maxWhitespace };
  }

  /** Any number of arguments with undeclared names (other than `taken`), values under `schema`. */
  private additional(schema: JsonSchema, taken: string[], pointer: string): IrExpr {
    const { style, ctx } = this;
    const key = keyIr(ctx.b, style.freeKey, taken, ctx.excludes, `${this.style.name}_key`);
    const head = seq(lit(style.keyOpen), key, lit(style.keyEnd));
    return repeat(seq(this.ws, this.argument(head, schema, pointer, `${style.name}_additional`)), 0, null);
  }

  lower(): IrExpr {
    const { root, ctx } = this;
    if (root === false) return choice();
    if (root === true) return seq(this.additional(true, [], "#"), this.ws);
    const type = root["type"];
    if (type !== undefined && !(type === "object" || (Array.isArray(type) && type.includes("object")))) {
      this.fail("#/type", `the arguments are written as named tags, so the schema must describe an object, found type ${JSON.stringify(type)}`, "type");
    }
    for (const k of Object.keys(root)) {
      if (!ROOT_KEYWORDS.has(k)) {
        this.fail(pointerOf("#", k), `the root keyword "${k}" constrains the arguments object as a whole, which one tag per argument cannot express exactly; move the constraint into the arguments or use style "json"`, k);
      }
    }
    const properties = root["properties"] ?? {};
    if (!isPlainObject(properties)) this.fail("#/properties", "expected an object mapping argument names to schemas", "properties");
    const required = Array.isArray(root["required"]) ? (root["required"] as unknown[]).filter((r): r is string => typeof r === "string") : [];
    const names: { key: string; schema: JsonSchema; pointer: string }[] = Object.entries(properties).map(([key, s]) => ({
      key, schema: s as JsonSchema, pointer: pointerOf("#/properties", key),
    }));
    for (const key of required) if (!names.some((n) => n.key === key)) names.push({ key, schema: true, pointer: "#/required" });
    const items: IrExpr[] = [];
    const taken: string[] = [];
    for (const { key, schema, pointer } of names) {
      const written = encodeFlatKey(this.style, key);
      if (written === null) this.fail(pointer, `the argument name ${JSON.stringify(key)} cannot be written: it is empty, holds a control character or the name's end ${JSON.stringify(this.style.keyEnd)}`);
      taken.push(written);
      const isRequired = required.includes(key);
      const blocked = ctx.excludes.some((e) => written.includes(e)) || schema === false;
      if (blocked) {
        if (isRequired) return choice();
        continue;
      }
      const head = lit(this.style.keyOpen + written + this.style.keyEnd);
      const tag = seq(this.ws, this.argument(head, schema, pointer, `${this.style.name}_${key.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 24) || "arg"}`));
      items.push(isRequired ? tag : repeat(tag, 0, 1));
    }
    const additional = root["additionalProperties"];
    const open = additional === undefined ? names.length === 0 : additional !== false;
    if (open) {
      const schema: JsonSchema = additional === undefined ? true : (additional as JsonSchema);
      items.push(this.additional(schema, taken, "#/additionalProperties"));
    }
    items.push(this.ws);
    return seq(...items);
  }
}

/** The grammar of a flat style's arguments for `format` (its `json_schema`, whitespace limit and excludes). */
export function lowerFlatStyle(style: FlatStyle, format: JsonSchemaFormat, ctx: StyleContext): IrExpr {
  return new FlatLowering(style, format.json_schema, ctx).lower();
}
