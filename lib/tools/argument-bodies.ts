/**
 * Reading the arguments of the markup styles (json_schema.style) back into an object: the text
 * between a call's header and its closing marker, read whole (the grammar keeps the closing
 * marker out of every value). Raw values are decoded as lib/compile/styles defines: by the
 * value's tag where the style writes one, else by the kinds of value the argument's schema
 * allows (from the request's tools; without them every kind), with the same rule the grammar
 * was built with. Errors are OutputParseErrors at offsets in the whole output.
 */
import {
  ArgumentSchemas, COHERE, KINDS, MINIMAX_M3, decodeRawString, keyPatterns, matchesPattern, readsAsOther, underPatterns,
  type FlatStyle, type KeyPattern, type Kind, type ValueKinds,
} from "../compile/styles/index.js";
import { OutputParseError } from "../errors.js";
import { isPlainObject } from "../format/json-path.js";
import type { JsonSchema } from "../format/types.js";
import { JsonScanner, JsonSyntaxError } from "./json-scanner.js";

const ALL_KINDS: ValueKinds = { string: true, number: true, boolean: true, null: true, object: true, array: true };

/** The kinds of value each argument of one tool allows. */
export class ArgumentKinds {
  private readonly schemas: ArgumentSchemas | null;
  private readonly patterns = new WeakMap<object, KeyPattern[] | null>();

  constructor(private readonly parameters: JsonSchema | null) {
    this.schemas = parameters === null ? null : new ArgumentSchemas(parameters, "parameters");
  }

  /**
   * The schema of the argument `key` (a declared property, else additionalProperties, with the
   * patternProperties its name matches), or null when unknown: the schema the grammar gave it.
   */
  schemaOf(key: string, within: JsonSchema | null = this.parameters): JsonSchema | null {
    if (within === null || typeof within === "boolean") return within === false ? false : null;
    const patterns = this.patternsOf(within);
    if (patterns === null) return null;
    const props = within["properties"];
    if (isPlainObject(props) && Object.hasOwn(props, key)) return underPatterns(props[key] as JsonSchema, key, patterns);
    if (matchesPattern(key, patterns)) return underPatterns(true, key, patterns);
    const extra = within["additionalProperties"];
    return extra === undefined ? null : (extra as JsonSchema);
  }

  /** The patterns of an object schema's patternProperties (compiled once); null when one cannot be read. */
  private patternsOf(within: { readonly [key: string]: unknown }): KeyPattern[] | null {
    let patterns = this.patterns.get(within);
    if (patterns === undefined) {
      try {
        patterns = keyPatterns(within["patternProperties"], "#");
      } catch {
        patterns = null;
      }
      this.patterns.set(within, patterns);
    }
    return patterns;
  }

  kinds(schema: JsonSchema | null): ValueKinds {
    if (schema === null || this.schemas === null) return ALL_KINDS;
    try {
      return this.schemas.kinds(schema, "#");
    } catch {
      return ALL_KINDS;
    }
  }
}

function isWs(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

function trimWs(s: string): { text: string; lead: number } {
  let a = 0;
  let b = s.length;
  while (a < b && isWs(s[a])) a++;
  while (b > a && isWs(s[b - 1])) b--;
  return { text: s.slice(a, b), lead: a };
}

function typeName(v: unknown): Kind {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "object";
  }
}

/** Sets an own property, so a key named `__proto__` is an ordinary key. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A cursor over one body with offsets into the whole output. */
class Body {
  pos = 0;
  constructor(readonly text: string, readonly base: number) {}

  fail(expected: string, at = this.pos): never {
    const found = at >= this.text.length ? "the end of the arguments" : JSON.stringify(String.fromCodePoint(this.text.codePointAt(at)!));
    throw new OutputParseError(this.base + at, expected, found);
  }

  skipWs(): void {
    while (isWs(this.text[this.pos])) this.pos++;
  }

  /** Reads `lit` (a `\n` in it stands for optional whitespace). */
  expect(lit: string): void {
    lit.split("\n").forEach((part, i) => {
      if (i > 0) this.skipWs();
      if (!this.text.startsWith(part, this.pos)) this.fail(JSON.stringify(part));
      this.pos += part.length;
    });
  }

  /** The text up to `end` (consumed), failing if it never comes. */
  until(end: string, what: string): { text: string; at: number } {
    const at = this.pos;
    const i = this.text.indexOf(end, at);
    if (i < 0) this.fail(`${JSON.stringify(end)} to end ${what}`, this.text.length);
    this.pos = i + end.length;
    return { text: this.text.slice(at, i), at };
  }

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  /** A JSON value here (its text, whitespace around included): its strings may hold any marker text. */
  json(what: string): { text: string; at: number } {
    const at = this.pos;
    const scanner = new JsonScanner();
    for (; this.pos < this.text.length; this.pos++) {
      let inValue: boolean;
      try {
        inValue = scanner.feed(this.text[this.pos]!);
      } catch (err) {
        if (err instanceof JsonSyntaxError) this.fail(`${err.expected} (${what})`);
        throw err;
      }
      if (!inValue) break;
    }
    if (this.pos >= this.text.length) {
      try {
        scanner.end();
      } catch (err) {
        if (err instanceof JsonSyntaxError) this.fail(`${err.expected} (${what})`);
        throw err;
      }
    }
    return { text: this.text.slice(at, this.pos), at };
  }
}

/** A JSON value written between markers: parsed, checked to be of one of `kinds`. */
function jsonValue(body: Body, raw: string, at: number, kinds: readonly Kind[], what: string): unknown {
  const { text, lead } = trimWs(raw);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    body.fail(`a JSON value (${what})`, at + lead);
  }
  if (!kinds.includes(typeName(value))) body.fail(`a JSON ${kinds.join(" or ")} (${what})`, at + lead);
  return value;
}

/** A raw value of an untagged style decoded by the kinds its schema allows. */
function untaggedValue(body: Body, style: { stripNewlines: boolean } | null, raw: string, at: number, kinds: ValueKinds, what: string): unknown {
  const others = { number: kinds.number, boolean: kinds.boolean, null: kinds.null, object: kinds.object, array: kinds.array };
  if (readsAsOther(raw, others)) return jsonValue(body, raw, at, KINDS.filter((k) => k !== "string" && kinds[k]), what);
  if (kinds.string) return style ? decodeRawString(style as FlatStyle, raw) : raw;
  return jsonValue(body, raw, at, KINDS.filter((k) => kinds[k]), what);
}

function decodeAttribute(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** The arguments of a flat style (`<parameter=K>V</parameter>` …), one [key, value] per tag. */
export function readFlatArguments(style: FlatStyle, text: string, base: number, schemas: ArgumentKinds): Array<[string, unknown]> {
  const body = new Body(text, base);
  const out: Array<[string, unknown]> = [];
  for (;;) {
    body.skipWs();
    if (body.atEnd()) return out;
    body.expect(style.keyOpen);
    const keyAt = body.pos;
    const rawKey = body.until(style.keyEnd, "the argument name").text;
    if (rawKey === "") body.fail("a non-empty argument name", keyAt);
    const key = style.escapesKeys ? decodeAttribute(rawKey) : rawKey;
    let tag: string | undefined;
    if (style.tagging !== "untagged") {
      const tags = style.tagging === "string-flag" ? ["true", "false"] : [...KINDS];
      const found = tags.find((t) => body.text.startsWith(t, body.pos));
      if (found === undefined) return body.fail(tags.map((t) => JSON.stringify(t)).join(" or "));
      tag = found;
      body.pos += found.length;
    }
    body.expect(style.valueOpen);
    const what = `the value of ${JSON.stringify(key)}`;
    const kinds = tag === undefined ? schemas.kinds(schemas.schemaOf(key)) : undefined;
    let p = body.pos;
    while (isWs(body.text[p])) p++;
    const opener = body.text[p];
    const structured = tag === "false" || tag === "object" || tag === "array" || (kinds !== undefined && (opener === "{" ? kinds.object : opener === "[" ? kinds.array : false));
    if (structured && (opener === "{" || opener === "[")) {
      // An object or array is JSON, whose strings may hold the closing marker: scan it.
      const { text: raw, at } = body.json(what);
      body.expect(style.close);
      const allowed: Kind[] = tag === "object" || tag === "array" ? [tag] : ["object", "array"];
      out.push([key, jsonValue(body, raw, at, allowed, what)]);
      continue;
    }
    const { text: raw, at } = body.until(style.close, what);
    let value: unknown;
    if (tag === "true" || tag === "string") value = raw;
    else if (tag === "false") value = jsonValue(body, raw, at, ["number", "boolean", "null", "object", "array"], what);
    else if (tag !== undefined) value = jsonValue(body, raw, at, [tag as Kind], `${what}, whose type is ${tag}`);
    else value = untaggedValue(body, style, raw, at, kinds!, what);
    out.push([key, value]);
  }
}

/** Cohere's nested values: the named values of the top-level dict. */
export function readCohereArguments(text: string, base: number): Array<[string, unknown]> {
  const body = new Body(text, base);
  const readValue = (named: boolean): { name: string | undefined; value: unknown } => {
    body.expect(COHERE.open);
    let name: string | undefined;
    if (named) {
      body.expect(COHERE.name);
      name = decodeAttribute(body.until('"', "the value's name").text);
    }
    body.expect(COHERE.type);
    const type: string | undefined = COHERE.types.find((t) => body.text.startsWith(`${t}${COHERE.headerEnd}`, body.pos));
    if (type === undefined) return body.fail(COHERE.types.map((t) => JSON.stringify(t)).join(" or "));
    body.pos += type.length + COHERE.headerEnd.length;
    const what = name === undefined ? "a list item" : `the value of ${JSON.stringify(name)}`;
    switch (type) {
      case "raw":
        return { name, value: body.until(COHERE.close, what).text };
      case "json": {
        const { text: raw, at } = body.until(COHERE.close, what);
        return { name, value: jsonValue(body, raw, at, ["number", "boolean", "null"], what) };
      }
      case "dict": {
        const obj: Record<string, unknown> = {};
        for (const [k, v] of readAll(true)) setOwn(obj, k!, v);
        return { name, value: obj };
      }
      default:
        return { name, value: readAll(false).map(([, v]) => v) };
    }
  };
  /** Values up to the enclosing close marker (consumed), or to the end at the top. */
  const readAll = (named: boolean, top = false): Array<[string | undefined, unknown]> => {
    const out: Array<[string | undefined, unknown]> = [];
    for (;;) {
      body.skipWs();
      if (top && body.atEnd()) return out;
      if (!top && body.text.startsWith(COHERE.close, body.pos)) {
        body.pos += COHERE.close.length;
        return out;
      }
      const { name, value } = readValue(named);
      out.push([name, value]);
    }
  };
  return readAll(true, true).map(([k, v]) => [k!, v]);
}

/** MiniMax M3's nested elements: the named elements of the top level, decoded with the schema where known. */
export function readMiniMaxM3Arguments(text: string, base: number, schemas: ArgumentKinds): Array<[string, unknown]> {
  const body = new Body(text, base);
  const ns = MINIMAX_M3.ns;
  const peekName = (): string => {
    let p = body.pos;
    while (isWs(body.text[p])) p++;
    const from = p + ns.length + 1;
    const end = body.text.indexOf(">", from);
    return end < 0 ? "" : body.text.slice(from, end);
  };
  const element = (schema: JsonSchema | null): [string, unknown] => {
    body.expect(`${ns}<`);
    const name = body.until(">", "the element name").text;
    const close = `${ns}</${name}>`;
    const start = body.pos;
    const kinds = schemas.kinds(schema);
    const what = `the value of ${JSON.stringify(name)}`;
    let p = start;
    while (isWs(body.text[p])) p++;
    const nested = (kinds.object || kinds.array) && body.text.startsWith(`${ns}<`, p) && !body.text.startsWith(close, p);
    if (nested || ((kinds.object || kinds.array) && !kinds.string && body.text.startsWith(close, p))) {
      const isArray = kinds.array && !kinds.object;
      const items: Array<[string, unknown]> = [];
      for (;;) {
        body.skipWs();
        if (body.text.startsWith(close, body.pos)) break;
        if (body.atEnd()) body.fail(JSON.stringify(close));
        const child = schema === null || typeof schema === "boolean" ? null
          : isArray ? ((schema["items"] ?? null) as JsonSchema | null) : schemas.schemaOf(peekName(), schema);
        items.push(element(child));
      }
      body.pos += close.length;
      if (isArray) return [name, items.map(([, v]) => v)];
      const obj: Record<string, unknown> = {};
      for (const [k, v] of items) setOwn(obj, k, v);
      return [name, obj];
    }
    const { text: raw, at } = body.until(close, what);
    return [name, untaggedValue(body, null, raw, at, { ...kinds, object: false, array: false }, what)];
  };
  const out: Array<[string, unknown]> = [];
  for (;;) {
    body.skipWs();
    if (body.atEnd()) return out;
    out.push(element(schemas.schemaOf(peekName())));
  }
}
