/**
 * xgrammar's own structural-tag tests, case by case (test/format/xgrammar-suite/, one data module
 * per peer test file): each structural tag loads here and gives xgrammar's verdict on every output
 * its test checks, by the reference recognizer; a tag xgrammar refuses at load is refused here too,
 * with a typed error naming where. Where xgrammar is looser on purpose-free grounds, the row's
 * `stricter` outputs are rejected here and docs/compatibility.md says why.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TagmaskError } from "../../lib/errors.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { parseStructuralTag } from "../../lib/format/parse.js";
import type { Format, StructuralTag } from "../../lib/format/types.js";
import type { RefusedCase, TagCase } from "./xgrammar-suite/cases.js";
import { CONVERTER_CASES, CONVERTER_LOADS } from "./xgrammar-suite/converter.js";
import { CONVERTER_REFUSED } from "./xgrammar-suite/converter-refused.js";

const compatibility = readFileSync(new URL("../../docs/compatibility.md", import.meta.url), "utf8");

function load(format: unknown) {
  return lowerFormat(typeof format === "string" ? parseStructuralTag(format) : (format as StructuralTag | Format));
}

function verdictTable(cases: TagCase[]) {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    if (c.refusedHere) {
      const [error, why] = c.refusedHere;
      expect(() => load(c.format)).toThrow(error);
      expect(compatibility, "docs/compatibility.md says why").toContain(why);
      return;
    }
    const grammar = load(c.format);
    for (const s of c.accepted) expect(isMatch(grammar, s), `accepted ${JSON.stringify(s)}`).toBe(true);
    for (const s of c.rejected) expect(isMatch(grammar, s), `rejected ${JSON.stringify(s)}`).toBe(false);
    for (const [s, why] of c.stricter ?? []) {
      expect(isMatch(grammar, s), `stricter than xgrammar ${JSON.stringify(s)}`).toBe(false);
      expect(compatibility, "docs/compatibility.md says why").toContain(why);
    }
  });
}

function refusalTable(cases: RefusedCase[]) {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    let error: unknown = null;
    try {
      load(c.format);
    } catch (e) {
      error = e;
    }
    expect(error, "refused with a typed error").toBeInstanceOf(TagmaskError);
    expect((error as Error).message).toContain(c.error);
  });
}

describe("test_structural_tag_converter.py", () => {
  describe("verdicts", () => verdictTable(CONVERTER_CASES));
  describe("refused at load", () => refusalTable(CONVERTER_REFUSED));
  it.each(CONVERTER_LOADS)("loads: %s", (_name, format) => {
    expect(load(format).rules.length).toBeGreaterThan(0);
  });
});
