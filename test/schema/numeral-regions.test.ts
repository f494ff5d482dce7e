/**
 * The numeral-region automata are stored precomputed (lib/compile/json-schema/numeral-regions.data.ts)
 * so that a process's first number schema does not build them: the stored ones must be exactly
 * what the definitions build. When a definition in numerals.ts changes, this fails until
 * `npm run build:ts && node scripts/generate-numeral-regions.mjs` rewrites the data file.
 */
import { describe, expect, it } from "vitest";
import { dfaFromKey, dfaKey, dfaMatches } from "../../lib/compile/json-schema/automaton.js";
import { NUMERAL_REGION_AUTOMATA } from "../../lib/compile/json-schema/numeral-regions.data.js";
import {
  ALL_REGIONS, buildRegionsDfa, LARGE_NEG, LARGE_POS, PLAIN, PLAIN_WIDE, regionsDfa, SMALL_NEG, SMALL_POS, STORED_REGION_MASKS,
} from "../../lib/compile/json-schema/numerals.js";

describe("stored numeral-region automata", () => {
  it.each(STORED_REGION_MASKS)("mask %i equals its definition", (mask) => {
    const stored = NUMERAL_REGION_AUTOMATA[mask];
    expect(stored, `numeral-regions.data.ts lacks mask ${mask}: regenerate it`).toBeDefined();
    expect(stored).toBe(dfaKey(buildRegionsDfa(mask)));
    // The text reads back to the same automaton.
    expect(dfaKey(dfaFromKey(stored!))).toBe(stored);
  });

  it("stores exactly the masks it is asked for", () => {
    expect(Object.keys(NUMERAL_REGION_AUTOMATA).map(Number).sort((a, b) => a - b)).toEqual([...STORED_REGION_MASKS].sort((a, b) => a - b));
  });

  it.each([
    [PLAIN, "123.5", true], [PLAIN, "1234567890123456", false], [PLAIN_WIDE, "1234567890123456", true],
    [LARGE_POS, "1e21", true], [LARGE_NEG, "-1e21", true], [SMALL_POS, "1e-7", true], [SMALL_NEG, "-1.5e-300", true],
    [PLAIN | PLAIN_WIDE, "-0.000", true], [PLAIN | PLAIN_WIDE, "1e5", false], [ALL_REGIONS, "1e5", false],
  ])("region %i on %s: %s", (mask, text, expected) => {
    expect(dfaMatches(regionsDfa(mask), text)).toBe(expected);
  });

  it("unions of masks not stored equal the unions of their regions", () => {
    for (const mask of [PLAIN | LARGE_POS, PLAIN | PLAIN_WIDE | SMALL_NEG, LARGE_NEG | SMALL_POS | SMALL_NEG]) {
      expect(dfaKey(regionsDfa(mask))).toBe(dfaKey(buildRegionsDfa(mask)));
    }
  });
});
