/**
 * The flat argument styles (qwen_xml, minimax_xml, deepseek_xml, deepseek_v4_1_xml, glm_xml,
 * kimi_k3_xml): the arguments object written as one tag per argument, `KEY_OPEN key KEY_END [tag]
 * VALUE_OPEN value CLOSE`, separated by whitespace, in declared order (optional arguments may be left out,
 * additional ones come last) or, with the format's any_order, in any order. A value is raw text
 * when it is a string and JSON otherwise; nested objects and arrays are plain JSON (whose strings
 * the format's excludes filter as in style "json"). syntax.ts has each style's markers.
 */
import { SchemaError } from "../../errors.js";
import { isPlainObject } from "../../format/json-path.js";
import type { JsonSchema, JsonSchemaFormat } from "../../format/types.js";
import { choice, counted, lit, mark, marks, MAX_MARKS, repeat, seq, unit, type GrammarBuilder, type IrExpr } from "../ir.js";
import { attributeEscaped, keyPatterns, keyRegions, regionSchema, underPatterns, type KeyPattern } from "./pattern-keys.js";
import { keyIr, rawStringIr, whitespaceIr } from "./raw-text.js";
import { ArgumentSchemas, KINDS, type Kind, type StyleJsonOptions, type ValueKinds } from "./schemas.js";
import { encodeFlatKey, type FlatStyle } from "./syntax.js";
import type { Dfa } from "../json-schema/automaton.js";

/** Root keywords beside a root `const` / `enum` (which fixes the arguments whole): annotations and `type`. */
const LITERAL_COMPANIONS = new Set([
  "type", "$defs", "definitions", "$comment", "$id", "$schema", "$anchor", "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly",
]);

/** Root keywords the tag-per-argument form honours exactly. */
const ROOT_KEYWORDS = new Set([
  "type", "properties", "required", "additionalProperties", "unevaluatedProperties", "patternProperties", "minProperties", "maxProperties", "$defs",
  "definitions", "$comment", "$id", "$schema", "$anchor", "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly",
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
  /** Strings no raw value, argument name or string inside a JSON value may contain. */
  excludes: readonly string[];
  /** Undeclared arguments, members and items: xgrammar's strict "forbid" or JSON Schema's "allow". */
  undeclared: "forbid" | "allow";
  /** Arguments (and the members of JSON objects inside them) in any order (the format's any_order). */
  anyOrder: boolean;
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
    const close = lit(style.close);
    const open = this.loose(style.valueOpen);
    const rawExcludes = [style.close, ...ctx.excludes];
    const raw = (others: Omit<ValueKinds, "string">): IrExpr => rawStringIr(ctx.b, schemas.strings(schema, pointer), {
      excludes: rawExcludes, others, stripNewlines: style.stripNewlines, name: `${name}_raw`, pointer,
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

  /** Nested JSON values keep the excludes out of their strings too (keys and values, at every depth). */
  private jsonOptions(): StyleJsonOptions {
    const { maxWhitespace, undeclared, excludes, anyOrder } = this.ctx;
    return { undeclared, excludes, anyOrder, ...(maxWhitespace === undefined ? {} : { maxWhitespace }) };
  }

  /**
   * One argument with an undeclared name (other than `taken`), its value under `schema`; `names`:
   * the names it may have (as decoded), all when absent.
   */
  private additionalTag(schema: JsonSchema, taken: string[], pointer: string, names?: Dfa): IrExpr {
    const { style, ctx } = this;
    const within = names === undefined ? undefined : style.escapesKeys ? attributeEscaped(names) : names;
    const key = keyIr(ctx.b, style.freeKey, taken, ctx.excludes, `${this.style.name}_key`, within);
    const head = seq(lit(style.keyOpen), key, lit(style.keyEnd));
    return seq(this.ws, this.argument(head, schema, pointer, `${style.name}_additional`));
  }

  /**
   * The object schema the arguments follow: the root, or the definition a root of only `$ref`
   * (besides definitions and annotations) names, through chains of such roots.
   */
  private argumentsSchema(): { schema: JsonSchema; at: string } {
    let schema = this.root;
    let at = "#";
    for (let hops = 0; isPlainObject(schema) && typeof schema["$ref"] === "string"; hops++) {
      const ref = schema["$ref"];
      const extra = Object.keys(schema).filter((k) => k !== "$ref" && (!ROOT_KEYWORDS.has(k) || ["type", "properties", "required", "additionalProperties", "unevaluatedProperties", "minProperties", "maxProperties"].includes(k)));
      if (extra.length > 0) this.fail(pointerOf(at, extra[0]!), `a root "$ref" with the keyword "${extra[0]}" beside it constrains the arguments object twice, which one tag per argument cannot express exactly; move it into the referenced schema`, extra[0]);
      const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
      const defs = m ? (this.root as Record<string, unknown>)[m[1]!] : undefined;
      const name = m ? m[2]!.replace(/~1/g, "/").replace(/~0/g, "~") : "";
      if (!m || !isPlainObject(defs) || !Object.hasOwn(defs, name) || hops >= 32) {
        this.fail(pointerOf(at, "$ref"), `expected a root "$ref" to a definition of the root ("#/$defs/NAME" or "#/definitions/NAME"), found ${JSON.stringify(ref)}`, "$ref");
      }
      schema = defs[name] as JsonSchema;
      at = ref;
    }
    return { schema, at };
  }

  lower(): IrExpr {
    const { ctx } = this;
    const { schema: root, at } = this.argumentsSchema();
    if (root === false) return choice();
    if (root === true) return seq(repeat(this.additionalTag(true, [], at), 0, null), this.ws);
    if (!isPlainObject(root)) this.fail(at, "expected the arguments schema to be an object or a boolean");
    const type = root["type"];
    if (type !== undefined && !(type === "object" || (Array.isArray(type) && type.includes("object")))) {
      this.fail(pointerOf(at, "type"), `the arguments are written as named tags, so the schema must describe an object, found type ${JSON.stringify(type)}`, "type");
    }
    if (root["const"] !== undefined || root["enum"] !== undefined) return this.literals(root, at);
    for (const k of Object.keys(root)) {
      if (!ROOT_KEYWORDS.has(k)) {
        this.fail(pointerOf(at, k), `the root keyword "${k}" constrains the arguments object as a whole, which one tag per argument cannot express exactly; move the constraint into the arguments or use style "json"`, k);
      }
    }
    const properties = root["properties"] ?? {};
    if (!isPlainObject(properties)) this.fail(pointerOf(at, "properties"), "expected an object mapping argument names to schemas", "properties");
    const required = Array.isArray(root["required"]) ? (root["required"] as unknown[]).filter((r): r is string => typeof r === "string") : [];
    const names: { key: string; schema: JsonSchema; pointer: string }[] = Object.entries(properties).map(([key, s]) => ({
      key, schema: s as JsonSchema, pointer: pointerOf(at, "properties", key),
    }));
    for (const key of required) if (!names.some((n) => n.key === key)) names.push({ key, schema: true, pointer: pointerOf(at, "required") });
    const patterns = keyPatterns(root["patternProperties"], at);
    const tags: { tag: IrExpr; required: boolean }[] = [];
    const taken: string[] = [];
    for (const { key, schema: declared, pointer } of names) {
      const schema = underPatterns(declared, key, patterns);
      const written = encodeFlatKey(this.style, key);
      if (written === null) this.fail(pointer, `the argument name ${JSON.stringify(key)} cannot be written: it is empty, holds a control character or the name's end ${JSON.stringify(this.style.keyEnd)}`);
      taken.push(written);
      const isRequired = required.includes(key);
      const blocked = ctx.excludes.some((e) => written.includes(e)) || schema === false;
      if (blocked) {
        if (isRequired) return choice();
        continue;
      }
      const rule = `${this.style.name}_${key.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 24) || "arg"}`;
      if (ctx.anyOrder) {
        // The argument's mark rides on the end of its name, where the name is known (a free
        // name or a longer declared one may share the bytes before it).
        if (tags.length >= MAX_MARKS) this.fail(pointerOf(at, "properties"), `any_order: at most ${MAX_MARKS} declared arguments can be told apart in any order, found more`, "properties");
        const tail = this.argument(lit(this.style.keyEnd), schema, pointer, rule);
        tags.push({ tag: seq(this.ws, lit(this.style.keyOpen + written), mark(tags.length, tail)), required: isRequired });
      } else {
        tags.push({ tag: seq(this.ws, this.argument(lit(this.style.keyOpen + written + this.style.keyEnd), schema, pointer, rule)), required: isRequired });
      }
    }
    // Without applicators beside it, unevaluatedProperties at the root is additionalProperties.
    const additionalKey = root["additionalProperties"] === undefined && root["unevaluatedProperties"] !== undefined ? "unevaluatedProperties" : "additionalProperties";
    const additional = root[additionalKey];
    // xgrammar (strict) closes the arguments once `properties` or `required` is given, even
    // empty (a tool without arguments); JSON Schema leaves them open.
    const declares = Object.hasOwn(root, "properties") || Object.hasOwn(root, "required");
    const open = additional === undefined ? !declares || ctx.undeclared === "allow" : additional !== false;
    const extra = this.undeclaredTags(open ? (additional === undefined ? true : (additional as JsonSchema)) : false, additionalKey, patterns, taken, at);
    const min = this.count(root, at, "minProperties") ?? 0;
    const max = this.count(root, at, "maxProperties");
    if ((tags.length === 0 && extra === null) || max === 0) {
      // No argument can be written: the arguments are empty, without the whitespace that would
      // otherwise end them (xgrammar's rule: a model fond of indentation could loop there).
      if (min > 0) this.fail(pointerOf(at, "minProperties"), `minProperties ${min} asks for arguments, but the schema allows none`, "minProperties");
      if (tags.some((t) => t.required)) return choice();
      return seq();
    }
    if (ctx.anyOrder) return this.anyOrder(tags, extra, min, max, at);
    if (min === 0 && max === null) {
      const items = tags.map((t) => (t.required ? t.tag : repeat(t.tag, 0, 1)));
      if (extra) items.push(repeat(extra, 0, null));
      items.push(this.ws);
      return seq(...items);
    }
    return seq(this.counted(tags, extra, min, max), this.ws);
  }

  /**
   * One argument with an undeclared name: under `additional` (false: none) unless the name
   * matches patterns, then under theirs; one tag per set of patterns the names match. Null when
   * no undeclared argument can be written.
   */
  private undeclaredTags(additional: JsonSchema, additionalKey: string, patterns: KeyPattern[], taken: string[], at: string): IrExpr | null {
    if (patterns.length === 0) return additional === false ? null : this.additionalTag(additional, taken, pointerOf(at, additionalKey));
    const tags = keyRegions(patterns, additional !== false, at).map((r) => {
      const schema = regionSchema(r, additional);
      return this.additionalTag(schema, taken, r.patterns.length === 1 ? r.patterns[0]!.pointer : pointerOf(at, r.patterns.length === 0 ? additionalKey : "patternProperties"), r.names);
    });
    if (tags.length === 0) return null;
    return tags.length === 1 ? tags[0]! : choice(...tags);
  }

  /**
   * The arguments in any order: a loop over the declared tags (each a mark, so it comes at most
   * once and the required ones come) and the additional ones, the count of arguments between
   * `min` and `max` kept by the matcher. Marks and the count are checked apart, which is exact
   * unless required arguments could overflow a maxProperties: that case is refused.
   */
  private anyOrder(tags: { tag: IrExpr; required: boolean }[], extra: IrExpr | null, min: number, max: number | null, at: string): IrExpr {
    const required = tags.flatMap((t, i) => (t.required ? [i] : []));
    const counting = min > 0 || max !== null;
    if (counting && max !== null && required.length > 0) {
      this.fail(pointerOf(at, "maxProperties"), "any_order with maxProperties and required arguments cannot be kept exactly; give the arguments in declared order", "maxProperties");
    }
    const members = tags.map((t) => t.tag);
    if (extra !== null) members.push(extra);
    const member = members.length === 1 ? members[0]! : choice(...members);
    const loop = marks(repeat(counting ? unit(member) : member, 0, null), required);
    return seq(counting ? counted(loop, min, max) : loop, this.ws);
  }

  /**
   * A root `const` or `enum` of argument objects: each object is one fixed list of arguments, its
   * members in the order written, each value a `const` (as xgrammar reads it). A value that is no
   * object, or has a name that cannot be written or holds an excluded string, is no call.
   */
  private literals(root: Record<string, unknown>, at: string): IrExpr {
    const keyword = root["const"] !== undefined ? "const" : "enum";
    for (const k of Object.keys(root)) {
      if (k !== keyword && !LITERAL_COMPANIONS.has(k)) {
        this.fail(pointerOf(at, k), `the root keyword "${k}" beside "${keyword}" is not lowered: the ${keyword} fixes the arguments whole; move the constraint into the ${keyword} or use style "json"`, k);
      }
    }
    const listed = keyword === "const" ? [root["const"]] : root["enum"];
    if (!Array.isArray(listed)) this.fail(pointerOf(at, "enum"), `expected an array of values, found ${JSON.stringify(listed)}`, "enum");
    const alts: IrExpr[] = [];
    listed.forEach((value, i) => {
      if (!isPlainObject(value)) return;
      const pointer = keyword === "const" ? pointerOf(at, "const") : pointerOf(at, "enum", String(i));
      const items: IrExpr[] = [];
      for (const [key, member] of Object.entries(value)) {
        const written = encodeFlatKey(this.style, key);
        if (written === null || this.ctx.excludes.some((e) => written.includes(e))) return;
        const head = lit(this.style.keyOpen + written + this.style.keyEnd);
        items.push(this.ws, this.argument(head, { const: member } as JsonSchema, pointerOf(pointer, key), `${this.style.name}_literal`));
      }
      alts.push(seq(...items, this.ws));
    });
    return alts.length === 1 ? alts[0]! : choice(...alts);
  }

  private count(root: Record<string, unknown>, at: string, keyword: string): number | null {
    const v = root[keyword];
    if (v === undefined) return null;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) this.fail(pointerOf(at, keyword), `expected a non-negative integer, found ${JSON.stringify(v)}`, keyword);
    return v;
  }

  /**
   * The arguments with their number between `min` and `max`: a rule per (argument, arguments
   * written so far), the count kept in the rule (at most tags × (max + 1) rules), the additional
   * arguments last with the rest of the count.
   */
  private counted(tags: { tag: IrExpr; required: boolean }[], extra: IrExpr | null, min: number, max: number | null): IrExpr {
    const { b } = this.ctx;
    const rules = new Map<string, IrExpr>();
    const at = (i: number, n: number): IrExpr => {
      if (max !== null && n > max) return choice();
      if (i === tags.length) {
        const low = Math.max(0, min - n);
        if (extra === null) return low === 0 ? seq() : choice();
        return repeat(extra, low, max === null ? null : max - n);
      }
      const key = `${i}:${n}`;
      let r = rules.get(key);
      if (!r) {
        const name = b.freshName(`${this.style.name}_count`);
        r = b.ruleRef(name);
        rules.set(key, r);
        const t = tags[i]!;
        // Without a maximum, counts past the minimum need not be told apart.
        const take = seq(t.tag, at(i + 1, max === null ? Math.min(n + 1, min) : n + 1));
        b.define(name, t.required ? take : choice(take, at(i + 1, n)));
      }
      return r;
    };
    return at(0, 0);
  }
}

/** The grammar of a flat style's arguments for `format` (its `json_schema`, whitespace limit and excludes). */
export function lowerFlatStyle(style: FlatStyle, format: JsonSchemaFormat, ctx: StyleContext): IrExpr {
  return new FlatLowering(style, format.json_schema, ctx).lower();
}
