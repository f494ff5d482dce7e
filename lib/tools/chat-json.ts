/**
 * JSON as chat templates print it. Hugging Face templates run in Python's Jinja, whose `tojson`
 * is `json.dumps`: items separated by ", " and keys by ": " (or "," and ": " when indented),
 * non-ASCII kept (`ensure_ascii=False`, the transformers default) or escaped, keys in insertion
 * order or sorted. Values here come from JSON text, so a float that Python would print as `2.0`
 * arrives as the number 2 and prints as `2`: the one difference that cannot be undone.
 */

/** How a template prints JSON. */
export interface PythonJsonOptions {
  /** Spaces per level; absent: one line. */
  indent?: number;
  /** Between items; default ", " on one line, "," when indented. */
  itemSeparator?: string;
  /** Between a key and its value; default ": ". */
  keySeparator?: string;
  /** Escape every non-ASCII character as `\uXXXX` (Python's `ensure_ascii=True`). Default false. */
  ensureAscii?: boolean;
  /**
   * Sort object keys: "codepoint" as `json.dumps(sort_keys=True)`, "casefold" as Jinja's
   * `dictsort` (case-insensitive, stable). Default: insertion order.
   */
  sortKeys?: "codepoint" | "casefold";
}

/** A string as Python's json.dumps writes it. */
export function pythonJsonString(s: string, ensureAscii = false): string {
  const text = JSON.stringify(s);
  if (!ensureAscii) return text;
  return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A number as Python prints it (exponents with at least two digits, `1e-07`). */
export function pythonNumber(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

function sortedEntries(obj: Record<string, unknown>, sort: PythonJsonOptions["sortKeys"]): [string, unknown][] {
  const entries = Object.entries(obj);
  if (sort === "codepoint") return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (sort === "casefold") {
    return entries.map((e, i) => [e, i] as const).sort(([[a], i], [[b], j]) => {
      const x = a.toLowerCase();
      const y = b.toLowerCase();
      return x < y ? -1 : x > y ? 1 : i - j;
    }).map(([e]) => e);
  }
  return entries;
}

/** `value` as Python's `json.dumps(value, …)` prints it (see {@link PythonJsonOptions}). */
export function pythonJson(value: unknown, options: PythonJsonOptions = {}): string {
  const { indent, ensureAscii = false, sortKeys } = options;
  const itemSep = options.itemSeparator ?? (indent === undefined ? ", " : ",");
  const keySep = options.keySeparator ?? ": ";
  const write = (v: unknown, depth: number): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") return pythonNumber(v);
    if (typeof v === "string") return pythonJsonString(v, ensureAscii);
    const pad = indent === undefined ? "" : `\n${" ".repeat(indent * (depth + 1))}`;
    const end = indent === undefined ? "" : `\n${" ".repeat(indent * depth)}`;
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      return `[${pad}${v.map((x) => write(x, depth + 1)).join(`${itemSep}${pad}`)}${end}]`;
    }
    const entries = sortedEntries(v as Record<string, unknown>, sortKeys);
    if (entries.length === 0) return "{}";
    return `{${pad}${entries.map(([k, x]) => `${pythonJsonString(k, ensureAscii)}${keySep}${write(x, depth + 1)}`).join(`${itemSep}${pad}`)}${end}}`;
  };
  return write(value, 0);
}

/** Python's repr() of a string: single quotes unless it holds ' and no ", escapes as Python writes them. */
function pythonRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/[\\\n\r\t]/g, (c) => ({ "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]!)
    .replace(new RegExp(quote, "g"), `\\${quote}`)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return `${quote}${body}${quote}`;
}

/**
 * Python's `str()` of a JSON value — what Jinja's `string` filter gives in transformers: a
 * string as it is, `True` / `False` / `None`, numbers as Python prints them, lists and dicts in
 * their repr (`['a', 'b']`, `{'k': 1}`).
 */
export function pythonStr(value: unknown): string {
  const repr = (v: unknown): string => {
    if (v === null || v === undefined) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    if (typeof v === "number") return pythonNumber(v);
    if (typeof v === "string") return pythonRepr(v);
    if (Array.isArray(v)) return `[${v.map(repr).join(", ")}]`;
    return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pythonRepr(k)}: ${repr(x)}`).join(", ")}}`;
  };
  return typeof value === "string" ? value : repr(value);
}
