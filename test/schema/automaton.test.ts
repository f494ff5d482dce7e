import { describe, expect, it } from "vitest";
import { AutomatonTooLarge, complement, DfaBuilder, dfaKey, dfaMatches, dfaOfStrings, intersect, isEmpty, union, withLength, type Dfa } from "../../lib/compile/json-schema/automaton.js";
import { minimize } from "../../lib/compile/json-schema/minimize.js";
import { regexToDfa, RegexUnsupported } from "../../lib/compile/json-schema/regex.js";
import { boundAtom, equalAtom, multipleOfSet, numDfa, NUM_INT, numAnd, numNot, type NumSet } from "../../lib/compile/json-schema/numbers.js";

/** Patterns checked against RegExp (unicode mode, unanchored search) on sample strings. */
const patterns: Array<[string, string[]]> = [
  ["^a+$", ["", "a", "aa", "ab", "ba"]],
  ["a", ["", "a", "xa", "bbb", "xax"]],
  ["^[a-z]{2,3}$", ["a", "ab", "abc", "abcd", "aB"]],
  ["^\\d+(\\.\\d+)?$", ["1", "1.5", "1.", ".5", "12.34", "x"]],
  ["^(foo|bar)baz$", ["foobaz", "barbaz", "baz", "foobarbaz"]],
  ["^[^abc]*$", ["", "def", "dad", "é😀"]],
  ["x$", ["x", "ax", "xa", ""]],
  ["^a|b$", ["a", "ab", "ba", "cb", "c", "xay"]],
  ["^\\w+@\\w+\\.com$", ["a@b.com", "a@b.org", "@b.com"]],
  ["^.$", ["a", "\n", "😀", "ab"]],
  ["^\\S+$", ["abc", "a b", ""]],
  ["[\\u0041-\\u005A]", ["abc", "aBc"]],
  ["^(?:ab)*c?$", ["", "ab", "abab", "ababc", "aba", "c"]],
  ["^\\p{L}+$", ["a", "1", "é", "aé1"]],
  ["^\\P{Lu}$", ["a", "A", "1"]],
  ["^a{0,2}b{2}$", ["bb", "abb", "aabb", "aaabb", "b"]],
  ["^[\\d-]+$", ["1-2", "--", "a"]],
];

describe("regexToDfa agrees with RegExp (u flag, search)", () => {
  for (const [pattern, samples] of patterns) {
    it(pattern, () => {
      const dfa = regexToDfa(pattern);
      const re = new RegExp(pattern, "u");
      for (const s of samples) expect([s, dfaMatches(dfa, s)]).toEqual([s, re.test(s)]);
    });
  }
  it.each([
    [".*\\{\\{.+}}.*", ["{{a}}", "x{{ab}}y", "{a}"]],
    ["^a{b$", ["a{b", "ab"]],
    ["^[\\w\\-.]+\\'$", ["a-b.'", "a'"]],
  ])("Annex B literals outside Unicode mode: %s", (pattern, samples) => {
    const dfa = regexToDfa(pattern);
    const re = new RegExp(pattern);
    for (const x of samples) expect([x, dfaMatches(dfa, x)]).toEqual([x, re.test(x)]);
  });
  it.each([["(?=a)"], ["\\1"], ["\\bfoo"], ["\\p{Nope}"], ["(a"], ["a)"]])("refuses %s", (p) => {
    expect(() => regexToDfa(p)).toThrow(RegexUnsupported);
  });
});

describe("regexToDfa's step budget", () => {
  /** The refusal's detail; "" when the pattern compiles. */
  const refusal = (pattern: string): string => {
    try {
      regexToDfa(pattern);
      return "";
    } catch (err) {
      expect(err).toBeInstanceOf(AutomatonTooLarge);
      return (err as AutomatonTooLarge).detail;
    }
  };
  it.each([["^(\\w+\\s?){1,1000}$"], ["^(\\w+\\s?){1,100}$"], ["^(\\S+\\s?){1,500}$"]])(
    "%s: DFA states holding hundreds of NFA states are refused by the steps they cost, not the states they reach",
    (pattern) => expect(refusal(pattern)).toBe("its subset construction passed 4000000 steps"),
  );
  it.each([["^(a|b)*a(a|b){20}$"], ["^.*a.{18}$"]])("%s: many small states are refused by their count", (pattern) => {
    expect(refusal(pattern)).toBe("over 20000 states");
  });
  it.each([["^.*a.{12}$", 8192], ["^(?:\\S+\\s+){0,49}\\S+$", 100], ["^[a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{56}|[a-fA-F0-9]{64}|[a-fA-F0-9]{96}|[a-fA-F0-9]{128}$", 41]])(
    "%s: the costliest patterns that fit (JSONSchemaBench's among them) still compile",
    (pattern, states) => {
      const dfa = regexToDfa(pattern);
      expect(dfa.accept.length).toBe(states);
      expect(dfaMatches(dfa, "a".repeat(13))).toBe(new RegExp(pattern, "u").test("a".repeat(13)));
    },
  );
});

describe("automaton operations", () => {
  it("intersects, complements and counts", () => {
    const ab = dfaOfStrings(["a", "ab", "abc"]);
    expect(dfaMatches(ab, "ab")).toBe(true);
    expect(dfaMatches(complement(ab), "ab")).toBe(false);
    expect(dfaMatches(complement(ab), "abcd")).toBe(true);
    const short = withLength(regexToDfa("^[a-c]*$"), 0, 2);
    expect(dfaMatches(intersect(ab, short), "abc")).toBe(false);
    expect(dfaMatches(intersect(ab, short), "ab")).toBe(true);
    expect(isEmpty(intersect(dfaOfStrings(["x"]), ab))).toBe(true);
  });

  it("memoizes products by language: equal operands from different objects give the same result", () => {
    const x1 = dfaOfStrings(["ab", "cd"]);
    const x2 = union(dfaOfStrings(["ab"]), dfaOfStrings(["cd"]));
    expect(x2).not.toBe(x1);
    const y = regexToDfa("^[a-c]+$");
    const r = intersect(x1, y);
    expect(intersect(x2, y)).toBe(r);
    expect(dfaMatches(r, "ab")).toBe(true);
    expect(dfaMatches(r, "cd")).toBe(false);
    expect(dfaKey(intersect(y, x1))).toBe(dfaKey(r));
  });

  it("holds a chain of products to the budget of its inputs, not of the previous result", () => {
    // "Contains letter i" for 16 letters: 2^k states after k products. Each step is at most 8×
    // the previous result, so a budget relative to the operands let the chain grow without end.
    let all = regexToDfa("^[a-p]*$");
    let k = 0;
    const grow = (): void => {
      for (; k < 16; k++) all = intersect(all, regexToDfa(`^[a-p]*${String.fromCharCode(0x61 + k)}[a-p]*$`));
    };
    expect(grow).toThrow(AutomatonTooLarge);
    expect(k).toBe(14);
    expect(all.accept.length).toBe(2 ** 14);
    // An automaton built from the schema's text that is over the budget (a literal set) keeps a
    // budget of a few times its size through a chain of products.
    const words = Array.from({ length: 6000 }, (_, i) => `w${i.toString(36)}-${(i * 7919).toString(36)}`);
    let big = dfaOfStrings(words);
    expect(big.accept.length).toBeGreaterThan(20000);
    big = intersect(intersect(big, regexToDfa("^w")), regexToDfa("-"));
    expect(dfaMatches(big, words[4321]!)).toBe(true);
    expect(dfaMatches(big, "w-")).toBe(false);
  });
});

/** "a" repeated a multiple of k times, written with 2k states (state i and i + k behave alike). */
function doubledCounter(k: number): Dfa {
  const b = new DfaBuilder();
  const states = Array.from({ length: 2 * k }, (_, i) => b.addState(i % k === 0));
  for (let i = 0; i < 2 * k; i++) b.addEdge(states[i]!, [[0x61, 0x61]], states[(i + 1) % (2 * k)]!);
  return b.build(states[0]!);
}

describe("minimize", () => {
  // 2k states: k = 20 goes through Moore's refinement (≤ 64 states), k = 50 through Hopcroft's.
  it.each([20, 50])("merges equivalent states: a counter mod %i written with twice the states", (k) => {
    const m = minimize(doubledCounter(k));
    expect(m.accept.length).toBe(k);
    for (let n = 0; n <= 3 * k; n++) expect(dfaMatches(m, "a".repeat(n))).toBe(n % k === 0);
    expect(minimize(m)).toBe(m);
  });

  it("gives the same canonical automaton through either refinement", () => {
    // The same language, once with 20 states and once with 100 (five copies of a 20-cycle).
    const b = new DfaBuilder();
    const states = Array.from({ length: 100 }, (_, i) => b.addState(i % 20 === 0));
    for (let i = 0; i < 100; i++) b.addEdge(states[i]!, [[0x61, 0x61]], states[(i + 1) % 100]!);
    expect(dfaKey(b.build(states[0]!))).toBe(dfaKey(doubledCounter(20)));
  });
});

const accepts = (s: NumSet, text: string): boolean => s.kind !== "none" && (s.kind === "all" || dfaMatches(numDfa(s), text));

describe("numeric automata (double semantics)", () => {
  const cases: Array<[string, NumSet, string[], string[]]> = [
    ["minimum 1.1", boundAtom(1.1, "minimum"), ["1.1", "2", "1.10", "1e+21", "100"], ["1.09", "0", "-5", "1e-7", "1.0999999999999999999"]],
    ["maximum 3", boundAtom(3, "maximum"), ["3", "3.0", "-1e+30", "2.9", "-0", "1e-7"], ["3.0000000000000000001", "3.000000000000001", "3.1", "4", "1e+21"]],
    ["exclusiveMaximum 3", boundAtom(3, "exclusiveMaximum"), ["2.9", "2.9999999999999995"], ["3", "3.0", "2.99999999999999999999"]],
    ["exclusiveMinimum 0", boundAtom(0, "exclusiveMinimum"), ["1", "0.0000000000000000000001", "1e-300"], ["0", "-0", "-1", "0.0"]],
    ["maximum 2^64 (shortest decimal 18446744073709552000)", boundAtom(18446744073709551615, "maximum"), ["18446744073709552000", "18446744073709551600", "1"], ["18446744073709552001", "18446744073709555000"]],
    ["minimum -2", boundAtom(-2, "minimum"), ["-2", "-1.9999", "0", "5"], ["-2.0001", "-3"]],
    ["integer", NUM_INT, ["0", "-7", "1.0", "1.2345678910111213e+52", "1e308", "123456789012345678901"], ["1.5", "1e-7", "0.1", "1e+309"]],
    ["multipleOf 1.5", multipleOfSet(1.5), ["0", "4.5", "-3", "3.0"], ["35", "1", "0.75"]],
    ["multipleOf 0.0001", multipleOfSet(0.0001), ["0.0075", "1"], ["0.00751"]],
    ["const 0.1", equalAtom(0.1), ["0.1", "0.10"], ["0.2", "0.11", "0.1000000000000000055", "0.1000000000000001"]],
    ["not integer (only where decimal and double agree)", numNot(NUM_INT), ["1.5", "-0.25", "1e-7"], ["1", "1.0", "1e+22", "1.0000000000000001", "349844889557734736465.416935793905"]],
    ["integer in [1,10]", numAnd(NUM_INT, numAnd(boundAtom(1, "minimum"), boundAtom(10, "maximum"))), ["1", "10", "5"], ["0", "11", "5.5", "-1"]],
    ["not (x <= 1) stays away from rounding", numNot(boundAtom(1, "maximum")), ["1.5", "2"], ["1", "1.00000000000000001"]],
  ];
  for (const [name, set, good, bad] of cases) {
    it(name, () => {
      for (const t of good) expect([t, accepts(set, t)]).toEqual([t, true]);
      for (const t of bad) expect([t, accepts(set, t)]).toEqual([t, false]);
    });
  }
});
