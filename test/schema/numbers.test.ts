/**
 * Numbers read exactly: a schema given as JSON text (or read by the package's JSON reader:
 * structural tags, `--schema FILE`) keeps the decimal its author wrote, and numerals are
 * compared digit by digit. Checked at the edges of doubles: 2^53 ± 1, 2^63 ± 1, 1e308, tiny
 * decimals. Also the integer rule (`1.0` is an integer) and `multipleOf` with large divisors.
 */
import { describe, expect, it } from "vitest";
import { SchemaError } from "../../lib/errors.js";
import { compileJsonSchema, type JsonSchemaOptions } from "../../lib/compile/json-schema/index.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { parseStructuralTag } from "../../lib/format/parse.js";
import { dfaMatches } from "../../lib/compile/json-schema/automaton.js";
import { cmpRational, plainCompare, type Rational } from "../../lib/compile/json-schema/numerals.js";

type Case = [name: string, schemaText: string, accept: string[], reject: string[], options?: JsonSchemaOptions];

const exact: Case[] = [
  ["maximum 2^53 + 1 (no double holds it)", '{"type":"integer","maximum":9007199254740993}', ["9007199254740993", "9007199254740992", "-9007199254740993"], ["9007199254740994", "9007199254740993.5"]],
  ["maximum 2^53 - 1", '{"type":"integer","maximum":9007199254740991}', ["9007199254740991"], ["9007199254740992", "9007199254740993"]],
  ["minimum 2^53 + 1", '{"type":"integer","minimum":9007199254740993}', ["9007199254740993", "9007199254740994"], ["9007199254740992", "9007199254740991"]],
  ["maximum 2^63 - 1", '{"type":"integer","maximum":9223372036854775807}', ["9223372036854775807", "9223372036854775806", "0"], ["9223372036854775808", "9223372036854775809", "1e+21"]],
  ["minimum 2^63 + 1", '{"type":"integer","minimum":9223372036854775809}', ["9223372036854775809", "92233720368547758090"], ["9223372036854775808", "9223372036854775807"]],
  ["minimum -2^63", '{"type":"integer","minimum":-9223372036854775808}', ["-9223372036854775808", "0"], ["-9223372036854775809"]],
  ["const 2^63 + 1", '{"const":9223372036854775809}', ["9223372036854775809", "9223372036854775809.0"], ["9223372036854775808", "9223372036854775810"]],
  ["enum of 2^53 neighbours", '{"enum":[9007199254740993, 9007199254740995]}', ["9007199254740993", "9007199254740995"], ["9007199254740992", "9007199254740994", "9007199254740996"]],
  ["const inside an array keeps the digits", '{"const":[9007199254740993]}', ["[9007199254740993]"], ["[9007199254740992]"]],
  // Exclusive bounds also hold for a JavaScript validator, which rounds 2^53 + 1 to 2^53.
  ["exclusiveMaximum 2^53 + 1", '{"type":"integer","exclusiveMaximum":9007199254740993}', ["9007199254740991"], ["9007199254740992", "9007199254740993"]],
  ["maximum 1e308", '{"maximum":1e308}', ["1e308", "1E+308", "9.9e307", "-1.5e308", "1000"], ["1.1e308", "1.0000000000000001e308"]],
  ["minimum 1e308", '{"minimum":1e308}', ["1e308", "1.5e308"], ["9.99e307", "1"]],
  ["minimum of a tiny decimal", '{"minimum":0.000000000000000000001}', ["0.000000000000000000001", "0.00000000000000000001", "1"], ["0.0000000000000000000009", "0", "-1"]],
  ["exclusiveMinimum 0 with tiny numerals", '{"exclusiveMinimum":0}', ["0.000000000000000000000000000001", "1e-300"], ["0", "0.0", "-0.000000000000000000000000000001"]],
  ["const 0.30000000000000004 as written", '{"const":0.30000000000000004}', ["0.30000000000000004", "0.300000000000000040"], ["0.3", "0.30000000000000005"]],
  ["const with more digits than a double", '{"const":1.00000000000000000001}', ["1.00000000000000000001"], ["1", "1.0", "1.00000000000000000002"]],
  ["multipleOf a tiny decimal", '{"multipleOf":0.000001}', ["0.000003", "3", "0"], ["0.0000031", "0.0000005"]],
];

describe("numbers as written (schema text)", () => {
  for (const [name, text, good, bad, options] of exact) {
    it(name, () => {
      const { grammar } = compileJsonSchema(text, options);
      for (const t of good) expect([t, isMatch(grammar, t)]).toEqual([t, true]);
      for (const t of bad) expect([t, isMatch(grammar, t)]).toEqual([t, false]);
    });
  }
  it("a schema object holds doubles: 2^63 - 1 is read as 2^63's shortest decimal", () => {
    // JSON.parse has already rounded the number; text (or parseJsonText) keeps it.
    const { grammar } = compileJsonSchema(JSON.parse('{"type":"integer","maximum":9223372036854775807}') as never);
    expect(isMatch(grammar, "9223372036854775808")).toBe(true);
    expect(isMatch(compileJsonSchema('{"type":"integer","maximum":9223372036854775807}').grammar, "9223372036854775808")).toBe(false);
  });
  it("structural tags keep the written numbers of their schemas", () => {
    const tag = parseStructuralTag('{"type":"structural_tag","format":{"type":"json_schema","json_schema":{"type":"integer","maximum":9223372036854775807}}}');
    const grammar = lowerFormat(tag);
    expect(isMatch(grammar, "9223372036854775807")).toBe(true);
    expect(isMatch(grammar, "9223372036854775808")).toBe(false);
  });
  it("bad schema text is a SchemaError with line and column", () => {
    expect(() => compileJsonSchema('{"type": "integer",}')).toThrow(SchemaError);
    expect(() => compileJsonSchema('{"type": "integer",}')).toThrow(/line 1, column 20/);
    expect(() => compileJsonSchema("[1]")).toThrow(SchemaError);
  });
});

describe("one rule for integers: an integer-valued numeral is an integer", () => {
  const agree: Array<[unknown, string]> = [
    [{ type: "integer" }, "plain"],
    [{ type: "integer", minimum: 0 }, "with a bound"],
    [{ type: "integer", multipleOf: 1 }, "with multipleOf"],
    [{ type: "integer", maximum: 1e30 }, "with a large bound"],
  ];
  const samples: Array<[string, boolean]> = [
    ["1", true], ["1.0", true], ["1.000", true], ["12345678901234567890123456789", true], ["1e+21", true],
    ["1.5", false], ["1.01", false], ["1.", false], ["01", false], ["1e-7", false],
  ];
  for (const [schema, what] of agree) {
    it(`${what}: ${JSON.stringify(schema)}`, () => {
      const { grammar } = compileJsonSchema(schema as never);
      for (const [t, ok] of samples) expect([t, isMatch(grammar, t)]).toEqual([t, ok]);
    });
  }
  it("the complement of integer never holds an integer-valued numeral", () => {
    const { grammar } = compileJsonSchema({ type: "number", not: { type: "integer" } });
    for (const t of ["1", "1.0", "-0", "1.000"]) expect([t, isMatch(grammar, t)]).toEqual([t, false]);
    for (const t of ["1.5", "-0.25"]) expect([t, isMatch(grammar, t)]).toEqual([t, true]);
  });
});

describe("multipleOf: automata sized by the divisor's remainders", () => {
  const cases: Array<[number | string, string[], string[]]> = [
    [1024, ["0", "1024", "-2048", "1048576", "1024.0", "10485760000000000000000000"], ["1", "1023", "1025", "512"]],
    [1000000, ["0", "1000000", "-3000000", "1000000000000000000000000000"], ["1000001", "100000", "999999"]],
    [86400, ["86400", "172800", "0"], ["43200", "86401"]],
    [4091, ["4091", "8182", "40910000000000000000000000000"], ["4090", "8183", "1"]],
    [0.25, ["0.25", "0.5", "1", "-0.75", "2.250"], ["0.1", "0.26", "0.125"]],
    [0.000125, ["0.000125", "0.00025", "1", "0.001"], ["0.0001", "0.00012"]],
    [12.34, ["12.34", "24.68", "0", "-37.020"], ["12.35", "12", "6.17"]],
  ];
  for (const [divisor, good, bad] of cases) {
    it(`multipleOf ${divisor}`, () => {
      const { grammar } = compileJsonSchema(`{"type":"number","multipleOf":${divisor}}`);
      for (const t of good) expect([t, isMatch(grammar, t)]).toEqual([t, true]);
      for (const t of bad) expect([t, isMatch(grammar, t)]).toEqual([t, false]);
    });
  }
  it("a divisor needing more remainders than the budget is refused, saying how many", () => {
    // A large part coprime to 10 is kept as a remainder by the matcher instead
    // (test/engine/multiple-of-residue.test.ts); 2^20 has none, and needs ~2^19 states.
    expect(isMatch(compileJsonSchema({ type: "integer", multipleOf: 999983 }).grammar, "1999966")).toBe(true);
    try {
      compileJsonSchema({ type: "integer", multipleOf: 1048576 });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).keyword).toBe("multipleOf");
      expect((err as Error).message).toMatch(/at least \d+ states/);
    }
  });
});

describe("OpenAPI numeric formats", () => {
  it("are annotations by default, ranges with formats: openapi", () => {
    const schema = '{"type":"integer","format":"int32"}';
    const loose = compileJsonSchema(schema).grammar;
    const strict = compileJsonSchema(schema, { formats: "openapi" }).grammar;
    for (const [t, inRange] of [["2147483647", true], ["-2147483648", true], ["2147483648", false], ["-2147483649", false]] as const) {
      expect([t, isMatch(loose, t)]).toEqual([t, true]);
      expect([t, isMatch(strict, t)]).toEqual([t, inRange]);
    }
    const int64 = compileJsonSchema('{"type":"number","format":"int64"}', { formats: "openapi" }).grammar;
    for (const [t, ok] of [["9223372036854775807", true], ["-9223372036854775808", true], ["9223372036854775808", false], ["1.5", false], ["2.0", true]] as const) {
      expect([t, isMatch(int64, t)]).toEqual([t, ok]);
    }
    // float and double stay annotations; strings with an int32 format are not numbers.
    expect(isMatch(compileJsonSchema('{"format":"float"}', { formats: "openapi" }).grammar, "1e+300")).toBe(true);
    expect(isMatch(compileJsonSchema('{"format":"int32"}', { formats: "openapi" }).grammar, '"x"')).toBe(true);
  });
});

describe("numeric enums", () => {
  it("many values compile in one pass and keep each value's spellings", () => {
    const values = Array.from({ length: 2500 }, (_, i) => (i % 2 === 0 ? i * 3 : i / 4));
    const { grammar } = compileJsonSchema({ enum: values });
    for (const t of ["0", "0.0", "-0", "6", "6.00", "0.25", "0.250", "624.75", "7494"]) expect([t, isMatch(grammar, t)]).toEqual([t, true]);
    for (const t of ["1", "0.26", "7495", "624.7", "6.01", "-6"]) expect([t, isMatch(grammar, t)]).toEqual([t, false]);
  });
});

describe("plain comparison automata (built directly, digit by digit)", () => {
  // Reference: the syntax of a plain JSON numeral and its exact value as a rational.
  const PLAIN = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
  const valueOf = (s: string): Rational => {
    const [int, frac = ""] = s.replace("-", "").split(".");
    const n = BigInt(`${int}${frac}`) * (s.startsWith("-") ? -1n : 1n);
    return { n, d: 10n ** BigInt(frac.length) };
  };
  const holds = (x: Rational, t: Rational, ge: boolean, inclusive: boolean): boolean => {
    const c = cmpRational(x, t);
    return ge ? c > 0 || (inclusive && c === 0) : c < 0 || (inclusive && c === 0);
  };
  // Thresholds on both sides of zero, at and between digits, with fractions past the 30-digit grid.
  const thresholds: Rational[] = [
    { n: 0n, d: 1n }, { n: 1n, d: 1n }, { n: -1n, d: 1n }, { n: 9n, d: 1n }, { n: 10n, d: 1n }, { n: 1010n, d: 1n }, { n: -305n, d: 1n },
    { n: 1n, d: 10n }, { n: -15n, d: 10n }, { n: 1n, d: 3n }, { n: -2n, d: 3n }, { n: 12345678901234567890123n, d: 1000n },
    { n: 1n, d: 10n ** 30n }, { n: -7n, d: 10n ** 35n }, { n: 10n ** 21n + 1n, d: 1n },
  ];
  // Numerals near each threshold (its digits, one more or less in the last place, longer and
  // shorter spellings, zeros) and malformed ones the syntax must refuse; at most 30 fraction
  // digits, the grid the comparison is exact on (numerals past it are outside PLAIN, where the
  // number keywords do not claim exactness).
  const samples = (t: Rational): string[] => {
    const out = new Set(["0", "-0", "0.0", "1", "-1", "00", "01", "1.", ".5", "-", "", "1.5", "-1.5", "999", "0.000000000000000000000000000001"]);
    for (const k of [0, 1, 3, 29]) {
      const scaled = (t.n * 10n ** BigInt(k)) / t.d;
      for (const delta of [-1n, 0n, 1n]) {
        const v = scaled + delta;
        const digits = (v < 0n ? -v : v).toString().padStart(k + 1, "0");
        const text = k === 0 ? digits : `${digits.slice(0, -k)}.${digits.slice(-k)}`;
        for (const sign of v < 0n ? ["-"] : ["", "-"]) {
          out.add(`${sign}${text}`);
          out.add(`${sign}${text}0`);
          out.add(`${sign}${text}5`);
        }
      }
    }
    return [...out];
  };
  it("accept exactly the plain numerals on the threshold's side, for every threshold and bound kind", () => {
    let checked = 0;
    for (const t of thresholds) {
      for (const ge of [true, false]) {
        for (const inclusive of [true, false]) {
          const dfa = plainCompare(t, ge, inclusive);
          for (const s of samples(t)) {
            const expected = PLAIN.test(s) && holds(valueOf(s), t, ge, inclusive);
            expect(dfaMatches(dfa, s), `${s} against ${ge ? ">" : "<"}${inclusive ? "=" : ""} ${t.n}/${t.d}`).toBe(expected);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(3000);
  });
});
