/**
 * Golden IR of representative patterns, in the printer's notation: literals merged, groups
 * flattened, lazy quantifiers read as greedy, large counted repeats kept as one repeat node.
 */
import { describe, expect, it } from "vitest";
import { printExpr } from "../../../lib/compile/ir.js";
import { regexToIr } from "../../../lib/compile/regex/index.js";

const GOLDEN: Array<[string, string]> = [
  ["abc", '"abc"'],
  ["^a|b$", '"a" | "b"'],
  ["a.c", '"a" [^\\u{a}\\u{d}\u2028-\u2029] "c"'],
  ["[^a-z]+", "[^a-z]+"],
  ["\\d{2,4}", "[0-9]{2,4}"],
  ["(?<x>ab)*?", '"ab"*'],
  ["\\uD83D\\uDE00", '"😀"'],
  ["[\\w-]+", "[\\-0-9A-Z_a-z]+"],
  ["\\s", "[\\u{9}-\\u{d} \u00a0\u1680\u2000-\u200a\u2028-\u2029\u202f\u205f\u3000\ufeff]"],
  ["[]", "never"],
  ["[^]", "[\\u{0}-\u{10ffff}]"],
  ["a{0}b", '"b"'],
  ["a|", '"a" | ""'],
  ["(a|b)c", '("a" | "b") "c"'],
  ["ab*c", '"a" "b"* "c"'],
  ["a{2,}b{0,100000}?", '"a"{2,} "b"{0,100000}'],
  ["\\u{1F600}|é", '"😀" | "é"'],
  ['\\x00\\t\\n"', '"\\x00\\t\\n\\""'],
  ['[\\u0000-\\u001f"\\\\]', '[\\u{0}-\\u{1f}"\\\\]'],
  ["x(?:y|z)+", '"x" ("y" | "z")+'],
  ["\\uD800", "never"],
  ["[^\\n]", "[^\\u{a}]"],
  ["-?(0|[1-9]\\d*)", '"-"? ("0" | [1-9] [0-9]*)'],
  ["\\cJ\\x41\\u{42}\\/", '"\\nAB/"'],
];

describe("regexToIr golden IR", () => {
  it.each(GOLDEN)("%s", (pattern, printed) => {
    expect(printExpr(regexToIr(pattern))).toBe(printed);
  });
});

describe("regexToIr on large patterns", () => {
  it("merges a 200 000-character literal into one bytes node", () => {
    const e = regexToIr("ab".repeat(100_000));
    expect(e.kind).toBe("bytes");
    expect(e.kind === "bytes" && e.bytes.length).toBe(200_000);
  });

  it("accepts 256 nested groups and refuses 257 with a position", () => {
    expect(printExpr(regexToIr(`${"(".repeat(256)}a${")".repeat(256)}`))).toBe('"a"');
    expect(() => regexToIr(`${"(?:".repeat(257)}a${")".repeat(257)}`)).toThrow(/position 768: groups are nested more than 256 deep/);
  });
});
