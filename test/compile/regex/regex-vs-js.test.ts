/**
 * The regex front end against JavaScript's own RegExp: for every pattern, the IR (decided by the
 * reference recognizer) and `new RegExp("^(?:" + pattern + ")$", "u")` must agree on generated
 * strings — samples of the IR's language, mutations of them, and a pool of ASCII and non-ASCII
 * characters and pairs. Each pattern must see both matching and non-matching inputs unless its
 * language is empty or everything.
 */
import { describe, expect, it } from "vitest";
import { isMatch } from "../../../lib/compile/recognizer.js";
import { validateGrammar, type IrGrammar } from "../../../lib/compile/ir.js";
import { regexToIr } from "../../../lib/compile/regex/index.js";
import { PATTERNS, inputsFor } from "./patterns.js";

describe("regexToIr agrees with JavaScript RegExp (full match, u flag)", () => {
  it("has at least 100 patterns", () => {
    expect(PATTERNS.length).toBeGreaterThanOrEqual(100);
  });

  it.each(PATTERNS.map(([p, lang], i) => [p, lang ?? "some", i] as const))("%s", (pattern, lang, i) => {
    const expr = regexToIr(pattern);
    const grammar: IrGrammar = { rules: [{ name: "root", body: expr }], root: 0 };
    validateGrammar(grammar);
    const js = new RegExp(`^(?:${pattern})$`, "u");
    let matched = 0;
    let rejected = 0;
    const disagreements: string[] = [];
    for (const input of inputsFor(pattern, expr, 1000 + i)) {
      const expected = js.test(input);
      if (isMatch(grammar, input) !== expected) disagreements.push(JSON.stringify(input));
      if (expected) matched++;
      else rejected++;
    }
    expect(disagreements).toEqual([]);
    if (lang !== "none") expect(matched).toBeGreaterThan(0);
    if (lang !== "all") expect(rejected).toBeGreaterThan(0);
  });
});
