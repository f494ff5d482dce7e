/**
 * A JSON Schema rendered as a TypeScript-like type, for outlines (spec: outline.md, "JSON Schema
 * as a type"): `{ location: string, unit?: "c" | "f" }`, `(string | number)[]`,
 * `integer(minimum=1)`, `node where node = { next?: node | null }`.
 *
 * Choices where outline.md is silent (each is a test case):
 * - Several independent parts of one schema (`$ref`, `type`, `const`, `enum`, `anyOf`, `oneOf`,
 *   `allOf`) print in that order joined by ` & `, as `$ref` with `type` does (`name & type`).
 * - `type: "object"` takes the `{ … }` shape and `type: "array"` the `T[]` shape in place of the
 *   type name, inside a type list too: `["object", "null"]` with properties is `{ a: T } | null`.
 *   Without `type`, the shape alone is printed.
 * - `required` alone also makes the `{ … }` shape (`{ a: any }`).
 * - An `items` array (the older tuple form) is not the `T[]` shape; it is kept as an extra
 *   keyword: `any[](items=[…])`.
 * - Property names that are not identifiers are JSON-quoted: `{ "first name": string }`.
 * - A `$ref` that is not `#/$defs/NAME` or `#/definitions/NAME` prints as written.
 * - Extra keywords are joined with `, `; an intersection gets parentheses before them and before
 *   `[]`, as a union does.
 * - Definitions print after the extra keywords. A type with definitions that is itself nested
 *   (a property, an item, a branch) is parenthesized.
 */
import { SchemaError } from "../errors.js";
import { MAX_NESTING, describeValue, isJsonType, isPlainObject } from "./json-path.js";
import type { JsonSchema } from "./types.js";

/** Keys that only annotate a schema and never constrain it. */
const ANNOTATIONS: ReadonlySet<string> = new Set([
  "$comment", "$id", "$schema", "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly",
]);

const TYPE_NAMES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean", "null", "object", "array"]);

/** Binding strength of a rendered type, to decide where parentheses go. */
const Prec = { Where: 0, Union: 1, Intersection: 2, Atom: 3 } as const;
type Prec = (typeof Prec)[keyof typeof Prec];

interface Rendered {
  text: string;
  prec: Prec;
}

const atom = (text: string): Rendered => ({ text, prec: Prec.Atom });

/** `r` as an operand that must bind at least as strongly as `min`. */
function operand(r: Rendered, min: Prec): string {
  return r.prec < min ? `(${r.text})` : r.text;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** `#/$defs/a%20b` → `a b`: the definition name behind a local `$ref`, JSON-pointer decoded. */
function refName(ref: string): string {
  const m = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (m === null || m[1] === undefined) return ref;
  let name = m[1];
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not percent-encoded after all: keep the text as written.
  }
  return name.replace(/~1/g, "/").replace(/~0/g, "~");
}

function pointer(base: string, ...tokens: string[]): string {
  return tokens.reduce((p, t) => `${p}/${t.replace(/~/g, "~0").replace(/\//g, "~1")}`, base);
}

function union(parts: Rendered[]): Rendered {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  return { text: parts.map((p) => operand(p, Prec.Union)).join(" | "), prec: Prec.Union };
}

function intersection(parts: Rendered[]): Rendered {
  if (parts.length === 0) return atom("any");
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  return { text: parts.map((p) => operand(p, Prec.Intersection)).join(" & "), prec: Prec.Intersection };
}

class SchemaRenderer {
  render(schema: unknown, ptr: string, depth: number): Rendered {
    if (depth > MAX_NESTING) throw new SchemaError(ptr, `expected schemas nested at most ${MAX_NESTING} levels deep (is there a cycle?)`);
    if (schema === true) return atom("any");
    if (schema === false) return atom("never");
    if (!isPlainObject(schema)) throw new SchemaError(ptr, `expected a schema (an object or a boolean), found ${describeValue(schema)}`);

    let types: string[] | undefined;
    let ref: Rendered | undefined;
    let properties: Record<string, unknown> | undefined;
    let additional: unknown;
    let required: string[] | undefined;
    let items: unknown;
    let hasItems = false;
    const values: Rendered[] = [];
    const valueList: unknown[] = [];
    const combinators: Rendered[] = [];
    const extras: string[] = [];
    const defs: [string, unknown, string][] = [];
    const definitions: [string, unknown, string][] = [];

    for (const key of Object.keys(schema)) {
      const value = schema[key];
      if (value === undefined || ANNOTATIONS.has(key)) continue;
      const at = pointer(ptr, key);
      switch (key) {
        case "type":
          types = this.types(value, at);
          break;
        case "$ref":
          if (typeof value !== "string") throw new SchemaError(at, `expected a reference string, found ${describeValue(value)}`, key);
          ref = atom(refName(value));
          break;
        case "const":
          valueList.push(value);
          values.push(atom(JSON.stringify(value)));
          break;
        case "enum": {
          if (!Array.isArray(value)) throw new SchemaError(at, `expected a list of values, found ${describeValue(value)}`, key);
          valueList.push(...(value as unknown[]));
          values.push(value.length === 0 ? atom("never") : union(value.map((v: unknown) => atom(JSON.stringify(v)))));
          break;
        }
        case "anyOf":
        case "oneOf":
        case "allOf": {
          const branches = this.branches(value, at, key, depth);
          combinators.push(key === "anyOf" ? union(branches) : atom(`${key}(${branches.map((b) => operand(b, Prec.Union)).join(", ")})`));
          break;
        }
        case "properties":
          if (!isPlainObject(value)) throw new SchemaError(at, `expected an object of property schemas, found ${describeValue(value)}`, key);
          properties = value;
          break;
        case "additionalProperties":
          additional = value;
          break;
        case "required":
          if (!Array.isArray(value) || !value.every((v: unknown) => typeof v === "string")) {
            throw new SchemaError(at, `expected a list of property names, found ${describeValue(value)}`, key);
          }
          required = value as string[];
          break;
        case "items":
          if (Array.isArray(value)) {
            extras.push(`${key}=${JSON.stringify(value)}`);
          } else {
            items = value;
            hasItems = true;
          }
          break;
        case "$defs":
        case "definitions": {
          if (!isPlainObject(value)) throw new SchemaError(at, `expected an object of named schemas, found ${describeValue(value)}`, key);
          const into = key === "$defs" ? defs : definitions;
          for (const name of Object.keys(value)) {
            if (value[name] !== undefined) into.push([name, value[name], pointer(at, name)]);
          }
          break;
        }
        default:
          extras.push(`${key}=${JSON.stringify(value)}`);
      }
    }

    const objectShape = properties !== undefined || additional !== undefined || required !== undefined
      ? this.objectShape(properties, additional, required, ptr, depth)
      : undefined;
    const arrayShape = hasItems ? atom(`${operand(this.render(items, pointer(ptr, "items"), depth + 1), Prec.Atom)}[]`) : undefined;

    const parts: Rendered[] = [];
    if (ref !== undefined) parts.push(ref);
    // A type every listed value already has says nothing more; the shapes still do.
    const typeImplied = types !== undefined && values.length > 0 && valueList.every((v) => types?.some((t) => isJsonType(v, t)));
    if (types !== undefined && !typeImplied) {
      let objectUsed = false;
      let arrayUsed = false;
      const members = types.map((t): Rendered => {
        if (t === "object" && objectShape !== undefined) {
          objectUsed = true;
          return objectShape;
        }
        if (t === "array") {
          arrayUsed = arrayShape !== undefined;
          return arrayShape ?? atom("any[]");
        }
        return atom(t);
      });
      parts.push(members.length === 0 ? atom("never") : union(members));
      if (objectShape !== undefined && !objectUsed) parts.push(objectShape);
      if (arrayShape !== undefined && !arrayUsed) parts.push(arrayShape);
    } else {
      if (objectShape !== undefined) parts.push(objectShape);
      if (arrayShape !== undefined) parts.push(arrayShape);
    }
    parts.push(...values, ...combinators);

    let result = intersection(parts);
    if (extras.length > 0) result = atom(`${operand(result, Prec.Atom)}(${extras.join(", ")})`);
    const named = [...defs, ...definitions];
    if (named.length > 0) {
      const bindings = named.map(([name, def, at]) => `${name} = ${operand(this.render(def, at, depth + 1), Prec.Union)}`);
      result = { text: `${result.text} where ${bindings.join(", ")}`, prec: Prec.Where };
    }
    return result;
  }

  private types(value: unknown, at: string): string[] {
    const list: unknown[] = Array.isArray(value) ? value : [value];
    for (const t of list) {
      if (typeof t !== "string" || !TYPE_NAMES.has(t)) {
        throw new SchemaError(at, `expected a type name (string, number, integer, boolean, null, object, array) or a list of them, found ${describeValue(t)}`, "type");
      }
    }
    return list as string[];
  }

  private branches(value: unknown, at: string, key: string, depth: number): Rendered[] {
    if (!Array.isArray(value) || value.length === 0) throw new SchemaError(at, `expected a non-empty list of schemas, found ${describeValue(value)}`, key);
    return value.map((branch: unknown, i) => this.render(branch, pointer(at, String(i)), depth + 1));
  }

  private objectShape(
    properties: Record<string, unknown> | undefined,
    additional: unknown,
    required: string[] | undefined,
    ptr: string,
    depth: number,
  ): Rendered {
    const fields: string[] = [];
    const requiredSet = new Set(required ?? []);
    const declared = new Set<string>();
    for (const name of Object.keys(properties ?? {})) {
      const sub = properties?.[name];
      if (sub === undefined) continue;
      declared.add(name);
      const type = this.render(sub, pointer(ptr, "properties", name), depth + 1);
      fields.push(`${propertyName(name)}${requiredSet.has(name) ? "" : "?"}: ${operand(type, Prec.Union)}`);
    }
    for (const name of requiredSet) {
      if (!declared.has(name)) fields.push(`${propertyName(name)}: any`);
    }
    if (additional === true) {
      fields.push("...");
    } else if (additional !== undefined && additional !== false) {
      fields.push(`...: ${operand(this.render(additional, pointer(ptr, "additionalProperties"), depth + 1), Prec.Union)}`);
    }
    return atom(fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`);
  }
}

/**
 * Renders a JSON Schema as a TypeScript-like type, exactly as outline.md specifies.
 * @throws SchemaError when a keyword the rendering relies on has the wrong shape (e.g.
 *   `properties` not an object), naming its JSON pointer.
 */
export function schemaToType(schema: JsonSchema): string {
  return new SchemaRenderer().render(schema, "#", 0).text;
}
