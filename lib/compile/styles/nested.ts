/**
 * The nested argument styles, where objects and arrays are markup too, not JSON:
 *
 * - cohere_xml: `<cofl:value name="KEY" type="raw|json|dict|list">BODY</cofl:value>`; `raw` is a
 *   string as raw text, `json` a number, boolean or null, `dict` an object as named values,
 *   `list` an array as unnamed values (`<cofl:value type="…">`). Keys are entity-escaped.
 * - minimax_m3_xml: `NS<KEY>VALUE NS</KEY>` (NS = `]<]minimax[>[`); an object is its elements,
 *   an array `item` elements; strings are raw text, other scalars their JSON text.
 *
 * Values separate with optional whitespace. Objects and arrays must be plain enough to walk: an
 * object schema of `properties`/`required`/`additionalProperties`, an array schema of `items`
 * with `minItems`/`maxItems` (after `$ref`s to definitions), or an `anyOf`/`oneOf` of such; anything
 * else is refused with the keyword, since markup cannot carry the JSON compiler's general object
 * and array rules.
 */
import { SchemaError } from "../../errors.js";
import { isPlainObject } from "../../format/json-path.js";
import type { JsonSchema, JsonSchemaFormat } from "../../format/types.js";
import { choice, lit, repeat, seq, type IrExpr } from "../ir.js";
import type { StyleContext } from "./flat.js";
import { keyIr, rawStringIr, whitespaceIr } from "./raw-text.js";
import { ArgumentSchemas, type Kind, type StyleJsonOptions, type ValueKinds } from "./schemas.js";
import { COHERE, MINIMAX_M3, escapeCohereKey } from "./syntax.js";

const ANNOTATIONS = new Set([
  "$comment", "$id", "$schema", "$anchor", "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly", "$defs", "definitions",
]);
const OBJECT_KEYWORDS = new Set(["type", "properties", "required", "additionalProperties"]);
const ARRAY_KEYWORDS = new Set(["type", "items", "minItems", "maxItems"]);
const SCALAR_KEYWORDS = new Set([
  "minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
]);
const NO_OTHERS = { number: false, boolean: false, null: false, object: false, array: false };

type Style = "cohere_xml" | "minimax_m3_xml";

function pointerOf(base: string, ...parts: string[]): string {
  return [base, ...parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1"))].join("/");
}

class NestedLowering {
  private readonly schemas: ArgumentSchemas;
  private readonly ws: IrExpr;
  private depth = 0;

  constructor(private readonly style: Style, private readonly root: JsonSchema, private readonly ctx: StyleContext) {
    this.schemas = new ArgumentSchemas(root, `${ctx.path}.json_schema`);
    this.ws = whitespaceIr(ctx.maxWhitespace);
  }

  private fail(pointer: string, message: string, keyword?: string): never {
    throw new SchemaError(pointer, `argument style ${this.style}: ${message} (in ${this.ctx.path}.json_schema)`, keyword);
  }

  /** `schema` with local `$ref`s to definitions followed. */
  private resolve(schema: JsonSchema, pointer: string): { schema: JsonSchema; pointer: string } {
    let s = schema;
    let p = pointer;
    for (let hops = 0; isPlainObject(s) && typeof s["$ref"] === "string"; hops++) {
      const ref = s["$ref"];
      const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
      const defs = m && isPlainObject(this.root) ? this.root[m[1]!] : undefined;
      const target = m && isPlainObject(defs) ? defs[decodeURIComponent(m[2]!).replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
      if (target === undefined || hops > 32 || Object.keys(s).some((k) => k !== "$ref" && !ANNOTATIONS.has(k))) {
        this.fail(p, `cannot follow $ref ${JSON.stringify(ref)} (a reference to a root definition, without sibling keywords, is needed)`, "$ref");
      }
      s = target as JsonSchema;
      p = ref;
    }
    return { schema: s, pointer: p };
  }

  private plain(schema: JsonSchema, pointer: string, allowed: Set<string>, what: string): Record<string, unknown> {
    if (schema === true) return {};
    if (!isPlainObject(schema)) this.fail(pointer, `expected ${what} schema`);
    for (const k of Object.keys(schema)) {
      if (!allowed.has(k) && !ANNOTATIONS.has(k)) {
        this.fail(pointerOf(pointer, k), `the keyword "${k}" of ${what} cannot be written as markup exactly`, k);
      }
    }
    return schema;
  }

  /** The body of an object: its named values. */
  private object(schema: JsonSchema, pointer: string): IrExpr {
    const s = this.plain(schema, pointer, OBJECT_KEYWORDS, "an object");
    const properties = isPlainObject(s["properties"]) ? s["properties"] : {};
    const required = Array.isArray(s["required"]) ? (s["required"] as unknown[]).filter((r): r is string => typeof r === "string") : [];
    const names = Object.entries(properties).map(([key, v]) => ({ key, schema: v as JsonSchema, pointer: pointerOf(pointer, "properties", key) }));
    for (const key of required) if (!names.some((n) => n.key === key)) names.push({ key, schema: true, pointer: pointerOf(pointer, "required") });
    const items: IrExpr[] = [];
    for (const n of names) {
      const isRequired = required.includes(n.key);
      if (n.schema === false || this.ctx.excludes.some((e) => n.key.includes(e))) {
        if (isRequired) return choice();
        continue;
      }
      const el = seq(this.ws, this.element(lit(this.nameText(n.key, n.pointer)), n.key, n.schema, n.pointer));
      items.push(isRequired ? el : repeat(el, 0, 1));
    }
    const additional = s["additionalProperties"];
    // xgrammar (strict) closes an object that names members; JSON Schema leaves it open.
    const open = additional === undefined ? (names.length === 0 && required.length === 0) || this.ctx.undeclared === "allow" : additional !== false;
    if (open) {
      if (this.style === "minimax_m3_xml") this.fail(pointer, "additional properties need fixed element names; declare the properties and set additionalProperties to false", "additionalProperties");
      const taken = names.map((n) => escapeCohereKey(n.key));
      const key = keyIr(this.ctx.b, '(?:[^\\u0000"&<>]|&amp;|&lt;|&gt;|&quot;)+', taken, this.ctx.excludes, "cohere_key");
      const value = additional === undefined ? true : (additional as JsonSchema);
      items.push(repeat(seq(this.ws, this.element(seq(lit(COHERE.name), key, lit('"')), null, value, pointerOf(pointer, "additionalProperties"))), 0, null));
    }
    items.push(this.ws);
    return seq(...items);
  }

  /** The body of an array: its items, unnamed (cohere) or `item` elements (MiniMax M3). */
  private array(schema: JsonSchema, pointer: string): IrExpr {
    const s = this.plain(schema, pointer, ARRAY_KEYWORDS, "an array");
    // xgrammar (strict) allows no items where `items` is absent, but a bare `"type": "array"` is any array.
    const bare = Object.keys(s).every((k) => k === "type" || ANNOTATIONS.has(k));
    const items = (s["items"] ?? (this.ctx.undeclared === "forbid" && !bare ? false : true)) as JsonSchema;
    if (typeof items !== "boolean" && !isPlainObject(items)) this.fail(pointerOf(pointer, "items"), "expected one schema for every item", "items");
    const min = typeof s["minItems"] === "number" ? s["minItems"] : 0;
    const max = typeof s["maxItems"] === "number" ? s["maxItems"] : null;
    if (items === false || (max !== null && max < min)) return min === 0 && (max === null || max >= 0) ? this.ws : choice();
    const head = this.style === "cohere_xml" ? lit("") : lit(MINIMAX_M3.item);
    const el = seq(this.ws, this.element(head, this.style === "cohere_xml" ? null : MINIMAX_M3.item, items, pointerOf(pointer, "items")));
    return seq(repeat(el, min, max), this.ws);
  }

  private nameText(key: string, pointer: string): string {
    if (this.style === "cohere_xml") return `${COHERE.name}${escapeCohereKey(key)}"`;
    if (key === "" || key.startsWith("/") || key.includes(">") || key.includes(MINIMAX_M3.ns) || key.trim() === "") {
      this.fail(pointer, `the name ${JSON.stringify(key)} cannot be an element name (empty, blank, starting with "/" or holding ">")`);
    }
    return key;
  }

  /** One value: `name` is the written name part (cohere: ` name="…"` or nothing; M3: the element name). */
  private element(name: IrExpr, m3Name: string | null, schema: JsonSchema, pointer: string): IrExpr {
    if (++this.depth > 64) this.fail(pointer, "the schema nests too deep (or refers to itself) for markup values");
    try {
      const r = this.resolve(schema, pointer);
      const kinds = this.schemas.kinds(r.schema, r.pointer);
      return this.style === "cohere_xml" ? this.cohereValue(name, kinds, r.schema, r.pointer) : this.m3Value(m3Name!, kinds, r.schema, r.pointer);
    } finally {
      this.depth--;
    }
  }

  private cohereValue(name: IrExpr, kinds: ValueKinds, schema: JsonSchema, pointer: string): IrExpr {
    const { ctx, schemas } = this;
    const head = (type: string): IrExpr => seq(lit(COHERE.open), name, lit(`${COHERE.type}${type}${COHERE.headerEnd}`));
    const close = lit(COHERE.close);
    const alts: IrExpr[] = [];
    if (kinds.string) {
      alts.push(seq(head("raw"), rawStringIr(ctx.b, schemas.strings(schema, pointer), {
        excludes: [COHERE.close, ...ctx.excludes], others: NO_OTHERS, stripNewlines: false, name: "cohere_raw",
      }), close));
    }
    const scalars = (["number", "boolean", "null"] as Kind[]).filter((k) => kinds[k]);
    if (scalars.length > 0) alts.push(seq(head("json"), this.ws, schemas.json(ctx.b, schema, pointer, scalars, this.jsonOptions()), this.ws, close));
    if (kinds.object) alts.push(seq(head("dict"), this.body(schema, pointer, "object"), close));
    if (kinds.array) alts.push(seq(head("list"), this.body(schema, pointer, "array"), close));
    return alts.length === 1 ? alts[0]! : choice(...alts);
  }

  private m3Value(name: string, kinds: ValueKinds, schema: JsonSchema, pointer: string): IrExpr {
    const { ctx, schemas } = this;
    if (schema === true) this.fail(pointer, "an unconstrained value has no single markup form; give the value a type");
    const open = lit(`${MINIMAX_M3.ns}<${name}>`);
    const close = lit(`${MINIMAX_M3.ns}</${name}>`);
    const others = { number: kinds.number, boolean: kinds.boolean, null: kinds.null, object: false, array: false };
    const alts: IrExpr[] = [];
    if (kinds.string) {
      alts.push(rawStringIr(ctx.b, schemas.strings(schema, pointer), {
        excludes: [MINIMAX_M3.ns, ...ctx.excludes], others, stripNewlines: false, name: "m3_raw",
      }));
    }
    const scalars = (["number", "boolean", "null"] as Kind[]).filter((k) => kinds[k]);
    if (scalars.length > 0) alts.push(schemas.json(ctx.b, schema, pointer, scalars, this.jsonOptions()));
    if (kinds.object && kinds.array) this.fail(pointer, "a value that may be an object or an array has no single markup form");
    if (kinds.object) alts.push(this.body(schema, pointer, "object"));
    if (kinds.array) alts.push(this.body(schema, pointer, "array"));
    return seq(open, alts.length === 1 ? alts[0]! : choice(...alts), close);
  }

  /**
   * The schemas of the object (or array) values `schema` allows, each to be written as markup:
   * `schema` itself, or, where it is an `anyOf` or `oneOf` beside `type` and annotations only, the
   * branches that allow that kind (their values are the union). A `oneOf` is exact so when at most
   * one branch allows the kind: its values of that kind then match no other branch.
   */
  private branches(schema: JsonSchema, pointer: string, kind: "object" | "array", nesting = 0): Array<{ schema: JsonSchema; pointer: string }> {
    const keyword = isPlainObject(schema) ? (["anyOf", "oneOf"] as const).find((k) => schema[k] !== undefined) : undefined;
    if (!isPlainObject(schema) || keyword === undefined || !Array.isArray(schema[keyword])) return [{ schema: this.narrow(schema, kind), pointer }];
    const plainBeside = Object.keys(schema).every((k) => k === keyword || k === "type" || ANNOTATIONS.has(k));
    if (!plainBeside) return [{ schema: this.narrow(schema, kind), pointer }];
    if (nesting > 32) this.fail(pointer, `the ${keyword} branches nest too deep (or refer to themselves) for markup values`, keyword);
    const out: Array<{ schema: JsonSchema; pointer: string }> = [];
    let allowing = 0;
    (schema[keyword] as JsonSchema[]).forEach((branch, i) => {
      const r = this.resolve(branch, pointerOf(pointer, keyword, String(i)));
      if (!this.schemas.kinds(r.schema, r.pointer)[kind]) return;
      allowing++;
      out.push(...this.branches(r.schema, r.pointer, kind, nesting + 1));
    });
    if (keyword === "oneOf" && allowing > 1) {
      this.fail(pointerOf(pointer, keyword), `several branches of oneOf allow ${kind === "object" ? "an object" : "an array"}; markup cannot say that exactly one of them holds`, keyword);
    }
    return out;
  }

  /** The body of an object or an array value: one body per branch that allows it. */
  private body(schema: JsonSchema, pointer: string, kind: "object" | "array"): IrExpr {
    const bodies = this.branches(schema, pointer, kind).map((b) => (kind === "object" ? this.object(b.schema, b.pointer) : this.array(b.schema, b.pointer)));
    return bodies.length === 1 ? bodies[0]! : choice(...bodies);
  }

  /** The object or array part of `schema`: keywords of the other types dropped (they do not apply). */
  private narrow(schema: JsonSchema, type: "object" | "array"): JsonSchema {
    if (typeof schema === "boolean") return schema;
    const other = type === "object" ? ARRAY_KEYWORDS : OBJECT_KEYWORDS;
    return Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "type" && !SCALAR_KEYWORDS.has(k) && !other.has(k)));
  }

  private jsonOptions(): StyleJsonOptions {
    return this.ctx.maxWhitespace === undefined ? { undeclared: this.ctx.undeclared } : { maxWhitespace: this.ctx.maxWhitespace, undeclared: this.ctx.undeclared };
  }

  lower(): IrExpr {
    const root = this.resolve(this.root, "#");
    if (root.schema === false) return choice();
    if (isPlainObject(root.schema)) {
      const type = root.schema["type"];
      if (type !== undefined && !(type === "object" || (Array.isArray(type) && type.includes("object")))) {
        this.fail("#/type", `the arguments are written as named values, so the schema must describe an object, found type ${JSON.stringify(type)}`, "type");
      }
    }
    if (root.schema === true && this.style === "minimax_m3_xml") this.fail("#", "unconstrained arguments have no fixed element names; declare the properties");
    return this.object(root.schema, root.pointer);
  }
}

/** The grammar of a nested style's arguments. */
export function lowerNestedStyle(style: Style, format: JsonSchemaFormat, ctx: StyleContext): IrExpr {
  return new NestedLowering(style, format.json_schema, ctx).lower();
}
