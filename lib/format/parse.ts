/**
 * Parsing and validation of structural tags: JSON text or plain objects in xgrammar's wire form
 * become a checked, normalized copy of the format tree. Every problem is a `FormatError` whose
 * `path` is the JSON path of the bad value and whose message says what was expected and what
 * was found.
 *
 * Normalization: fields come out in a fixed order (`type` first, then the order of the wire
 * format), tags inside `tags` lists always carry `"type": "tag"`, and fields whose value is
 * `undefined` count as absent (so `{...options}` spreads in code behave like omitted fields), as
 * do optional fields whose value is `null` (xgrammar's Python models write absent fields so).
 * Optional fields that are absent stay absent; defaults are not filled in.
 *
 * Also read, as xgrammar reads them (parse-compat.ts): a top level without `"type"`, the legacy
 * top level `{"structures": […], "triggers": […]}`, and format objects without `"type"`, whose
 * type is inferred from their fields.
 */
import { FormatError } from "../errors.js";
import {
  MAX_NESTING, describeValue, indexPath, isPlainObject, keyPath, loneSurrogateIndex, loneSurrogateMessage, showString,
} from "./json-path.js";
import { copyNumberText } from "./exact-numbers.js";
import { parseJsonText } from "./json-text.js";
import { inferFormatType, legacyTagsField, legacyToFormat } from "./parse-compat.js";
import { checkTokenLevel, checkUnlimitedTagEnd } from "./parse-checks.js";
import { sealedHeight } from "./sealed.js";
import { ARGUMENT_STYLES } from "./styles.js";
import type {
  AnyTextFormat, AnyTokensFormat, DispatchFormat, ExcludeTokenFormat, Format, FormatType, JsonSchema, JsonSchemaFormat,
  StructuralTag, TagFormat, TagsWithSeparatorFormat, TokenDispatchFormat, TokenFormat, TokenRef, TokenTriggeredTagsFormat,
  TriggeredTagsFormat,
} from "./types.js";

/** The fields each format type may have besides `type`, in wire order. */
const FIELDS: { readonly [T in FormatType]: readonly string[] } = {
  const_string: ["value"],
  json_schema: ["json_schema", "style", "any_order", "max_whitespace_cnt", "excludes"],
  grammar: ["grammar"],
  regex: ["pattern"],
  any_text: ["excludes", "max_tokens", "max_chars"],
  sequence: ["elements"],
  or: ["elements"],
  optional: ["content"],
  star: ["content"],
  plus: ["content"],
  repeat: ["min", "max", "content"],
  tag: ["begin", "content", "end"],
  triggered_tags: ["triggers", "tags", "excludes", "at_least_one", "stop_after_first"],
  tags_with_separator: ["tags", "separator", "at_least_one", "stop_after_first"],
  dispatch: ["rules", "loop", "excludes"],
  token: ["token"],
  exclude_token: ["exclude_tokens"],
  any_tokens: ["exclude_tokens", "max_tokens"],
  token_triggered_tags: ["trigger_tokens", "tags", "exclude_tokens", "at_least_one", "stop_after_first"],
  token_dispatch: ["rules", "loop", "exclude_tokens"],
};

/** The largest token id and token budget xgrammar takes (a 32-bit signed integer). */
const MAX_INT32 = 0x7fffffff;

/** Every format type name, in the order of the wire-format documentation. */
export const FORMAT_TYPES: readonly FormatType[] = Object.keys(FIELDS) as FormatType[];

const TYPE_LIST = FORMAT_TYPES.join(", ");

function fail(path: string, message: string): never {
  throw new FormatError(path, message);
}

function isFormatType(name: string): name is FormatType {
  return Object.hasOwn(FIELDS, name);
}

/** The own, defined value of `obj[name]`, or undefined. */
function field(obj: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(obj, name) ? obj[name] : undefined;
}

/** The own value of `obj[name]`, or undefined when absent, undefined or null. */
function optionalField(obj: Record<string, unknown>, name: string): unknown {
  const value = field(obj, name);
  return value === null ? undefined : value;
}

function readObject(value: unknown, path: string, expected: string): Record<string, unknown> {
  if (!isPlainObject(value)) fail(path, `expected ${expected}, found ${describeValue(value)}`);
  return value;
}

/** Rejects fields other than `type` and `allowed`; `what` names the node in the message. */
function rejectUnknownFields(obj: Record<string, unknown>, path: string, what: string, allowed: readonly string[]): void {
  for (const key of Object.keys(obj)) {
    if (key === "type" || obj[key] === undefined || allowed.includes(key)) continue;
    fail(keyPath(path, key), `unknown field ${showString(key)} in ${what}; expected only the fields ${["type", ...allowed].join(", ")}`);
  }
}

/** The fields of xgrammar's `parser_tag` (its Python output parser's capture annotation). */
const PARSER_TAG_FIELDS = ["capture_id", "combine"];

/**
 * Checks a format's or tag's `parser_tag` (absent, null, or `{capture_id, combine?}` with string
 * values). It tells xgrammar's output parser where to put a match and does not change what is
 * matched, so it is not kept: tagmask's output parsers are per family.
 */
function checkParserTag(obj: Record<string, unknown>, path: string): void {
  const tag = optionalField(obj, "parser_tag");
  if (tag === undefined) return;
  const at = keyPath(path, "parser_tag");
  const o = readObject(tag, at, "a parser tag {capture_id, combine?} or null");
  rejectUnknownFields(o, at, "a parser tag", PARSER_TAG_FIELDS);
  for (const name of PARSER_TAG_FIELDS) {
    const v = optionalField(o, name);
    if (v === undefined && name === "capture_id") fail(keyPath(at, name), "missing required field of a parser tag; expected a capture name");
    if (v !== undefined && typeof v !== "string") fail(keyPath(at, name), `expected a string, found ${describeValue(v)}`);
  }
}

/** {@link rejectUnknownFields} for a format or tag, which may also carry a `parser_tag` (checked, not kept). */
function rejectUnknownFormatFields(obj: Record<string, unknown>, path: string, what: string, known: readonly string[]): void {
  checkParserTag(obj, path);
  rejectUnknownFields(obj, path, what, [...known, "parser_tag"]);
}

function checkWellFormed(s: string, path: string): string {
  const at = loneSurrogateIndex(s);
  if (at >= 0) fail(path, loneSurrogateMessage(s, at));
  return s;
}

/** Reads the fields of one format node: type checks with paths, recursion into children. */
class NodeReader {
  constructor(
    private readonly obj: Record<string, unknown>,
    readonly path: string,
    private readonly what: string,
    private readonly depth: number,
  ) {}

  pathOf(name: string): string {
    return keyPath(this.path, name);
  }

  /** Whether an optional field is given (null counts as absent). */
  has(name: string): boolean {
    return optionalField(this.obj, name) !== undefined;
  }

  private required(name: string, expected: string): unknown {
    const value = field(this.obj, name);
    if (value === undefined) fail(this.pathOf(name), `missing required field of ${this.what}; expected ${expected}`);
    return value;
  }

  string(name: string, nonEmpty = false): string {
    return readString(this.required(name, nonEmpty ? "a non-empty string" : "a string"), this.pathOf(name), nonEmpty);
  }

  optString(name: string, nonEmpty = false): string | undefined {
    return this.has(name) ? this.string(name, nonEmpty) : undefined;
  }

  optBool(name: string): boolean | undefined {
    const value = optionalField(this.obj, name);
    if (value === undefined) return undefined;
    if (typeof value !== "boolean") fail(this.pathOf(name), `expected true or false, found ${describeValue(value)}`);
    return value;
  }

  integer(name: string, expected: string, ok: (n: number) => boolean): number {
    const value = this.required(name, expected);
    if (typeof value !== "number" || !Number.isSafeInteger(value) || !ok(value)) {
      fail(this.pathOf(name), `expected ${expected}, found ${describeValue(value)}`);
    }
    return value;
  }

  optCount(name: string): number | undefined {
    return this.has(name) ? this.integer(name, "a non-negative integer", (n) => n >= 0) : undefined;
  }

  /** A token or character budget: a non-negative integer up to 2^31-1 (xgrammar's bound). */
  optBudget(name: string): number | undefined {
    return this.has(name) ? this.integer(name, `a non-negative integer at most ${MAX_INT32}`, (n) => n >= 0 && n <= MAX_INT32) : undefined;
  }

  /** A token: a non-negative integer id or a non-empty token text. */
  tokenRef(name: string): TokenRef {
    return readTokenRef(this.required(name, "a token id or a token text"), this.pathOf(name));
  }

  /** A list of tokens; `nonEmptyList` forbids `[]`. */
  tokenRefs(name: string, nonEmptyList: boolean): TokenRef[] {
    const expected = `a ${nonEmptyList ? "non-empty " : ""}list of token ids and token texts`;
    const value = this.required(name, expected);
    const path = this.pathOf(name);
    if (!Array.isArray(value) || (nonEmptyList && value.length === 0)) fail(path, `expected ${expected}, found ${describeValue(value)}`);
    return value.map((item: unknown, i) => readTokenRef(item, indexPath(path, i)));
  }

  optTokenRefs(name: string): TokenRef[] | undefined {
    return this.has(name) ? this.tokenRefs(name, false) : undefined;
  }

  /** `[key, format]` pairs of a dispatch; `key` reads the first element. */
  rules<K>(name: string, key: (value: unknown, path: string) => K): Array<[K, Format]> {
    const expected = "a non-empty list of [pattern, format] pairs";
    const value = this.required(name, expected);
    const path = this.pathOf(name);
    if (!Array.isArray(value) || value.length === 0) fail(path, `expected ${expected}, found ${describeValue(value)}`);
    return value.map((pair: unknown, i): [K, Format] => {
      const at = indexPath(path, i);
      if (!Array.isArray(pair) || pair.length !== 2) fail(at, `expected a [pattern, format] pair (an array of two), found ${describeValue(pair)}${Array.isArray(pair) ? ` of ${pair.length}` : ""}`);
      return [key(pair[0], indexPath(at, 0)), readFormat(pair[1], indexPath(at, 1), this.depth + 1)];
    });
  }

  /** A list of strings; `nonEmptyList` forbids `[]`, and list items are never empty strings. */
  stringList(name: string, nonEmptyList: boolean): string[] {
    const expected = nonEmptyList ? "a non-empty list of non-empty strings" : "a list of non-empty strings";
    const value = this.required(name, expected);
    const path = this.pathOf(name);
    if (!Array.isArray(value) || (nonEmptyList && value.length === 0)) fail(path, `expected ${expected}, found ${describeValue(value)}`);
    return value.map((item: unknown, i) => readString(item, indexPath(path, i), true));
  }

  optStringList(name: string): string[] | undefined {
    return this.has(name) ? this.stringList(name, false) : undefined;
  }

  /** `begin` of a tag: a string or a token object. */
  begin(name: string): string | TokenFormat {
    const value = this.required(name, 'a string or a token {"type": "token", "token": …}');
    const path = this.pathOf(name);
    if (isPlainObject(value)) return readTokenObject(value, path);
    if (typeof value !== "string") fail(path, `expected a string or a token {"type": "token", "token": …}, found ${describeValue(value)}`);
    return checkWellFormed(value, path);
  }

  /** `end` of a tag: one string, a non-empty list of strings (any of which ends the tag), or a token object. */
  end(name: string): string | string[] | TokenFormat {
    const expected = 'a string, a non-empty list of strings or a token {"type": "token", "token": …}';
    const value = this.required(name, expected);
    const path = this.pathOf(name);
    if (typeof value === "string") return checkWellFormed(value, path);
    if (isPlainObject(value)) return readTokenObject(value, path);
    if (!Array.isArray(value) || value.length === 0) fail(path, `expected ${expected}, found ${describeValue(value)}`);
    return value.map((item: unknown, i) => readString(item, indexPath(path, i), false));
  }

  format(name: string): Format {
    return readFormat(this.required(name, "a format object"), this.pathOf(name), this.depth + 1);
  }

  formats(name: string): Format[] {
    const value = this.required(name, "a non-empty list of formats");
    const path = this.pathOf(name);
    if (!Array.isArray(value) || value.length === 0) fail(path, `expected a non-empty list of formats, found ${describeValue(value)}`);
    return value.map((item: unknown, i) => readFormat(item, indexPath(path, i), this.depth + 1));
  }

  tags(name: string): TagFormat[] {
    const value = this.required(name, "a non-empty list of tags");
    const path = this.pathOf(name);
    if (!Array.isArray(value) || value.length === 0) fail(path, `expected a non-empty list of tags, found ${describeValue(value)}`);
    return value.map((item: unknown, i) => readTag(item, indexPath(path, i), this.depth + 1, true));
  }

  schema(name: string): JsonSchema {
    const expected = "a JSON Schema (an object or a boolean)";
    const value = this.required(name, expected);
    const path = this.pathOf(name);
    if (typeof value !== "boolean" && !isPlainObject(value)) fail(path, `expected ${expected}, found ${describeValue(value)}`);
    return copyJson(value, path, this.depth + 1) as JsonSchema;
  }
}

/** A token id (a non-negative integer below 2^31) or a non-empty token text. */
function readTokenRef(value: unknown, path: string): TokenRef {
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0 || value > MAX_INT32) fail(path, `expected a token id (an integer from 0 to ${MAX_INT32}) or a token text, found ${describeValue(value)}`);
    return value;
  }
  if (typeof value !== "string" || value === "") fail(path, `expected a token id (an integer from 0 to ${MAX_INT32}) or a non-empty token text, found ${describeValue(value)}`);
  return checkWellFormed(value, path);
}

/** `{"type": "token", "token": …}` in a tag's begin or end (the type may be left out, as xgrammar allows). */
function readTokenObject(obj: Record<string, unknown>, path: string): TokenFormat {
  const type = optionalField(obj, "type");
  if (type !== undefined && type !== "token") fail(keyPath(path, "type"), `expected "token" (a tag's begin or end is a string or a token), found ${describeValue(type)}`);
  rejectUnknownFields(obj, path, "a token", FIELDS.token);
  return { type: "token", token: new NodeReader(obj, path, "a token", 0).tokenRef("token") };
}

function readString(value: unknown, path: string, nonEmpty: boolean): string {
  if (typeof value !== "string" || (nonEmpty && value === "")) {
    fail(path, `expected ${nonEmpty ? "a non-empty string" : "a string"}, found ${describeValue(value)}`);
  }
  return checkWellFormed(value, path);
}

/**
 * A deep copy of a JSON value (a schema), checked to be plain JSON: finite numbers, well-formed
 * strings and keys, no `undefined` in arrays, no class instances. Object properties whose value
 * is `undefined` are dropped, as `JSON.stringify` would.
 */
function copyJson(value: unknown, path: string, depth: number): unknown {
  if (depth > MAX_NESTING) fail(path, `expected values nested at most ${MAX_NESTING} levels deep (is there a cycle?)`);
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "string") return checkWellFormed(value, path);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) fail(path, `expected a finite number, found ${describeValue(value)}`);
    return value;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === undefined) fail(indexPath(path, i), "expected a JSON value, found undefined");
      out.push(copyJson(item, indexPath(path, i), depth + 1));
      if (typeof item === "number") copyNumberText(value, i, out, i);
    }
    return out;
  }
  if (!isPlainObject(value)) fail(path, `expected a JSON value, found ${describeValue(value)}`);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (child === undefined) continue;
    const childPath = keyPath(path, key);
    checkWellFormed(key, childPath);
    // defineProperty, so that a property named "__proto__" stays a property.
    Object.defineProperty(out, key, { value: copyJson(child, childPath, depth + 1), enumerable: true, writable: true, configurable: true });
    if (typeof child === "number") copyNumberText(value, key, out, key);
  }
  return out;
}

function readTag(value: unknown, path: string, depth: number, inList: boolean): TagFormat {
  const sealed = sealedHeight(value);
  if (sealed !== undefined && depth + sealed <= MAX_NESTING && (value as Format).type === "tag") return value as TagFormat;
  if (depth > MAX_NESTING) fail(path, `expected formats nested at most ${MAX_NESTING} levels deep (is there a cycle?)`);
  const obj = readObject(value, path, "a tag object");
  const type = optionalField(obj, "type");
  if (inList && type !== undefined && type !== "tag") {
    fail(keyPath(path, "type"), `expected "tag" (an entry of tags may also leave out its type), found ${describeValue(type)}`);
  }
  rejectUnknownFormatFields(obj, path, "a tag", FIELDS.tag);
  const r = new NodeReader(obj, path, "a tag", depth);
  const tag: TagFormat = { type: "tag", begin: r.begin("begin"), content: r.format("content"), end: r.end("end") };
  checkUnlimitedTagEnd(tag, path);
  return tag;
}

function readFormat(value: unknown, path: string, depth: number): Format {
  // A tree the builders sealed is checked and normalized already, and cannot have changed.
  const sealed = sealedHeight(value);
  if (sealed !== undefined && depth + sealed <= MAX_NESTING) return value as Format;
  if (depth > MAX_NESTING) fail(path, `expected formats nested at most ${MAX_NESTING} levels deep (is there a cycle?)`);
  const obj = readObject(value, path, "a format object");
  const type = field(obj, "type") ?? inferFormatType(obj);
  const typePath = keyPath(path, "type");
  if (type === undefined) {
    fail(typePath, `missing required field of a format; expected a format type (one of ${TYPE_LIST}); without a type, a format is read by its fields only when they are those of a tag, const_string, json_schema, dispatch, triggered_tags, tags_with_separator, sequence, any_text, repeat or optional`);
  }
  if (typeof type !== "string") fail(typePath, `expected a format type name (one of ${TYPE_LIST}), found ${describeValue(type)}`);
  if (type === "structural_tag") {
    fail(typePath, `expected a format type (one of ${TYPE_LIST}), found "structural_tag": structural tags do not nest; put the inner tag's "format" here`);
  }
  if (type === LEGACY_QWEN_XML_PARAMETER) return readLegacyQwenXmlParameter(obj, path, depth);
  if (!isFormatType(type)) fail(typePath, `unknown format type ${showString(type)}; expected one of ${TYPE_LIST}`);
  if (type === "tag") return readTag(obj, path, depth, false);
  const what = `a ${type} format`;
  rejectUnknownFormatFields(obj, path, what, FIELDS[type]);
  const r = new NodeReader(obj, path, what, depth);
  switch (type) {
    case "const_string":
      return { type, value: r.string("value") };
    case "json_schema": {
      const out: JsonSchemaFormat = { type, json_schema: r.schema("json_schema") };
      const style = r.optString("style", true);
      if (style !== undefined) {
        if (!(ARGUMENT_STYLES as readonly string[]).includes(style)) {
          fail(r.pathOf("style"), `unknown argument style ${showString(style)}; expected one of ${ARGUMENT_STYLES.join(", ")}`);
        }
        out.style = style;
      }
      const anyOrder = r.optBool("any_order");
      if (anyOrder !== undefined) out.any_order = anyOrder;
      const maxWs = r.optCount("max_whitespace_cnt");
      if (maxWs !== undefined) out.max_whitespace_cnt = maxWs;
      const excludes = r.optStringList("excludes");
      if (excludes !== undefined) out.excludes = excludes;
      return out;
    }
    case "grammar":
      return { type, grammar: r.string("grammar", true) };
    case "regex":
      return { type, pattern: r.string("pattern", true) };
    case "any_text": {
      const out: AnyTextFormat = { type };
      const excludes = r.optStringList("excludes");
      if (excludes !== undefined) out.excludes = excludes;
      const maxTokens = r.optBudget("max_tokens");
      if (maxTokens !== undefined) out.max_tokens = maxTokens;
      const maxChars = r.optBudget("max_chars");
      if (maxChars !== undefined) out.max_chars = maxChars;
      return out;
    }
    case "sequence":
    case "or":
      return { type, elements: r.formats("elements") };
    case "optional":
    case "star":
    case "plus":
      return { type, content: r.format("content") };
    case "repeat": {
      const min = r.integer("min", `a non-negative integer at most ${MAX_INT32}`, (n) => n >= 0 && n <= MAX_INT32);
      const max = r.integer("max", `-1 (unbounded) or an integer at least min (${min})`, (n) => n === -1 || n >= min);
      // As in xgrammar, a maximum beyond 2^31-1 is no bound at all.
      return { type, min, max: max > MAX_INT32 ? -1 : max, content: r.format("content") };
    }
    case "triggered_tags": {
      const triggers = r.stringList("triggers", true);
      const tags = r.tags("tags");
      tags.forEach((t, i) => {
        if (typeof t.begin !== "string") fail(keyPath(indexPath(r.pathOf("tags"), i), "begin"), "expected a string: the tags of triggered_tags begin with text (for a token begin use token_triggered_tags)");
      });
      checkTriggers(triggers, tags.map((t) => t.begin as string), r.path);
      const out: TriggeredTagsFormat = { type, triggers, tags };
      const excludes = r.optStringList("excludes");
      if (excludes !== undefined) out.excludes = excludes;
      copyFlags(r, out);
      return out;
    }
    case "tags_with_separator": {
      const out: TagsWithSeparatorFormat = { type, tags: r.tags("tags"), separator: r.string("separator") };
      copyFlags(r, out);
      return out;
    }
    case "dispatch": {
      const out: DispatchFormat = { type, rules: r.rules("rules", (v, at) => readString(v, at, true)) };
      const loop = r.optBool("loop");
      if (loop !== undefined) out.loop = loop;
      const excludes = r.optStringList("excludes");
      if (excludes !== undefined) out.excludes = excludes;
      checkTokenLevel(out, r.path);
      return out;
    }
    case "token":
      return { type, token: r.tokenRef("token") };
    case "exclude_token": {
      const out: ExcludeTokenFormat = { type };
      const excludes = r.optTokenRefs("exclude_tokens");
      if (excludes !== undefined) out.exclude_tokens = excludes;
      return out;
    }
    case "any_tokens": {
      const out: AnyTokensFormat = { type };
      const excludes = r.optTokenRefs("exclude_tokens");
      if (excludes !== undefined) out.exclude_tokens = excludes;
      const maxTokens = r.optBudget("max_tokens");
      if (maxTokens !== undefined) out.max_tokens = maxTokens;
      return out;
    }
    case "token_triggered_tags": {
      const out: TokenTriggeredTagsFormat = { type, trigger_tokens: r.tokenRefs("trigger_tokens", true), tags: r.tags("tags") };
      const excludes = r.optTokenRefs("exclude_tokens");
      if (excludes !== undefined) out.exclude_tokens = excludes;
      copyFlags(r, out);
      checkTokenLevel(out, r.path);
      return out;
    }
    case "token_dispatch": {
      const out: TokenDispatchFormat = { type, rules: r.rules("rules", readTokenRef) };
      const loop = r.optBool("loop");
      if (loop !== undefined) out.loop = loop;
      const excludes = r.optTokenRefs("exclude_tokens");
      if (excludes !== undefined) out.exclude_tokens = excludes;
      checkTokenLevel(out, r.path);
      return out;
    }
  }
}

/** xgrammar's deprecated `qwen_xml_parameter{json_schema}`: a `json_schema` with style `qwen_xml`. */
const LEGACY_QWEN_XML_PARAMETER = "qwen_xml_parameter";

function readLegacyQwenXmlParameter(obj: Record<string, unknown>, path: string, depth: number): JsonSchemaFormat {
  rejectUnknownFormatFields(obj, path, "a qwen_xml_parameter format", ["json_schema"]);
  const r = new NodeReader(obj, path, "a qwen_xml_parameter format", depth);
  return { type: "json_schema", json_schema: r.schema("json_schema"), style: "qwen_xml" };
}

function copyFlags(r: NodeReader, out: { at_least_one?: boolean; stop_after_first?: boolean }): void {
  const atLeastOne = r.optBool("at_least_one");
  if (atLeastOne !== undefined) out.at_least_one = atLeastOne;
  const stopAfterFirst = r.optBool("stop_after_first");
  if (stopAfterFirst !== undefined) out.stop_after_first = stopAfterFirst;
}

function showList(items: readonly string[]): string {
  const shown = items.slice(0, 5).map(showString);
  if (items.length > 5) shown.push(`… ${items.length - 5} more`);
  return `[${shown.join(", ")}]`;
}

/**
 * Each trigger begins at least one tag, and each tag's begin starts with exactly one trigger (as
 * xgrammar requires: the trigger decides which tags may follow).
 */
function checkTriggers(triggers: readonly string[], begins: readonly string[], path: string): void {
  triggers.forEach((trigger, i) => {
    if (!begins.some((b) => b.startsWith(trigger))) {
      fail(indexPath(keyPath(path, "triggers"), i), `expected a prefix of at least one tag's begin ${showList(begins)}, found ${showString(trigger)}`);
    }
  });
  begins.forEach((begin, j) => {
    const matching = triggers.filter((t) => begin.startsWith(t));
    if (matching.length === 0) {
      fail(keyPath(indexPath(keyPath(path, "tags"), j), "begin"), `expected a begin that starts with one of the triggers ${showList(triggers)}, found ${showString(begin)}`);
    }
    if (matching.length > 1) {
      fail(keyPath(indexPath(keyPath(path, "tags"), j), "begin"), `expected a begin that starts with exactly one trigger, found ${showString(begin)}, which starts with ${showList(matching)}; make the triggers prefix-free`);
    }
  });
}

/**
 * Checks and normalizes one format node and everything below it. `input` is a plain object (for
 * JSON text use {@link parseStructuralTag}); `path` names it in error messages. Trees made by the
 * builders (`formats.*`) are checked and frozen already: they are returned as they are.
 * @throws FormatError naming the JSON path of the first problem.
 */
export function parseFormat(input: unknown, path = "format"): Format {
  return readFormat(input, path, 0);
}

/**
 * Whether a plain object is a structural tag's top level rather than a bare format: its type is
 * "structural_tag", or it has no type and holds `format` or the legacy `structures`/`triggers`
 * (xgrammar reads all three as structural tags).
 */
export function isStructuralTagObject(input: unknown): boolean {
  if (!isPlainObject(input)) return false;
  const type = optionalField(input, "type");
  if (type !== undefined) return type === "structural_tag";
  return Object.hasOwn(input, "format") || legacyTagsField(input) !== undefined;
}

/**
 * Parses a structural tag, `{"type": "structural_tag", "format": …}`, from JSON text or from an
 * already parsed object, and returns a checked, normalized copy. As in xgrammar, the top-level
 * `type` may be left out, and the legacy form `{"type": "structural_tag", "structures":
 * [{"begin", "schema", "end"}], "triggers": […]}` (or `"tags"` for `"structures"`) is read as
 * the `triggered_tags` of JSON Schema tags it stands for.
 * @throws FormatError naming the JSON path (and, for JSON text, the line and column) of the
 *   first problem.
 */
export function parseStructuralTag(input: string | unknown): StructuralTag {
  const value = typeof input === "string" ? parseJsonText(input) : input;
  const obj = readObject(value, "", 'a structural tag object {"type": "structural_tag", "format": …}');
  const type = optionalField(obj, "type");
  if (type !== undefined && type !== "structural_tag") {
    const hint = typeof type === "string" && isFormatType(type)
      ? ': this is a bare format; wrap it as {"type": "structural_tag", "format": …} or read it with parseFormat'
      : "";
    fail("type", `expected "structural_tag" (or no type), found ${describeValue(type)}${hint}`);
  }
  const legacy = legacyTagsField(obj);
  if (legacy !== undefined && !Object.hasOwn(obj, "format")) return { type: "structural_tag", format: readFormat(legacyToFormat(obj, legacy), "", 1) };
  rejectUnknownFields(obj, "", "a structural tag", ["format"]);
  const format = field(obj, "format");
  if (format === undefined) fail("format", 'missing required field of a structural tag; expected a format object (or the legacy fields "structures" and "triggers")');
  return { type: "structural_tag", format: readFormat(format, "format", 1) };
}
