/**
 * Small helpers shared by the format parser, the JSON text reader and the printers: building
 * JSON paths for error messages (`format.elements[2].tags[0].end`), describing a found value in
 * a few words, and checking that strings are well-formed UTF-16.
 */

/** How deep a format tree or a JSON value may nest before it is refused (guards the JS stack). */
export const MAX_NESTING = 1000;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The path of field `key` below `base`: `base.key`, or `base["odd key"]` when not an identifier. */
export function keyPath(base: string, key: string): string {
  if (IDENTIFIER.test(key)) return base === "" ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/**
 * The path of the first value nested more than MAX_NESTING levels below `value` (a cycle nests
 * without end, so it is found too), or null when there is none. Iterative, so any depth is safe;
 * checked before code that walks a value recursively.
 */
export function tooDeepPath(value: unknown, base: string): string | null {
  interface Entry {
    value: unknown;
    depth: number;
    parent: Entry | null;
    key: string | number;
  }
  const stack: Entry[] = [{ value, depth: 0, parent: null, key: "" }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const v = entry.value;
    if (typeof v !== "object" || v === null) continue;
    if (entry.depth >= MAX_NESTING) {
      const keys: Array<string | number> = [];
      for (let e: Entry | null = entry; e !== null && e.parent !== null; e = e.parent) keys.push(e.key);
      return keys.reverse().reduce<string>((p, k) => (typeof k === "number" ? indexPath(p, k) : keyPath(p, k)), base);
    }
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, depth: entry.depth + 1, parent: entry, key: i }));
    else for (const [k, item] of Object.entries(v)) stack.push({ value: item, depth: entry.depth + 1, parent: entry, key: k });
  }
  return null;
}

/** The path of array element `index` below `base`: `base[index]`. */
export function indexPath(base: string, index: number): string {
  return `${base}[${index}]`;
}

const SHOWN_CHARS = 40;

/** A string shown in a message: JSON-quoted, cut after 40 characters so messages stay one line. */
export function showString(s: string): string {
  if (s.length <= SHOWN_CHARS) return JSON.stringify(s);
  return `${JSON.stringify(s.slice(0, SHOWN_CHARS))}… (${s.length} characters)`;
}

/** What a value is, for "found …" in messages: `string "abc"`, `number 1.5`, `an array`, … */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  switch (typeof value) {
    case "string":
      return `string ${showString(value)}`;
    case "number":
      return `number ${String(value)}`;
    case "boolean":
      return `boolean ${String(value)}`;
    case "undefined":
      return "undefined";
    case "bigint":
      return `bigint ${String(value)}`;
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    default: {
      const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
      if (proto === null || proto === Object.prototype) return "an object";
      const name = proto.constructor?.name;
      return name ? `an instance of ${name}` : "a non-plain object";
    }
  }
}

/** True for objects written as `{…}` in JSON: not null, not an array, plain prototype. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether a JSON value is an instance of the JSON Schema type `type` (false for other names). */
export function isJsonType(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isPlainObject(value);
    default:
      return false;
  }
}

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Where the first lone surrogate of `s` is, or -1 when `s` is well-formed UTF-16. Strings are
 * matched as UTF-8 bytes later on, and a lone surrogate has no UTF-8 encoding.
 */
export function loneSurrogateIndex(s: string): number {
  const m = LONE_SURROGATE.exec(s);
  return m === null ? -1 : m.index;
}

/** The message for a string with a lone surrogate at `index`. */
export function loneSurrogateMessage(s: string, index: number): string {
  const unit = s.charCodeAt(index).toString(16).toUpperCase();
  return `expected well-formed UTF-16 text, found a lone surrogate U+${unit} at index ${index}`;
}
