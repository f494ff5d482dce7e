/**
 * The parts of the structural-tag reader that exist for xgrammar compatibility: which format a
 * typeless format object is (xgrammar tries its format parsers in a fixed order), and the legacy
 * top level `{"structures": [{begin, schema, end}], "triggers": […]}` (also `"tags"` for
 * `"structures"`), which stands for a `triggered_tags` of JSON Schema tags.
 *
 * Both produce plain objects for the strict reader in parse.ts; nothing here is trusted further.
 */
import { FormatError } from "../errors.js";
import { describeValue, indexPath, isPlainObject, keyPath } from "./json-path.js";
import { parseJsonText } from "./json-text.js";
import type { FormatType } from "./types.js";

function fail(path: string, message: string): never {
  throw new FormatError(path, message);
}

function present(obj: Record<string, unknown>, name: string): boolean {
  return Object.hasOwn(obj, name) && obj[name] !== undefined && obj[name] !== null;
}

/**
 * The type of a format object written without `type`, as xgrammar reads it: a tag (begin,
 * content, end), const_string (value), json_schema, dispatch or token_dispatch (rules: token
 * dispatch when a rule starts with a token id), triggered_tags (triggers), tags_with_separator
 * (tags and separator), sequence (elements), any_text (excludes), repeat (content with min and
 * max), optional (content). Undefined when none fits: xgrammar infers no other type either
 * (`token`, `regex`, `grammar`, … need their type).
 */
export function inferFormatType(obj: Record<string, unknown>): FormatType | undefined {
  const has = (name: string) => present(obj, name);
  if (has("begin") && has("content") && has("end")) return "tag";
  if (has("value")) return "const_string";
  if (has("json_schema")) return "json_schema";
  if (has("rules")) {
    const rules = obj.rules;
    const tokenRule = Array.isArray(rules) && rules.some((r) => Array.isArray(r) && typeof r[0] === "number");
    return tokenRule ? "token_dispatch" : "dispatch";
  }
  if (has("triggers")) return "triggered_tags";
  if (has("tags") && has("separator")) return "tags_with_separator";
  if (has("elements")) return "sequence";
  if (has("excludes")) return "any_text";
  if (has("content")) return has("min") || has("max") ? "repeat" : "optional";
  return undefined;
}

/** The field of the legacy form that holds its tags, or undefined when `obj` is not legacy. */
export function legacyTagsField(obj: Record<string, unknown>): "structures" | "tags" | undefined {
  if (present(obj, "structures")) return "structures";
  if (present(obj, "tags") && present(obj, "triggers")) return "tags";
  return undefined;
}

const LEGACY_FIELDS = ["type", "structures", "tags", "triggers"];

function legacyString(item: Record<string, unknown>, name: string, path: string): string {
  const value = item[name];
  if (typeof value !== "string") fail(keyPath(path, name), `expected a string, found ${value === undefined ? "nothing (the field is required)" : describeValue(value)}`);
  return value;
}

/**
 * The `triggered_tags` format (as a plain object, for parse.ts to check) that a legacy
 * structural tag stands for. A `schema` may be JSON text, as xgrammar's Python API allows.
 */
export function legacyToFormat(obj: Record<string, unknown>, field: "structures" | "tags"): Record<string, unknown> {
  for (const key of Object.keys(obj)) {
    if (obj[key] === undefined || LEGACY_FIELDS.includes(key)) continue;
    fail(key, `unknown field "${key}" in a legacy structural tag; expected only the fields type, ${field}, triggers`);
  }
  if (field === "structures" && present(obj, "tags")) fail("tags", 'expected either "structures" or "tags" in a legacy structural tag, not both');
  const list = obj[field];
  if (!Array.isArray(list)) fail(field, `expected a list of {begin, schema, end} objects, found ${describeValue(list)}`);
  const tags = list.map((item: unknown, i) => {
    const path = indexPath(field, i);
    if (!isPlainObject(item)) fail(path, `expected a {begin, schema, end} object, found ${describeValue(item)}`);
    for (const key of Object.keys(item)) {
      if (item[key] === undefined || key === "begin" || key === "schema" || key === "end") continue;
      fail(keyPath(path, key), `unknown field "${key}" in a legacy structure; expected only the fields begin, schema, end`);
    }
    let schema = item.schema;
    if (typeof schema === "string") {
      try {
        schema = parseJsonText(schema);
      } catch (err) {
        if (err instanceof FormatError) fail(keyPath(path, "schema"), `expected a JSON Schema (an object, a boolean or JSON text of one), found text that is not JSON: ${err.message}`);
        throw err;
      }
    }
    if (schema === undefined) fail(keyPath(path, "schema"), "missing required field of a legacy structure; expected a JSON Schema");
    return { type: "tag", begin: legacyString(item, "begin", path), content: { type: "json_schema", json_schema: schema }, end: legacyString(item, "end", path) };
  });
  return { type: "triggered_tags", triggers: obj.triggers, tags };
}
