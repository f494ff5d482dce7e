/**
 * The lowering cache shares the self-contained member and item schemas of a `json_schema` format
 * (lib/compile/json-schema/compiler.ts, `sharedValue`): each is lowered standalone, as a format of
 * its own, and imported. These tests hold that to its promise: the language is the one compiled
 * in place (the JSON Schema Test Suite's instances, with the cache and without), refusals name the
 * same path either way, and what refers elsewhere or depends on its context is not shared.
 */
import { describe, expect, it } from "vitest";
import { printGrammar, type IrGrammar } from "../../lib/compile/ir.js";
import { clearLoweringCache, loweringCacheStats, lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import type { Format } from "../../lib/format/types.js";
import { readSuiteFile, spacedJson, suiteFiles } from "../schema/suite.js";

const format = (schema: unknown, extra: Record<string, unknown> = {}): Format => ({ type: "json_schema", json_schema: schema, ...extra }) as Format;

/** The grammar, or the refusal's class and message. */
function lowered(f: Format, cache: boolean): IrGrammar | string {
  try {
    return lowerFormat(f, { cache, undeclared: "allow" });
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

/**
 * A suite schema as the member `v` of an object (its `$schema` moved to the root), so that the
 * schema itself is a member schema the compiler may share; the instance `{"v": data}`.
 */
function asMember(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return { type: "object", properties: { v: schema }, required: ["v"] };
  const { $schema, ...rest } = schema as Record<string, unknown>;
  return { ...($schema === undefined ? {} : { $schema }), type: "object", properties: { v: rest }, required: ["v"] };
}

describe("member schemas shared through the lowering cache", () => {
  const files = suiteFiles().filter((f) => !f.startsWith("optional/"));
  // Any order changes only how objects are written: the files about objects.
  const objectFiles = files.filter((f) => /propert|required|dependent|unevaluated/i.test(f));
  for (const options of [{}, { any_order: true }]) {
    it(`accepts the same instances as the in-place compile over the JSON Schema Test Suite (2020-12)${options.any_order ? ", any order" : ""}`, () => {
      let compared = 0;
      let sharing = 0;
      for (const file of options.any_order ? objectFiles : files) {
        for (const group of readSuiteFile(file)) {
          const f = format(asMember(group.schema), options);
          clearLoweringCache();
          const before = loweringCacheStats();
          const shared = lowered(f, true);
          const after = loweringCacheStats();
          // Only the format itself went through the cache: the grammar is the in-place one.
          if (after.misses + after.hits - before.misses - before.hits === 1) continue;
          sharing++;
          const inPlace = lowered(f, false);
          if (typeof shared === "string" || typeof inPlace === "string") {
            expect(shared, `${file}: ${group.description}`).toEqual(inPlace);
            continue;
          }
          for (const t of group.tests) {
            for (const text of [JSON.stringify({ v: t.data }), spacedJson({ v: t.data })]) {
              expect(isMatch(shared, text), `${file}: ${group.description}: ${text}`).toBe(isMatch(inPlace, text));
              compared++;
            }
          }
        }
      }
      // Schemas lowered on their own (the others are small, or refer elsewhere), and instances.
      expect(sharing).toBeGreaterThan(options.any_order ? 40 : 150);
      expect(compared).toBeGreaterThan(options.any_order ? 200 : 800);
    });
  }

  it("lowers a member schema once, shared with the argument that holds it alone", () => {
    clearLoweringCache();
    const range = { type: "object", properties: { from: { type: "string" }, to: { type: "string" } }, required: ["from"] };
    const whole = { type: "object", properties: { a: range, b: { type: "array", items: range } }, required: ["a"] };
    const before = loweringCacheStats();
    lowerFormat({ type: "sequence", elements: [format(range), format(whole)] });
    const after = loweringCacheStats();
    // range (miss), whole (miss), whole's `a` (hit), `b` (miss; its items: hit).
    expect(after.misses - before.misses).toBe(3);
    expect(after.hits - before.hits).toBe(2);
    const text = printGrammar(lowerFormat({ type: "sequence", elements: [format(range), format(whole)] }));
    expect(text.match(/"\\"from\\""/g)?.length).toBe(1);
  });

  it("compiles in place what refers elsewhere or sets a base", () => {
    const member = { type: "object", properties: { x: { type: "integer" } }, required: ["x"] };
    for (const schema of [
      { $defs: { m: member }, type: "object", properties: { a: { $ref: "#/$defs/m" }, b: { ...member, $comment: "c" } } },
      { type: "object", properties: { a: { ...member, $id: "https://example.com/m" } } },
    ]) {
      clearLoweringCache();
      const before = loweringCacheStats();
      lowerFormat(format(schema));
      // The format alone: nothing inside it was a fragment of its own.
      expect(loweringCacheStats().misses - before.misses, JSON.stringify(schema)).toBe(1);
      expect(loweringCacheStats().hits - before.hits).toBe(0);
    }
  });

  it("compiles in place a member whose schema meets other schemas of the object", () => {
    const member = { type: "object", properties: { x: { type: "integer" } }, required: ["x"] };
    clearLoweringCache();
    const before = loweringCacheStats();
    // `a` is both a declared member and matches the pattern: its value must satisfy both.
    const g = lowerFormat(format({ type: "object", properties: { a: member }, patternProperties: { "^a": { required: ["y"] } } }), { undeclared: "allow" });
    expect(loweringCacheStats().misses - before.misses).toBe(1);
    expect(isMatch(g, '{"a": {"x": 1, "y": 2}}')).toBe(true);
    expect(isMatch(g, '{"a": {"x": 1}}')).toBe(false);
  });

  it("lowers a member schema under the draft its root names", () => {
    // The tuple form of `items` and `additionalItems` exist in draft 2019-09 only.
    const member = { type: "array", items: [{ type: "integer" }], additionalItems: false };
    const schema = { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object", properties: { a: member }, required: ["a"] };
    clearLoweringCache();
    const before = loweringCacheStats();
    const g = lowerFormat(format(schema), { undeclared: "allow" });
    expect(loweringCacheStats().misses - before.misses).toBe(2);
    expect(isMatch(g, '{"a": [1]}')).toBe(true);
    expect(isMatch(g, '{"a": [1, "x"]}')).toBe(false);
  });

  it("asks a shared member's own fragment whether the member allows any value", () => {
    // Four JSON values, so the member is lowered on its own; no string is both ≥ 3 and ≤ 1 long.
    const none = { type: "string", minLength: 3, maxLength: 1 };
    for (const required of [["a", "b"], ["b"]]) {
      const schema = { type: "object", properties: { a: none, b: { type: "integer" } }, required };
      clearLoweringCache();
      const before = loweringCacheStats();
      const shared = lowerFormat(format(schema));
      expect(loweringCacheStats().misses - before.misses).toBe(2);
      // A required member that allows no value: the object allows none; an optional one is left out.
      const inPlace = lowerFormat(format(schema), { cache: false });
      expect(printGrammar(shared)).toBe(printGrammar(inPlace));
      expect(printGrammar(shared).includes('"a"'), JSON.stringify(required)).toBe(false);
      expect(isMatch(shared, '{"b": 1}')).toBe(required.length === 1);
    }
  });

  it("reports a refusal inside a member schema at its path in the whole schema", () => {
    const schema = { type: "object", properties: { p: { type: "string", minLength: 1, pattern: "(?<=a)b" } } };
    const shared = lowered(format(schema), true);
    expect(shared).toEqual(lowered(format(schema), false));
    expect(shared).toMatch(/^SchemaError: #\/properties\/p\/pattern: /);
    // Again, from a cache that holds no failure.
    expect(lowered(format(schema), true)).toEqual(shared);
  });
});
