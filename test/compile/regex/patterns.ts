/**
 * The regex patterns of the agreement tests, and the inputs tried on each: samples of the IR's
 * language, mutations of them, the character pool, pairs of pool characters and the pattern's
 * own characters. Shared by the RegExp comparison and the GBNF (node-llama-cpp) comparison.
 */
import type { IrExpr } from "../../../lib/compile/ir.js";
import { rng } from "../../helpers/random.js";
import { POOL, mutate, sampleExpr } from "./sample.js";

/** [pattern, what its language is when not "some strings"]. */
export const PATTERNS: Array<[string, ("none" | "all")?]> = [
  // literals, alternation, anchors at the ends
  ["abc"], ["a|b|c"], ["ab|cd|"], ["^abc$"], ["^a|b$"], ["yes|no|maybe"], ["(true|false|null)"], ["a|"], ["|"], [""],
  ["^$"], ["^"], ["$"], ["é+"], ["😀+"], ["中文|Жж"],
  // anchors at the edge of a whole alternative restate the full match
  ["^$|^https://x\\.com/"], ["(a$|b)"], ["(^a|b)c"], ["^^a"], ["a$|b$"], ["((^a))b"], ["^(a|^b)$"], ["x|(y$)"],
  // dot and classes
  ["a.c"], [".*"], [".+"], ["[.]"], ["a.b.c"], ["[abc]+"], ["[^abc]*"], ["[a-z0-9_]+"], ["[^a-z]"], ["[-a]"], ["[a-]"],
  ["[\\]\\\\]+"], ["[\\-]"], ["[\\b]"], ["[^]"], ["[^]*", "all"], ["[]", "none"], ["[]a|b"], ["[é-ü]+"], ["[😀-🙏]"],
  ["[\\u{1F600}-\\u{1F64F}]+"], ["[\\u{1F600}\\u{1F601}]"], ["[\\x00-\\x1f]+"], ["[^\\x00-\\x7f]+"],
  ["[\\u0080-\\u07ff]+"], ["[\\u0800-\\uffff]+"], ["[\\u{10000}-\\u{10ffff}]+"], ["[a-c][d-f]?[g-i]*"],
  ["[^\\n]*\\n"], ["[\\s\\S]"], ["[\\w\\W]{2}"], ["[^\\w\\s]+"], ["[\\d\\s]+"], ["[^\\d\\s]+"], ["[\\w-]+"],
  // class escapes
  ["\\d+"], ["\\D+"], ["\\w+"], ["\\W*"], ["\\s+"], ["\\S+"], ["\\s*,\\s*"],
  // character escapes
  ["\\t\\n\\r\\f\\v\\0"], ["\\x41\\x42"], ["\\u00e9+"], ["\\u{1F600}"], ["\\uD83D\\uDE00"], ["\\cJ\\cM"], ["\\ca\\cZ"],
  ["\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/\\^\\$\\\\"], ["\\u2028|\\u2029"], ["\\/\\/.*"],
  // quantifiers, lazy forms, groups
  ["a{3}"], ["a{2,}"], ["a{2,4}"], ["a{0,2}b"], ["(ab){2}"], ["(ab|c){1,3}"], ["a*?b"], ["a+?"], ["a??"], ["a{2,3}?"],
  ["(?:ab)+"], ["(?<word>\\w+)-\\d"], ["(a|b)*c"], ["((a|b)c)*"], ["()"], ["(|a)"], ["x(y(z)?)*"], ["a{0}"], ["a{0}b"],
  ["(a*)*"], ["(a*)+b"], ["(a?){3}"], ["(?:a|b?)+"], ["a{1,}b{0,}"], ["(?:(?:a))"], ["(ab)+|c*"], ["(?:a{1,2}){2,3}"],
  ["(a|ab)(c|bcd)(d*)"], ["[ab]{0,100000}"], ["x{5,100000}"], ["(\\r\\n|\\n)+"],
  // Unicode property escapes
  ["\\p{L}+"], ["\\p{Lu}\\p{Ll}*"], ["\\p{Nd}+"], ["\\P{L}+"], ["\\p{Script=Latin}+"], ["\\p{sc=Han}+"],
  ["\\p{Script=Cyrillic}+"], ["[\\p{L}\\p{N}]+"], ["[^\\p{P}]+"], ["\\p{Z}"], ["\\p{S}+"], ["[^\\p{L}\\d]"],
  ["\\p{General_Category=Decimal_Number}"], ["\\p{White_Space}+"],
  // realistic patterns
  ["\\d{4}-\\d{2}-\\d{2}"], ["[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}"], ["\\+?\\d{1,3}[- ]?\\d{3}[- ]?\\d{4}"],
  ["-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?"], ['"([^"\\\\\\u0000-\\u001f]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*"'],
  ["[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"],
  ["((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)"], ["#([0-9a-fA-F]{3}){1,2}"],
  ["([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d)?"], ["[A-Za-z_$][\\w$]*"], ["\\d{1,3}(,\\d{3})*(\\.\\d+)?"], ["[+-]?\\d+"],
  ["<[a-z]+>[^<]*</[a-z]+>"], ["[A-Z][a-z]+( [A-Z][a-z]+)*"], ["(https?|ftp)://[^\\s/$.?#].[^\\s]*"],
];

/** Code points of the pattern text itself, so mutations try characters the pattern cares about. */
function patternChars(pattern: string): string[] {
  return [...new Set([...pattern].filter((c) => c !== "\\"))];
}

export function inputsFor(pattern: string, expr: IrExpr, seed: number): string[] {
  const rand = rng(seed);
  const extra = patternChars(pattern);
  const out = new Set<string>(["", ...POOL, ...extra]);
  for (let i = 0; i < 40; i++) out.add(pick2(rand));
  const samples: string[] = [];
  for (let i = 0; i < 24; i++) {
    const s = sampleExpr(expr, rand);
    if (s !== undefined) samples.push(s);
  }
  for (const s of samples) {
    out.add(s);
    for (let k = 0; k < 3; k++) out.add(mutate(s, rand, extra));
  }
  return [...out];
}

function pick2(rand: () => number): string {
  const a = POOL[Math.floor(rand() * POOL.length)]!;
  const b = POOL[Math.floor(rand() * POOL.length)]!;
  return a + b;
}
