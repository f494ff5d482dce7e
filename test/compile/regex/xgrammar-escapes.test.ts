/**
 * Regex escapes xgrammar reads beyond ECMAScript: `\a` (bell, U+0007) and `\e` (escape, U+001B),
 * in and out of classes. JavaScript refuses both in Unicode mode, so they are checked here
 * against their meaning rather than against RegExp.
 */
import { describe, expect, it } from "vitest";
import { isMatch } from "../../../lib/compile/recognizer.js";
import { regexToIr } from "../../../lib/compile/regex/index.js";

const match = (pattern: string, s: string) => isMatch({ rules: [{ name: "root", body: regexToIr(pattern) }], root: 0 }, s);

describe("xgrammar's regex escapes", () => {
  it.each([
    ["\\a", "\u0007", ["a", "\\a", ""]],
    ["\\e", "\u001b", ["e", "\\e"]],
    ["\\e\\[[0-9]+m", "\u001b[31m", ["[31m", "\u001b[m"]],
    ["[\\a\\e]+", "\u0007\u001b\u0007", ["ae"]],
    ["[^\\e]", "x", ["\u001b"]],
  ])("%s", (pattern, matching, rejected) => {
    expect(match(pattern, matching)).toBe(true);
    for (const s of rejected) expect(match(pattern, s), JSON.stringify(s)).toBe(false);
    // JavaScript itself does not read them.
    expect(() => new RegExp(pattern, "u")).toThrow(SyntaxError);
  });
});
