/**
 * The shape of a case ported from one of xgrammar's Python test files: a structural tag (or an
 * EBNF grammar), the outputs xgrammar's test accepts and rejects, and where tagmask is stricter
 * on purpose the outputs xgrammar accepts that tagmask rejects, with the words of
 * docs/compatibility.md that say why. Builders for the formats the tables repeat.
 */

/** Outputs checked as a whole: accepted means a complete match, rejected means not one (a prefix included). */
export interface TagCase {
  /** The peer test function (and parameter) the case comes from. */
  name: string;
  /** A format, or a whole structural tag (`{"type": "structural_tag", ...}`, the legacy form). */
  format: unknown;
  accepted: string[];
  rejected: string[];
  /** [output xgrammar accepts, words docs/compatibility.md uses to say why tagmask rejects it]. */
  stricter?: Array<[string, string]>;
  /**
   * xgrammar loads this tag and tagmask refuses it: [words of tagmask's error, words of
   * docs/compatibility.md or docs/json-schema.md that say so]. The outputs are then not checked.
   */
  refusedHere?: [string, string];
}

/** A structural tag xgrammar refuses to load: tagmask refuses it too, with these words in the error. */
export interface RefusedCase {
  name: string;
  format: unknown;
  error: string;
}

/** An EBNF grammar (start rule `root`) with outputs, as xgrammar's EBNF tests give them. */
export interface EbnfCase {
  name: string;
  grammar: string;
  /** The start rule when not `root` (xgrammar's `root_rule_name`). */
  root?: string;
  accepted: string[];
  rejected: string[];
  stricter?: Array<[string, string]>;
}

/**
 * An EBNF grammar xgrammar refuses: tagmask refuses it too, with `error` in its message, or
 * (error null) reads it as llama.cpp does, and `why` is the words of docs/compatibility.md that
 * say so.
 */
export interface EbnfErrorCase {
  name: string;
  grammar: string;
  error: string | null;
  why?: string;
}

export const str = (value: string) => ({ type: "const_string", value });
export const json = (schema: unknown, extra: Record<string, unknown> = {}) => ({ type: "json_schema", json_schema: schema, ...extra });
export const tag = (begin: unknown, content: unknown, end: unknown) => ({ type: "tag", begin, content, end });
export const anyText = (extra: Record<string, unknown> = {}) => ({ type: "any_text", ...extra });
export const regex = (pattern: string) => ({ type: "regex", pattern });
export const seq = (...elements: unknown[]) => ({ type: "sequence", elements });
export const or = (...elements: unknown[]) => ({ type: "or", elements });
export const obj = (properties: Record<string, unknown>, required: string[] = Object.keys(properties), extra: Record<string, unknown> = {}) =>
  ({ type: "object", properties, required, ...extra });
