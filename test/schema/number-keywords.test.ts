/**
 * Every numeric keyword at the edges of what a request may carry (0, 2^31 − 1, 2^31, 2^32, 2^53,
 * 1e308, negative, fractional): each value either compiles exactly — the engine takes the grammar,
 * and the numerals around the schema are accepted exactly when the BigInt oracle of
 * decimal-oracle.ts says they satisfy it — or is refused with a SchemaError naming the keyword's
 * path (and, for counts, the accepted range). Then `multipleOf` (issue 13) with large and decimal
 * divisors beside bounds, `enum`, `const`, `not` and unions, instances in exponent form.
 */
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { SchemaError } from "../../lib/errors.js";
import { tinyVocabulary } from "../engine/tiny-vocab.js";
import { inNumeralRegions, numberSatisfies, parseDecimal, sampleNumerals } from "./decimal-oracle.js";

const vocab = tinyVocabulary();
type Schema = { readonly [key: string]: unknown };

/** Compiles the schema as text (numbers as written) and through the engine; the error if refused. */
function compile(schema: Schema): { grammar?: ReturnType<typeof compileJsonSchema>["grammar"]; error?: unknown } {
  try {
    const { grammar } = compileJsonSchema(JSON.stringify(schema));
    compileGrammar(vocab, grammar, { threads: 1 });
    return { grammar };
  } catch (error) {
    return { error };
  }
}

// ---- count keywords --------------------------------------------------------------------------

const COUNT_BASES: Record<string, Schema> = {
  minLength: { type: "string" },
  maxLength: { type: "string" },
  minItems: { type: "array", items: { type: "integer" } },
  maxItems: { type: "array", items: { type: "integer" } },
  minProperties: { type: "object" },
  maxProperties: { type: "object" },
  minContains: { type: "array", contains: { const: 1 } },
  maxContains: { type: "array", contains: { const: 1 }, minContains: 0 },
};
/** [value, whether the strings "ab", [1,1], {"a":1,"b":2} of two units are accepted]; or the error. */
const COUNT_VALUES: Array<[number, "fits" | RegExp]> = [
  [0, "fits"],
  [2, "fits"],
  [2 ** 31 - 1, "fits"],
  [2 ** 31, /expected an integer in \[0, 2147483647\].*got 2147483648/],
  [2 ** 32 - 1, /expected an integer in \[0, 2147483647\].*got 4294967295/],
  [2 ** 32, /expected an integer in \[0, 2147483647\]/],
  [2 ** 53, /expected an integer in \[0, 2147483647\]/],
  [1e308, /expected an integer in \[0, 2147483647\].*got 1e\+308/],
  [-1, /expected a non-negative integer, got -1/],
  [1.5, /expected a non-negative integer, got 1.5/],
];
const TWO_UNITS: Record<string, string> = { Length: '"ab"', Items: "[1,1]", Properties: '{"a":1,"b":2}', Contains: "[1,1]" };

describe("count keywords: the accepted range, or a SchemaError naming the keyword", () => {
  const rows = Object.keys(COUNT_BASES).flatMap((keyword) => COUNT_VALUES.map(([value, outcome]) => [keyword, value, outcome] as const));
  it.each(rows)("%s %d", (keyword, value, outcome) => {
    const schema = { ...COUNT_BASES[keyword], [keyword]: value };
    const { grammar, error } = compile(schema);
    const contains = keyword.endsWith("Contains");
    if (outcome === "fits" && !(contains && value === 2 ** 31 - 1)) {
      expect(error).toBeUndefined();
      // Two units satisfy every min up to 2 and every max from 2.
      const two = TWO_UNITS[keyword.slice(3)]!;
      const satisfied = keyword.startsWith("min") ? value <= 2 : value >= 2;
      expect(isMatch(grammar!, two), two).toBe(satisfied);
      return;
    }
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).message).toContain(`#/${keyword}:`);
    // contains keeps a rule per count: its bound is the rule budget, which the message gives.
    expect((error as SchemaError).message).toMatch(outcome === "fits" ? /at most 409[45] fits/ : outcome);
  });

  it("a contains count past the rule budget names its keyword and what fits beside the other bounds", () => {
    const { error } = compile({ type: "array", contains: { const: 1 }, minContains: 100, maxItems: 100 });
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).message).toMatch(/^#\/minContains: minContains 100 needs more than 4096 grammar rules.*at most 39 fits/);
    expect(compile({ type: "array", contains: { const: 1 }, minContains: 39, maxItems: 100 }).error).toBeUndefined();
  });
});

// ---- bounds and divisors ---------------------------------------------------------------------

/** Whether one of the keywords occurs anywhere in the schema. */
const uses = (schema: unknown, keywords: readonly string[]): boolean =>
  typeof schema === "object" && schema !== null && Object.entries(schema).some(([k, v]) => keywords.includes(k) || uses(v, keywords));

/** Plain numerals of at most 21 integer, 30 fraction and 15 significant digits (docs/json-schema.md, PLAIN). */
function isPlainRegion(text: string): boolean {
  const m = /^-?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return false;
  const digits = `${m[1]}${m[2] ?? ""}`.replace(/^0+/, "").replace(/0+$/, "");
  return m[1]!.length <= 21 && (m[2] ?? "").length <= 30 && digits.length <= 15;
}

/**
 * Every sample numeral accepted must satisfy the schema, and every one that satisfies it must be
 * accepted where the compiler claims exactness (docs/json-schema.md, "Numbers"): a constrained
 * number admits the numeral regions only, with fractions of at most 30 digits; `multipleOf` plain
 * numerals only; a complement (`not`, `oneOf`) the PLAIN region only. Returns the refusal, if any.
 */
function expectExact(schema: Schema, seed: number): unknown {
  const { grammar, error } = compile(schema);
  if (error !== undefined) return error;
  const complement = uses(schema, ["not", "oneOf"]);
  const multiple = uses(schema, ["multipleOf"]);
  const constrained = Object.keys(schema).some((k) => k !== "type") || schema.type === "integer";
  const plain = /^-?\d+(\.\d{1,30})?$/;
  for (const text of sampleNumerals(schema, seed)) {
    const valid = numberSatisfies(schema, text);
    const got = isMatch(grammar!, text);
    const complete = !constrained || (complement ? isPlainRegion(text) : multiple ? plain.test(text) : inNumeralRegions(text) && !/\.\d{31}/.test(text));
    if (got || complete) expect([JSON.stringify(schema), text, got]).toEqual([JSON.stringify(schema), text, valid]);
  }
  return undefined;
}

const EDGES = [0, 2 ** 31, 2 ** 32, 2 ** 53, 1e308, -1, -1e308, 1.5, 0.000123, 1e-300];

describe("bounds and multipleOf at the edges: exact, or refused naming the keyword", () => {
  const rows = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].flatMap((k) => [
    ...EDGES.map((v) => [k, v, "number"] as const),
    // Integers: where the bound is not an integer, or an integer no double above 2^53 tells apart.
    ...[2 ** 53, 1.5, -1e308].map((v) => [k, v, "integer"] as const),
  ]);
  it.each(rows)("%s %d (%s)", (keyword, value, type) => {
    const error = expectExact({ type, [keyword]: value }, 1);
    if (keyword === "multipleOf" && value <= 0) {
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as SchemaError).message).toMatch(/^#\/multipleOf: expected a number greater than 0/);
    } else if (error !== undefined) {
      expect(error, String(error)).toBeInstanceOf(SchemaError);
      expect((error as SchemaError).message).toMatch(new RegExp(`^#/${keyword}: `));
    }
  });
});

/** [name, schema, "exact" or the refusal's message]. */
const MULTIPLE_OF: Array<[string, Schema, "exact" | RegExp]> = [
  ["999983 alone (remainder counter)", { multipleOf: 999983 }, "exact"],
  ["999983 with bounds", { multipleOf: 999983, minimum: 0, maximum: 1e8 }, /^#\/multipleOf: /],
  ["1024 with bounds", { multipleOf: 1024, minimum: -100000, maximum: 100000 }, "exact"],
  ["1009 above zero (every remainder a state)", { type: "integer", multipleOf: 1009, exclusiveMinimum: 0 }, "exact"],
  ["0.246914 (numerator with a factor 2)", { multipleOf: 0.246914 }, /^#\/multipleOf: a decimal divisor whose numerator has factors 2 or 5/],
  ["0.123457 (remainder counter)", { multipleOf: 0.123457 }, "exact"],
  ["0.123457 with an enum", { multipleOf: 0.123457, enum: [0.123457, 0.246914, 1, 0] }, /^#\/multipleOf: a multipleOf whose divisor needs a remainder counter/],
  ["7 with an enum", { multipleOf: 7, enum: [14, 15, 21, 1000, 7e21] }, "exact"],
  ["0.01 with const", { multipleOf: 0.01, const: 1.5 }, "exact"],
  ["not 3", { not: { multipleOf: 3 } }, "exact"],
  ["not 999983", { not: { multipleOf: 999983 } }, /^#(\/not)?\/multipleOf: |^#\/not: /],
  ["anyOf 4 | 6", { anyOf: [{ multipleOf: 4 }, { multipleOf: 6 }] }, "exact"],
  ["anyOf 999983 | 2", { anyOf: [{ multipleOf: 999983 }, { multipleOf: 2 }] }, /multipleOf/],
  ["oneOf 4 | 6", { oneOf: [{ multipleOf: 4 }, { multipleOf: 6 }] }, "exact"],
  ["allOf 0.25 and 0.1", { allOf: [{ multipleOf: 0.25 }, { multipleOf: 0.1 }] }, "exact"],
  ["1e-3", { multipleOf: 1e-3 }, "exact"],
  ["2.5e-2 up to 1", { multipleOf: 2.5e-2, minimum: -1, maximum: 1 }, "exact"],
  ["1000 as 1e3, integers", { type: "integer", multipleOf: 1e3 }, "exact"],
  ["1e20", { multipleOf: 1e20 }, "exact"],
  ["0.000123 within ±1e20", { multipleOf: 0.000123, minimum: -1e20, maximum: 1e20 }, "exact"],
  ["large 2^31 - 1 (a prime)", { multipleOf: 2147483647 }, "exact"],
];

describe("multipleOf against the exact decimal oracle (issue 13)", () => {
  it.each(MULTIPLE_OF)("%s", (_name, schema, outcome) => {
    const error = expectExact(schema, 13);
    if (outcome === "exact") expect(error, String(error)).toBeUndefined();
    else {
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as SchemaError).message).toMatch(outcome);
    }
  });

  it("the oracle reads exponent forms by value", () => {
    expect(parseDecimal("2.5E-2")).toEqual({ n: 25n, e: -3 });
    expect(numberSatisfies({ multipleOf: 0.025 }, "2.5E-2")).toBe(true);
    expect(numberSatisfies({ multipleOf: 1000 }, "1e3")).toBe(true);
    expect(numberSatisfies({ multipleOf: 0.1 }, "0.3")).toBe(true);
    expect(numberSatisfies({ multipleOf: 0.1 }, "0.35")).toBe(false);
    expect(numberSatisfies({ exclusiveMaximum: 3 }, "2.99999999999999999999")).toBe(false);
  });
});
