/**
 * The regex front end: ECMAScript patterns to grammar IR. See docs/regex-and-ebnf.md for the
 * exact dialect (full-match, code points as with the `u` flag) and what is refused.
 */
import type { IrExpr } from "../ir.js";
import { parseRegex } from "./parser.js";

/**
 * Lowers an ECMAScript regular expression to an IR expression matching exactly the strings the
 * pattern matches in full, as `new RegExp("^(?:" + pattern + ")$", "u")` would. A leading `^` and
 * trailing `$` are accepted and change nothing. Throws a GrammarError whose `position` is the
 * 0-based UTF-16 offset of the problem for syntax errors and for features a grammar cannot
 * express (back-references, look-around, `\b`, anchors inside the pattern, inline flags).
 */
export function regexToIr(pattern: string): IrExpr {
  return parseRegex(pattern);
}
