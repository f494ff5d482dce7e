/**
 * The shape of the xgrammar test-suite table (test/schema/xgrammar-suite.test.ts): each row is a
 * schema (or structural-tag format, or regex) from one of xgrammar's Python test files, the
 * texts tagmask must accept and reject, and how tagmask's verdict relates to xgrammar's.
 */
import type { JsonSchemaOptions } from "../../lib/compile/json-schema/index.js";

/**
 * How tagmask's verdict relates to the one xgrammar's own test asserts.
 * - agree: the same verdict on every text (or both refuse the schema).
 * - stricter: xgrammar accepts texts the schema does not allow (it ignores a keyword, lets invalid
 *   text through); tagmask rejects them. `peer` lists those texts.
 * - exact: xgrammar rejects texts the schema allows; tagmask accepts them (`peer`).
 * - canonical: xgrammar accepts a constrained string spelled with an escape `JSON.stringify` would
 *   not write (`"\u0062"` for `"b"`); tagmask's constrained strings take only the canonical
 *   spelling, by design (docs/json-schema.md, "Strings"). `peer` lists those texts.
 * - refused: tagmask refuses the schema on purpose (docs/json-schema.md, "What is refused"), with a
 *   SchemaError naming the keyword and its path (`error`).
 * - compiles: xgrammar refuses the schema (`peerError`); tagmask compiles what it means.
 */
export type Kind = "agree" | "stricter" | "exact" | "canonical" | "refused" | "compiles";

/** What tagmask must throw: a SchemaError at `path` (naming `keyword`), or an error matching `message`. */
export interface Expected {
  path?: string;
  keyword?: string;
  message?: RegExp;
}

export interface SuiteCase {
  /** The peer's test (function name, parameter) the row comes from. */
  name: string;
  kind: Kind;
  /** A JSON Schema: a value, or JSON text where numbers must keep every digit. */
  schema?: unknown;
  /** A structural tag or format, lowered with `lowerFormat` (xgrammar's structural-tag reading). */
  format?: unknown;
  /** A regex matched in full, as xgrammar's `Grammar.from_regex`. */
  regex?: string;
  /** Over the defaults `{undeclared: "forbid"}` (xgrammar's `strict_mode`, on in its tests). */
  options?: JsonSchemaOptions;
  accept?: string[];
  reject?: string[];
  /** Texts on which xgrammar's test asserts the opposite verdict (see Kind). */
  peer?: string[];
  /** The error tagmask raises (kinds refused and agree). */
  error?: Expected;
  /** xgrammar's error, for kind compiles (and agree rows where both refuse). */
  peerError?: string;
  /** Why the verdicts differ, or what the row is about. */
  why?: string;
}

export interface SuiteFile {
  /** The peer's file, under tests/python of mlc-ai/xgrammar. */
  file: string;
  cases: SuiteCase[];
}

/** A number written as Python would write it (`314000.0`), for `dumps`. */
export class Raw {
  constructor(readonly text: string) {}
}

/**
 * JSON text as Python's `json.dumps` writes it with its default separators (", " and ": "), or
 * with `indent` (items on their own lines, ": " between key and value); `compact` uses "," and ":".
 * Non-ASCII characters are written as they are (`ensure_ascii=False`).
 */
export function dumps(value: unknown, style: { indent?: number; compact?: boolean } = {}): string {
  const write = (v: unknown, depth: number): string => {
    if (v instanceof Raw) return v.text;
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    const entries = Array.isArray(v) ? v.map((x) => write(x, depth + 1)) : Object.entries(v).map(([k, x]) => JSON.stringify(k) + (style.compact ? ":" : ": ") + write(x, depth + 1));
    const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
    if (entries.length === 0) return open + close;
    if (style.indent === undefined) return open + entries.join(style.compact ? "," : ", ") + close;
    const pad = (d: number) => "\n" + " ".repeat(style.indent! * d);
    return open + pad(depth + 1) + entries.join("," + pad(depth + 1)) + pad(depth) + close;
  };
  return write(value, 0);
}
