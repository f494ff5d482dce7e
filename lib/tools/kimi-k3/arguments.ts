/**
 * The arguments of one Kimi K3 call: either one argument tag per parameter, in declared order
 * (optional parameters wrapped in `optional`), or a single JSON object
 * `<|open|>json type="object"<|sep|>{...}<|close|>json<|sep|>` under the whole parameters schema.
 *
 * A parameter gets one tag per JSON type its schema allows (`type="number"` for integers, with
 * the integer schema inside); strings are raw text (see raw-string.ts), every other value is JSON
 * under the parameter's schema narrowed to that type, with the root definitions it refers to.
 *
 * The tag-per-parameter form is offered only when it can be exact. When it cannot (a root schema
 * with keywords that constrain the object as a whole, extra properties next to declared ones, a
 * string schema raw text cannot express, a reference that cannot be carried along), the call's
 * arguments are the JSON object form alone, which the JSON Schema compiler enforces in full.
 */
import { ToolError } from "../../errors.js";
import { constString, jsonSchema, optional, or, regex, sequence, star, tag } from "../../format/build.js";
import { indexPath, keyPath, showString } from "../../format/json-path.js";
import type { Format, JsonSchema, TagFormat } from "../../format/types.js";
import { checkName, type NormalizedTool } from "../normalize.js";
import { argumentTypeOf, isSchema, narrowToType, schemaTypes, withRootDefinitions } from "../schema-types.js";
import {
  ARGUMENT_CLOSE, ARGUMENT_OPEN_PREFIX, ARGUMENT_OPEN_SUFFIX, ARGUMENT_TYPE_PREFIX, type ArgumentType, JSON_CLOSE, JSON_OPEN,
  KIMI_K3_MARKERS, escapeAttribute,
} from "./markers.js";
import { INEXPRESSIBLE, NO_VALUE, rawStringFormat } from "./raw-string.js";

/** Root keywords the tag-per-parameter form can honour. */
const ROOT_KEYWORDS = new Set([
  "type", "properties", "required", "additionalProperties", "$defs", "definitions",
  "$comment", "$id", "$schema", "$anchor", "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly",
]);

/** An attribute value written by the model: any text but `"`, `&` only in `&amp;` / `&quot;`, no control characters. */
const ANY_KEY = '(?:[^"&\\u0000-\\u001f\\u007f]|&amp;|&quot;)+';

/** The tag-per-parameter form has no parameters: the arguments are empty. */
const NO_PARAMETERS = "no parameters" as const;

type Schema = { [key: string]: unknown };

/** Refuses names holding a Kimi K3 marker: the model could not write them as plain text. */
export function checkNoMarkers(name: string, path: string, what: string): void {
  const marker = KIMI_K3_MARKERS.find((m) => name.includes(m));
  if (marker !== undefined) {
    throw new ToolError(path, `invalid ${what} ${showString(name)}: it contains the Kimi K3 marker ${marker}, which the model writes as a special token`);
  }
}

/** One value format per argument type the schema allows; null when one cannot be exact. */
function valueFormats(schema: JsonSchema, root: Schema, path: string): { type: ArgumentType; content: Format }[] | null {
  const out: { type: ArgumentType; content: Format }[] = [];
  const types: ArgumentType[] = [];
  for (const t of schemaTypes(schema, root)) {
    const a = argumentTypeOf(t);
    if (!types.includes(a)) types.push(a);
  }
  for (const type of types) {
    const narrowed = narrowToType(schema, type, root);
    if (type === "string") {
      const raw = rawStringFormat(narrowed, root, path);
      if (raw === INEXPRESSIBLE) return null;
      if (raw !== NO_VALUE) out.push({ type, content: raw });
    } else {
      const carried = withRootDefinitions(narrowed, root);
      if (carried === undefined) return null;
      out.push({ type, content: jsonSchema(carried) });
    }
  }
  return out;
}

/** The tag(s) of one declared parameter, or null when the form cannot be exact. */
function parameterFormat(key: string, schema: JsonSchema, root: Schema, path: string): Format | typeof NO_VALUE | null {
  const values = valueFormats(schema, root, path);
  if (values === null) return null;
  const tags = values.map((v) =>
    tag(`${ARGUMENT_OPEN_PREFIX}${escapeAttribute(key)}${ARGUMENT_TYPE_PREFIX}${v.type}${ARGUMENT_OPEN_SUFFIX}`, v.content, ARGUMENT_CLOSE));
  if (tags.length === 0) return NO_VALUE;
  return tags.length === 1 ? tags[0]! : or(...tags);
}

/** Any number of argument tags with any keys, each value following `valueSchema`. */
function anyKeyArguments(valueSchema: JsonSchema, root: Schema, path: string): Format | null {
  const values = valueFormats(valueSchema, root, path);
  if (values === null) return null;
  if (values.length === 0) return constString("");
  const tags: TagFormat[] = values.map((v) => tag(`${ARGUMENT_TYPE_PREFIX}${v.type}${ARGUMENT_OPEN_SUFFIX}`, v.content, ARGUMENT_CLOSE));
  return star(sequence(constString(ARGUMENT_OPEN_PREFIX), regex(ANY_KEY), tags.length === 1 ? tags[0]! : or(...tags)));
}

/** The tag-per-parameter form of `params`, NO_PARAMETERS, or null when it cannot be exact. */
function keyValueForm(params: Schema, path: string): Format | typeof NO_PARAMETERS | null {
  if (Object.keys(params).some((k) => !ROOT_KEYWORDS.has(k))) return null;
  const properties = (params["properties"] ?? {}) as Schema;
  const required = Array.isArray(params["required"]) ? (params["required"] as string[]) : [];
  const additional = params["additionalProperties"];
  const declared = Object.keys(properties);
  if (additional !== undefined && additional !== false) {
    if (declared.length > 0 || required.length > 0) return null;
    if (!isSchema(additional)) return null;
    return anyKeyArguments(additional, params, keyPath(path, "additionalProperties"));
  }
  if (additional === undefined && params["properties"] === undefined && required.length === 0) {
    // No property is declared or closed off: any key, like JSON Schema's plain `{"type": "object"}`.
    return anyKeyArguments(true, params, path);
  }
  const names: { key: string; schema: JsonSchema; path: string }[] = declared.map((key) => ({
    key,
    schema: properties[key] as JsonSchema,
    path: keyPath(keyPath(path, "properties"), key),
  }));
  required.forEach((key, i) => {
    // A required name with no schema of its own may hold any value.
    if (!Object.hasOwn(properties, key) && !names.some((n) => n.key === key)) {
      names.push({ key, schema: true, path: indexPath(keyPath(path, "required"), i) });
    }
  });
  const elements: Format[] = [];
  for (const { key, schema, path: at } of names) {
    checkName(key, at, "parameter name");
    checkNoMarkers(key, at, "parameter name");
    const f = parameterFormat(key, schema, params, at);
    if (f === null) return null;
    const isRequired = required.includes(key);
    if (f === NO_VALUE) {
      // A required parameter no value satisfies: the tags cannot be written at all.
      if (isRequired) return null;
      continue;
    }
    elements.push(isRequired ? f : optional(f));
  }
  if (elements.length === 0) return NO_PARAMETERS;
  return elements.length === 1 ? elements[0]! : sequence(...elements);
}

/** The parameters schema of the JSON object form: its value must be an object. */
function objectSchema(params: Schema): Schema {
  if (params["type"] === "object") return params;
  if (params["type"] === undefined) return Object.fromEntries([["type", "object"], ...Object.entries(params)]);
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, k === "type" ? "object" : v]));
}

/**
 * With declared parameters and no `additionalProperties`, the arguments object is closed (OpenAI's
 * strict-mode convention, xgrammar's default): the tag form can only write declared keys, and the
 * JSON form must accept the same objects. It also keeps the arguments grammar free of the
 * recursive any-value rule extra members would need.
 */
function closedWhenDeclared(params: Schema): Schema {
  const declares = (params["properties"] !== undefined && params["properties"] !== null) || Array.isArray(params["required"]);
  if (!declares || params["additionalProperties"] !== undefined) return params;
  return { ...params, additionalProperties: false };
}

/** The arguments of a call of `tool` (everything between the call's opening and closing markers). */
export function argumentsFormat(tool: NormalizedTool): Format {
  const path = keyPath(keyPath(tool.path, "function"), "parameters");
  const params: Schema = tool.parameters ?? { type: "object" };
  const kv = tool.parameters === null ? anyKeyArguments(true, params, path) : keyValueForm(params, path);
  const jsonForm = tag(JSON_OPEN, jsonSchema(closedWhenDeclared(objectSchema(params))), JSON_CLOSE);
  if (kv === NO_PARAMETERS) return optional(jsonForm);
  if (kv === null) return jsonForm;
  return or(kv, jsonForm);
}
