/**
 * The JSON text that keys a format in the lowering's caches (lower.ts), equal to
 * `JSON.stringify(format)` (or, once numbers a double cannot hold were read, to
 * `stringifyExact(format)`). A format node's text is put together from its parts' texts, and a
 * sealed tag (which cannot change) keeps its text: a request that repeats tools whose sealed call
 * tags the builder kept (lib/tools/tool-format-cache.ts) keys them, and the list that holds them,
 * without reading their schemas again. Only tags keep texts: a weak map's entries cost the
 * garbage collector, and every node and schema of every tool as an entry was a lowering's worth.
 */
import { hasRecordedNumberTexts, numberText, stringifyExact } from "../format/exact-numbers.js";
import { sealedHeight } from "../format/sealed.js";

const plainTexts = new WeakMap<object, string>();
const exactTexts = new WeakMap<object, string>();

/**
 * The JSON text of a format (or of a format-like object around frozen parts, e.g. a member schema
 * as a `json_schema` format of its own): its own fields, its sub-formats and lists composed,
 * everything else (schemas) written whole.
 */
export function formatKeyText(format: object): string {
  const exact = hasRecordedNumberTexts();
  return composed(format, exact, exact ? exactTexts : plainTexts);
}

function composed(v: object, exact: boolean, memo: WeakMap<object, string>): string {
  const known = memo.get(v);
  if (known !== undefined) return known;
  let s: string;
  const type = (v as { type?: unknown }).type;
  if (type === "tag" && !isList((v as { content?: unknown }).content)) {
    // A tag seen for the first time (a tool's call tag): written whole, natively, and kept.
    s = exact ? stringifyExact(v) : JSON.stringify(v);
  } else if (Array.isArray(v)) {
    s = "[";
    for (let i = 0; i < v.length; i++) s += `${i === 0 ? "" : ","}${part(v[i] === undefined ? null : v[i], v, i, exact, memo)}`;
    s += "]";
  } else {
    s = "{";
    let first = true;
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      s += `${first ? "" : ","}${JSON.stringify(k)}:${part(x, v, k, exact, memo)}`;
      first = false;
    }
    s += "}";
  }
  if (type === "tag" && Object.isFrozen(v)) memo.set(v, s);
  return s;
}

/** Whether a format is a list of tags (whose tags' texts a request may have kept). */
function isList(f: unknown): boolean {
  const type = typeof f === "object" && f !== null ? (f as { type?: unknown }).type : undefined;
  return type === "tags_with_separator" || type === "triggered_tags";
}

/** A field of a format node: sub-formats and lists composed, other objects (schemas) whole. */
function part(x: unknown, container: object, key: string | number, exact: boolean, memo: WeakMap<object, string>): string {
  if (typeof x === "number" && exact) return numberText(container, key) ?? JSON.stringify(x);
  if (x === null || typeof x !== "object") return JSON.stringify(x);
  if (Array.isArray(x) || sealedHeight(x) !== undefined) return composed(x, exact, memo);
  return exact ? stringifyExact(x) : JSON.stringify(x);
}
