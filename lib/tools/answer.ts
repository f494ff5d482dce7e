/**
 * The answer constraint: a request's `response_format` turned into the format that replaces the
 * free text of the response channel. Forms and their meaning are documented on
 * {@link ResponseFormat} and in docs/tool-calling.md.
 */
import { ToolError } from "../errors.js";
import { constString, jsonSchema, or, regex } from "../format/build.js";
import { describeValue, indexPath, isPlainObject, keyPath, loneSurrogateIndex, loneSurrogateMessage, showString } from "../format/json-path.js";
import type { Format } from "../format/types.js";

const PATH = "response_format";

function fail(path: string, message: string): never {
  throw new ToolError(path, message);
}

function onlyFields(obj: Record<string, unknown>, path: string, allowed: readonly string[]): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) fail(keyPath(path, key), `unknown field ${showString(key)}; expected only ${allowed.join(", ")}`);
  }
}

function wellFormed(s: string, path: string): string {
  const lone = loneSurrogateIndex(s);
  if (lone >= 0) fail(path, loneSurrogateMessage(s, lone));
  return s;
}

/**
 * The format a `response_format` asks for, or null for free text (`{type: "text"}` or absent).
 * Throws `ToolError` with the path of the bad field.
 */
export function answerFormat(value: unknown): Format | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) fail(PATH, `expected an object {"type": ...}, found ${describeValue(value)}`);
  const type = value["type"];
  switch (type) {
    case "text":
      onlyFields(value, PATH, ["type"]);
      return null;
    case "json_object":
      onlyFields(value, PATH, ["type"]);
      return jsonSchema({ type: "object" });
    case "json_schema": {
      onlyFields(value, PATH, ["type", "json_schema"]);
      const path = keyPath(PATH, "json_schema");
      const spec = value["json_schema"];
      if (!isPlainObject(spec)) fail(path, `expected {"name": ..., "schema": ...}, found ${describeValue(spec)}`);
      onlyFields(spec, path, ["name", "description", "schema", "strict"]);
      const name = spec["name"];
      if (typeof name !== "string" || name === "") fail(keyPath(path, "name"), `expected a non-empty name, found ${describeValue(name)}`);
      const description = spec["description"];
      if (description !== undefined && typeof description !== "string") {
        fail(keyPath(path, "description"), `expected a string, found ${describeValue(description)}`);
      }
      const strict = spec["strict"];
      if (strict !== undefined && strict !== null && typeof strict !== "boolean") {
        fail(keyPath(path, "strict"), `expected true, false or null, found ${describeValue(strict)}`);
      }
      const schema = spec["schema"] ?? true;
      if (typeof schema !== "boolean" && !isPlainObject(schema)) {
        fail(keyPath(path, "schema"), `expected a JSON Schema (an object or a boolean), found ${describeValue(schema)}`);
      }
      return jsonSchema(strict === false ? true : schema);
    }
    case "regex": {
      onlyFields(value, PATH, ["type", "pattern"]);
      const pattern = value["pattern"];
      if (typeof pattern !== "string" || pattern === "") {
        fail(keyPath(PATH, "pattern"), `expected a non-empty regular expression, found ${describeValue(pattern)}`);
      }
      return regex(wellFormed(pattern, keyPath(PATH, "pattern")));
    }
    case "choice": {
      onlyFields(value, PATH, ["type", "choices"]);
      const path = keyPath(PATH, "choices");
      const choices = value["choices"];
      if (!Array.isArray(choices) || choices.length === 0) fail(path, `expected a non-empty list of strings, found ${describeValue(choices)}`);
      const seen = new Set<string>();
      const literals = choices.map((choice, i) => {
        const at = indexPath(path, i);
        if (typeof choice !== "string") fail(at, `expected a string, found ${describeValue(choice)}`);
        if (seen.has(choice)) fail(at, `duplicate choice ${showString(choice)}`);
        seen.add(choice);
        return constString(wellFormed(choice, at));
      });
      return literals.length === 1 ? literals[0]! : or(...literals);
    }
    default:
      fail(keyPath(PATH, "type"), `expected "text", "json_object", "json_schema", "regex" or "choice", found ${describeValue(type)}`);
  }
}
