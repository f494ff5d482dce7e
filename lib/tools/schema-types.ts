/**
 * What a tool builder needs to know about a parameter's JSON Schema: which JSON types it allows
 * (so a format that writes the type next to the value can offer one alternative per type), the
 * schema narrowed to one of those types, and the root definitions a parameter's schema refers
 * to (so the parameter can be compiled on its own).
 *
 * The analysis is conservative: a type is left out only when the schema certainly excludes it
 * (`type`, `enum`, `const`, `anyOf`/`oneOf`, `allOf`, `$ref`). Anything finer (`not`, `if`) stays
 * in the narrowed schema, so the JSON compiler still enforces it exactly.
 */
import { isPlainObject } from "../format/json-path.js";
import type { JsonSchema } from "../format/types.js";

/** JSON Schema type names; `number` includes the integers. */
export type SchemaTypeName = "string" | "integer" | "number" | "boolean" | "null" | "object" | "array";

/** A value's type as a JSON Schema `type` names it (integral numbers are `integer`). */
function typeOfValue(value: unknown): SchemaTypeName | undefined {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "number":
      return Number.isInteger(value) ? "integer" : "number";
    case "object":
      return "object";
    default:
      return undefined;
  }
}

/** Every JSON type, in the order argument types are offered when a schema does not order them. */
export const ALL_TYPES: readonly SchemaTypeName[] = ["string", "number", "boolean", "null", "object", "array"];

const TYPE_NAMES = new Set<string>(["string", "integer", "number", "boolean", "null", "object", "array"]);

/** `a ∪ b`, keeping a's order then b's; `integer` ∪ `number` is `number`. */
function union(a: readonly SchemaTypeName[], b: readonly SchemaTypeName[]): SchemaTypeName[] {
  const out = [...a];
  for (const t of b) {
    if (out.includes(t)) continue;
    if (t === "integer" && out.includes("number")) continue;
    const intAt = out.indexOf("integer");
    if (t === "number" && intAt >= 0) out[intAt] = "number";
    else out.push(t);
  }
  return out;
}

/** `a ∩ b` in a's order; `number` ∩ `integer` is `integer`. */
function intersect(a: readonly SchemaTypeName[], b: readonly SchemaTypeName[]): SchemaTypeName[] {
  const out: SchemaTypeName[] = [];
  for (const t of a) {
    if (b.includes(t)) out.push(t);
    else if ((t === "number" && b.includes("integer")) || (t === "integer" && b.includes("number"))) out.push("integer");
  }
  return out;
}

/** The definitions a `$ref` of the form `#/$defs/NAME` or `#/definitions/NAME` names, or undefined. */
export function localDefinitionName(ref: string): { container: "$defs" | "definitions"; name: string } | undefined {
  const m = /^#\/(\$defs|definitions)\/([^/]*)$/.exec(ref);
  if (!m) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(m[2]!);
  } catch {
    return undefined;
  }
  return { container: m[1] as "$defs" | "definitions", name: name.replace(/~1/g, "/").replace(/~0/g, "~") };
}

/** The schema `ref` points to in `root`, or undefined when it is not a root definition. */
export function resolveLocalRef(ref: string, root: JsonSchema): JsonSchema | undefined {
  const target = localDefinitionName(ref);
  if (!target || !isPlainObject(root)) return undefined;
  const defs = root[target.container];
  if (!isPlainObject(defs) || !Object.hasOwn(defs, target.name)) return undefined;
  const schema = defs[target.name];
  return typeof schema === "boolean" || isPlainObject(schema) ? schema : undefined;
}

function typeKeyword(value: unknown): SchemaTypeName[] | undefined {
  const names = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
  if (!names || !names.every((n): n is SchemaTypeName => typeof n === "string" && TYPE_NAMES.has(n))) return undefined;
  return union([], names);
}

/**
 * The JSON types `schema` allows, in the order the schema names them (its `type` list, `enum`
 * values, `anyOf` branches, …; otherwise {@link ALL_TYPES}). `$ref`s are followed into `root`'s
 * definitions; a cycle or an unknown reference counts as "any type".
 */
export function schemaTypes(schema: JsonSchema, root: JsonSchema, visiting: Set<string> = new Set()): SchemaTypeName[] {
  if (schema === true) return [...ALL_TYPES];
  if (schema === false) return [];
  const constraints: SchemaTypeName[][] = [];
  const type = typeKeyword(schema["type"]);
  if (type) constraints.push(type);
  if (Object.hasOwn(schema, "const")) {
    const t = typeOfValue(schema["const"]);
    constraints.push(t ? [t] : []);
  }
  if (Array.isArray(schema["enum"])) {
    constraints.push(schema["enum"].reduce<SchemaTypeName[]>((acc, v) => {
      const t = typeOfValue(v);
      return t ? union(acc, [t]) : acc;
    }, []));
  }
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      constraints.push(branches.reduce<SchemaTypeName[]>(
        (acc, b) => union(acc, isSchema(b) ? schemaTypes(b, root, visiting) : [...ALL_TYPES]), []));
    }
  }
  if (typeof schema["$ref"] === "string") {
    const ref = schema["$ref"];
    const target = resolveLocalRef(ref, root);
    if (target !== undefined && !visiting.has(ref)) {
      visiting.add(ref);
      constraints.push(schemaTypes(target, root, visiting));
      visiting.delete(ref);
    }
  }
  if (Array.isArray(schema["allOf"])) {
    for (const b of schema["allOf"]) if (isSchema(b)) constraints.push(schemaTypes(b, root, visiting));
  }
  if (constraints.length === 0) return [...ALL_TYPES];
  return constraints.slice(1).reduce((acc, c) => intersect(acc, c), constraints[0]!);
}

/** True for an object or boolean schema. */
export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "boolean" || isPlainObject(value);
}

/** Keywords that constrain only values of one type (they never reject a value of another type). */
const TYPE_KEYWORDS: { readonly [K in "string" | "number" | "object" | "array"]: readonly string[] } = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType", "contentSchema"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  object: [
    "properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties",
    "maxProperties", "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties",
  ],
  array: ["items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems"],
};

/** The argument type a schema type is written as: integers are numbers. */
export function argumentTypeOf(t: SchemaTypeName): Exclude<SchemaTypeName, "integer"> {
  return t === "integer" ? "number" : t;
}

function matchesArgType(t: SchemaTypeName | undefined, argType: Exclude<SchemaTypeName, "integer">): boolean {
  return t !== undefined && argumentTypeOf(t) === argType;
}

/**
 * `schema` narrowed to the values whose argument type is `argType` (`number` covers integers):
 * the result accepts exactly the values of that type `schema` accepts. When `schema` allows only
 * that type it is returned as it is; otherwise keywords of other types are dropped, `type`,
 * `enum`, `const`, `anyOf` and `oneOf` are filtered, and a `type` is added where still needed.
 */
export function narrowToType(schema: JsonSchema, argType: Exclude<SchemaTypeName, "integer">, root: JsonSchema): JsonSchema {
  const types = schemaTypes(schema, root);
  const mine = types.filter((t) => argumentTypeOf(t) === argType);
  if (mine.length === types.length) return schema;
  const typeValue = mine[0] ?? argType;
  if (typeof schema === "boolean") return { type: typeValue };
  // Entries, not assignments: a schema key named `__proto__` must stay an ordinary key.
  const entries: [string, unknown][] = [];
  let typed = false;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "type") {
      const listed = typeKeyword(value) ?? [];
      const kept = listed.filter((t) => matchesArgType(t, argType));
      entries.push([key, kept.length === 1 ? kept[0] : kept]);
      typed = true;
      continue;
    }
    const owner = (Object.keys(TYPE_KEYWORDS) as (keyof typeof TYPE_KEYWORDS)[]).find((k) => TYPE_KEYWORDS[k].includes(key));
    if (owner !== undefined && owner !== argType) continue;
    if (key === "enum" && Array.isArray(value)) {
      entries.push([key, value.filter((v) => matchesArgType(typeOfValue(v), argType))]);
    } else if ((key === "anyOf" || key === "oneOf") && Array.isArray(value)) {
      // A value of this type never satisfies a branch that excludes the type, so dropping those
      // branches keeps the meaning of both anyOf and oneOf.
      entries.push([key, value
        .filter((b) => !isSchema(b) || schemaTypes(b, root).some((t) => argumentTypeOf(t) === argType))
        .map((b) => (isSchema(b) ? narrowToType(b, argType, root) : b))]);
    } else {
      entries.push([key, value]);
    }
  }
  const out: { [key: string]: unknown } = Object.fromEntries(entries);
  if (!typed && schemaTypes(out, root).some((t) => argumentTypeOf(t) !== argType)) {
    return Object.fromEntries([["type", typeValue], ...entries]);
  }
  return out;
}

/** Every `$ref` string in a schema (any depth), in document order. */
function collectRefs(value: unknown, out: string[]): void {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, out);
  } else if (isPlainObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      if (key === "$ref" && typeof v === "string") out.push(v);
      else if (key !== "const" && key !== "enum" && key !== "default" && key !== "examples") collectRefs(v, out);
    }
  }
}

/**
 * `schema` made self-contained: the root definitions it refers to (directly or through other
 * definitions) are copied into it under the same `$defs` / `definitions` names, in root order.
 * Returns undefined when a reference cannot be carried along this way (a pointer into something
 * other than a root definition, or a name `schema` already defines itself).
 */
export function withRootDefinitions(schema: JsonSchema, root: JsonSchema): JsonSchema | undefined {
  const needed = { $defs: new Set<string>(), definitions: new Set<string>() };
  const queue: string[] = [];
  collectRefs(schema, queue);
  while (queue.length > 0) {
    const ref = queue.shift()!;
    const target = localDefinitionName(ref);
    if (!target) return undefined;
    if (needed[target.container].has(target.name)) continue;
    const body = resolveLocalRef(ref, root);
    if (body === undefined) return undefined;
    needed[target.container].add(target.name);
    collectRefs(body, queue);
  }
  if (needed.$defs.size === 0 && needed.definitions.size === 0) return schema;
  if (typeof schema === "boolean" || !isPlainObject(root)) return undefined;
  const out: { [key: string]: unknown } = { ...schema };
  for (const container of ["$defs", "definitions"] as const) {
    if (needed[container].size === 0) continue;
    if (Object.hasOwn(schema, container)) return undefined;
    const defs = root[container] as { [key: string]: unknown };
    out[container] = Object.fromEntries(Object.entries(defs).filter(([name]) => needed[container].has(name)));
  }
  return out;
}
