/**
 * `multipleOf` with a divisor whose part coprime to 10 is past the automaton's budget: the
 * remainder is kept by the matcher (IR `residue` / `rdigit` / `rlive`, docs/json-schema.md "The
 * remainder counter for large divisors"). Instances by exact value through the recognizer and the
 * engine, masks against the recognizer at every step on a tiny vocabulary (seeded walks over
 * every token) and on Llama 3, and what stays refused.
 */
import { describe, expect, it } from "vitest";
import { SchemaError } from "../../lib/errors.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";
import { randomWalk, walkTokens } from "./walk.js";

/** Digits, digit runs, signs, the dot, exponent letters and the delimiters of an array of numbers. */
function digitVocabulary(): TokenizerInfo {
  const tokens = ["<eos>", "[", "]", ",", ", ", "-", ".", "e", "E", "+", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "00", "99", "983", "999", "19", "3]", "0]", "4,", "0,", "6,", ".0", "7.", "-1", "e+", "]]", "000"];
  return TokenizerInfo.fromTokens(tokens, { vocabType: "raw", specialTokens: ["<eos>"], stopTokens: ["<eos>"], vocabSize: tokens.length + 3 });
}

const arrayOf = (multipleOf: string, type = "integer") => `{"type":"array","items":{"type":"${type}","multipleOf":${multipleOf}}}`;

/** k·d for a decimal divisor string d, written plainly (BigInt arithmetic on the digits). */
function times(k: bigint, divisor: string): string {
  const [int, frac = ""] = divisor.split(".");
  const v = k * BigInt(int! + frac);
  const neg = v < 0n;
  let digits = (neg ? -v : v).toString().padStart(frac.length + 1, "0");
  if (frac.length > 0) digits = `${digits.slice(0, digits.length - frac.length)}.${digits.slice(digits.length - frac.length)}`;
  return (neg ? "-" : "") + digits;
}

describe("multipleOf kept as a remainder: instances by exact value (recognizer and engine agree)", () => {
  const vocab = loadTestVocabulary("llama3");
  const cases: Array<[string, string, string[], string[]]> = [
    ["integer", "999983", ["1999966.0", "1999966.000", "-999983", "-0", "0.0", times(123456789123456789n, "999983")],
      ["1999967", "1999965", "1999966.1", "1.999966e6", "01", "999983.", "-1999966.01", times(123456789123456789n, "999983") + "1"]],
    ["integer", "4093", [times(17n, "4093"), `${times(-3n, "4093")}.00`], [times(17n, "4093").replace(/1$/, "2"), "4093.5"]],
    ["integer", "9973", [times(1234567n, "9973")], ["9974", "19946.0001"]],
    ["integer", "32771", [times(99n, "32771"), "0"], ["32772", "-32770"]],
    ["integer", "1000003", [times(1000003n, "1000003"), "-1000003.0"], ["1000004", "1000002"]],
    ["number", "999983", ["1999966", "1999966.00"], ["1999966.5", "999983.000001"]],
    ["integer", "1999966", ["1999966", "3999932", "-0"], ["999983", "2999949"]],
    ["number", "0.123457", ["0.123457", "0.246914", "-0.370371", "1.234570", "0.1234570000", "123457", "0", "-0.0"],
      ["0.123456", "0.123458", "0.1234571", "0.12345", "1e-7", "0.1234570000001"]],
    ["number", "0.000007", ["0.000007", "-0.000021", "7.000000", "0"], ["0.000008", "0.0000071"]],
    ["integer", "0.123457", ["123457", "246914.000", "0"], ["0.123457", "123458"]],
    ["number", "123456.789", ["123456.789", "246913.578", "-123456.7890"], ["123456.788", "123456.79"]],
  ];
  for (const [type, divisor, good, bad] of cases) {
    it(`${type} multipleOf ${divisor}`, () => {
      const { grammar } = compileJsonSchema(`{"type":"${type}","multipleOf":${divisor}}`);
      const compiled = compileGrammar(vocab, grammar);
      for (const t of good) {
        expect([t, isMatch(grammar, t)]).toEqual([t, true]);
        const m = new GrammarMatcher(compiled);
        expect([t, m.acceptString(t) && m.canTerminate()]).toEqual([t, true]);
      }
      for (const t of bad) {
        expect([t, isMatch(grammar, t)]).toEqual([t, false]);
        const m = new GrammarMatcher(compiled);
        expect([t, m.acceptString(t) && m.canTerminate()]).toEqual([t, false]);
      }
    });
  }
});

describe("remainder masks on a tiny vocabulary, every token at every step", () => {
  const vocab = digitVocabulary();
  for (const [divisor, type] of [["999983", "integer"], ["4093", "number"], ["0.123457", "number"], ["0.000007", "number"], ["1000003", "integer"]] as const) {
    it(`array of ${type} multiples of ${divisor}`, () => {
      const { grammar } = compileJsonSchema(arrayOf(divisor, type));
      const compiled = compileGrammar(vocab, grammar);
      let compared = 0;
      for (let seed = 1; seed <= 10; seed++) compared += randomWalk(grammar, compiled, vocab.data, { steps: 30, seed, checkAllAccepts: true }).compared;
      expect(compared).toBeGreaterThan(10);
    });
  }
});

describe("remainder masks on Llama 3", () => {
  const vocab = loadTestVocabulary("llama3");
  for (const [schema, text] of [
    [arrayOf("999983"), `[1999966, -999983, 0, 2999949.0, ${times(987654321987n, "999983")}]`],
    [`{"type":"object","properties":{"x":{"type":"number","multipleOf":0.123457},"n":{"type":"integer","multipleOf":1000003}},"required":["x","n"]}`,
      `{"x": 1.234570, "n": ${times(-77n, "1000003")}}`],
  ] as const) {
    it(schema, () => {
      const { grammar } = compileJsonSchema(schema);
      const compiled = compileGrammar(vocab, grammar);
      const tokens = encodeForTest("llama3", text);
      expect(walkTokens(grammar, compiled, vocab.data, tokens, 1)).toBe(tokens.length + 1);
      let compared = 0;
      for (let seed = 1; seed <= 2; seed++) compared += randomWalk(grammar, compiled, vocab.data, { steps: 30, seed, every: 6, structural: 0.3 }).compared;
      expect(compared).toBeGreaterThanOrEqual(2);
    });
  }
});
