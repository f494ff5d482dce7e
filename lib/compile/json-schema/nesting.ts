/**
 * The shape check every schema passes before it is compiled: a finite tree of values nested at
 * most MAX_NESTING levels deep, the same bound as the JSON text reader. The compiler walks a
 * schema recursively, so a deeper one (a schema built in code: JSON text that deep is refused
 * when read) would overflow the JS stack; and a JS object that contains itself would be
 * followed forever. Both are refused with a SchemaError instead.
 */
import { SchemaError } from "../../errors.js";
import { MAX_NESTING } from "../../format/json-path.js";

/** Path segments shown in a message before it is cut short. */
const SHOWN_SEGMENTS = 6;

function pointer(segments: readonly string[]): string {
  const escape = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");
  const shown = segments.slice(0, SHOWN_SEGMENTS).map(escape);
  return `#${shown.map((s) => `/${s}`).join("")}${segments.length > SHOWN_SEGMENTS ? "/…" : ""}`;
}

interface Frame {
  value: object;
  /** The member names to walk, or null for an array (walked by index: an enum of 100,000 values
   * would otherwise spell out 100,000 index strings). */
  keys: string[] | null;
  /** Members (or elements) in all. */
  count: number;
  next: number;
  /** Deepest nesting below this value found so far (0: no container below). */
  height: number;
}

/**
 * Throws a SchemaError when `schema` nests deeper than MAX_NESTING levels or contains itself.
 * Iterative, and each object is walked once however often it is shared.
 */
export function checkSchemaNesting(schema: unknown): void {
  if (schema === null || typeof schema !== "object") return;
  const heights = new Map<object, number>();
  const onPath = new Set<object>();
  const stack: Frame[] = [];
  const segments: string[] = [];
  const enter = (value: object): void => {
    if (stack.length > MAX_NESTING) {
      throw new SchemaError(
        pointer(segments),
        `the schema is nested more than ${MAX_NESTING} levels deep (objects and arrays); flatten it, or use $ref and $defs for recursive shapes`,
      );
    }
    onPath.add(value);
    const keys = Array.isArray(value) ? null : Object.keys(value);
    stack.push({ value, keys, count: keys === null ? (value as unknown[]).length : keys.length, next: 0, height: 0 });
  };
  enter(schema);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next < top.count) {
      const at = top.next++;
      const child = top.keys === null ? (top.value as unknown[])[at] : (top.value as Record<string, unknown>)[top.keys[at]!];
      if (child === null || typeof child !== "object") continue;
      segments.push(top.keys === null ? String(at) : top.keys[at]!);
      if (onPath.has(child)) {
        throw new SchemaError(pointer(segments), "the schema object contains itself (a cycle of JS references); use $ref for recursive shapes");
      }
      const known = heights.get(child);
      if (known !== undefined) {
        if (stack.length + known > MAX_NESTING) {
          throw new SchemaError(pointer(segments), `the schema is nested more than ${MAX_NESTING} levels deep (objects and arrays)`);
        }
        top.height = Math.max(top.height, known + 1);
        segments.pop();
        continue;
      }
      enter(child);
      continue;
    }
    stack.pop();
    onPath.delete(top.value);
    heights.set(top.value, top.height);
    const parent = stack[stack.length - 1];
    if (parent) {
      parent.height = Math.max(parent.height, top.height + 1);
      segments.pop();
    }
  }
}

/**
 * `err`, or, when it is the JS stack running out, a SchemaError saying so. The nesting check
 * bounds what is nested in the schema's own structure; a long `$ref` chain or a `pattern` with
 * deeply nested groups can still recurse past the stack, and the caller should get a typed
 * error for that too. (The compiler's module-level caches are memo tables filled only after an
 * entry is computed, so an abandoned compilation leaves them consistent.)
 */
export function stackOverflowAsSchemaError(err: unknown): unknown {
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return new SchemaError(
      "#",
      "the schema nests too deeply to compile (long $ref chains, deeply nested subschemas or pattern groups ran the " +
        "JavaScript stack out); flatten it",
    );
  }
  return err;
}
