/**
 * `{"type": "integer", "minimum": lo, "maximum": hi}` is built straight from the digits of the
 * bounds (integer-range.ts); it must be the very automaton and domain of the general route (the
 * integer set intersected with both bound atoms), so the grammars stay as they were.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dfaKey, dfaMatches } from "../../lib/compile/json-schema/automaton.js";
import { integerRangeDfa } from "../../lib/compile/json-schema/integer-range.js";
import { boundAtom, integerRangeSet, NUM_INT, numAnd, numDfa, schemaNumber, type NumSet, type SchemaNumber } from "../../lib/compile/json-schema/numbers.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";

const general = (lo: SchemaNumber, hi: SchemaNumber): NumSet => numAnd(NUM_INT, numAnd(boundAtom(lo, "minimum"), boundAtom(hi, "maximum")));

function expectSame(lo: SchemaNumber, hi: SchemaNumber): void {
  const fast = integerRangeSet(lo, hi);
  const slow = general(lo, hi);
  expect(fast?.kind).toBe("dfa");
  expect(slow.kind).toBe("dfa");
  if (fast?.kind !== "dfa" || slow.kind !== "dfa") return;
  expect([fast.domain, fast.integral]).toEqual([slow.domain, true]);
  expect(dfaKey(numDfa(fast))).toBe(dfaKey(numDfa(slow)));
}

const n = (v: number): SchemaNumber => schemaNumber(v);
const text = (t: string): SchemaNumber => schemaNumber(Number(t), t);

describe("integer ranges built from digits", () => {
  const ranges: Array<[SchemaNumber, SchemaNumber]> = [
    [n(0), n(0)], [n(1), n(1)], [n(0), n(9)], [n(1), n(10)], [n(1), n(1011)], [n(-5), n(5)], [n(-1), n(0)],
    [n(-100), n(-3)], [n(-10), n(-10)], [n(7), n(70)], [n(99), n(100)], [n(100), n(999)], [n(123), n(4567)],
    [n(-999), n(1000)], [n(0), n(2147483647)], [n(-2147483648), n(2147483647)], [n(1), n(999999999999999)],
    [n(-9007199254740991), n(9007199254740991)], [n(1e15), n(1e15 + 7)],
    // Written values a double does not hold (plain comparisons lose their domain there).
    [text("-9223372036854775808"), text("9223372036854775807")], [text("9007199254740993"), text("9007199254741093")],
    [n(0), n(99999999999999999999)],
  ];
  for (const [lo, hi] of ranges) {
    it(`[${lo.value.n}, ${hi.value.n}] equals the general route`, () => expectSame(lo, hi));
  }

  it("random ranges equal the general route", () => {
    const bound = fc.oneof(fc.integer({ min: -2000, max: 2000 }), fc.integer({ min: -1e9, max: 1e9 }), fc.constantFrom(0, 1, -1, 9, 10, 99, 100, -100));
    fc.assert(
      fc.property(bound, bound, (a, b) => {
        expectSame(n(Math.min(a, b)), n(Math.max(a, b)));
      }),
      { numRuns: 60, seed: 12 },
    );
  });

  it("spellings: 1.0 and -0 are integers, leading zeros and fractions are not", () => {
    const dfa = integerRangeDfa(-3n, 12n);
    for (const s of ["0", "-0", "-0.00", "12", "12.0", "-3", "1.000", "7"]) expect([s, dfaMatches(dfa, s)]).toEqual([s, true]);
    for (const s of ["13", "-4", "01", "1.5", "1.", "-", "", "1e1", "00", "+1", "12.01"]) expect([s, dfaMatches(dfa, s)]).toEqual([s, false]);
  });

  it("falls back where the shortcut does not apply", () => {
    expect(integerRangeSet(n(5), n(4))).toBeNull();
    expect(integerRangeSet(n(0.5), n(4))).toBeNull();
    expect(integerRangeSet(n(0), n(1e21))).toBeNull();
  });

  it("a schema with such a range accepts exactly its integers", () => {
    const { grammar } = compileJsonSchema({ type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 1011 } }, required: ["limit"] });
    for (const v of ["1", "1011", "500", "1011.0"]) expect([v, isMatch(grammar, `{"limit": ${v}}`)]).toEqual([v, true]);
    for (const v of ["0", "1012", "-1", "5.5", "1e3"]) expect([v, isMatch(grammar, `{"limit": ${v}}`)]).toEqual([v, false]);
  });
});
