/**
 * `multipleOf` through the engine: the divisibility automata of the JSON Schema compiler
 * (lib/compile/json-schema/numerals.ts, one state per remainder class that matters) give exact
 * masks on a tiny vocabulary (every step, every token's acceptToken) and on Llama 3 (along
 * realistic outputs and seeded walks), and the divisors past the automaton's budget are refused
 * with the keyword's path and the number of states they would need.
 */
import { describe, expect, it } from "vitest";
import { SchemaError } from "../../lib/errors.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { choice, GrammarBuilder, lit, seq, type IrExpr } from "../../lib/compile/ir.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";
import { randomWalk, walkTokens } from "./walk.js";

/** Digits, digit pairs, signs, the dot, exponent letters and the delimiters of an array of numbers. */
function digitVocabulary(): TokenizerInfo {
  const tokens = ["<eos>", "[", "]", ",", ", ", "-", ".", "e", "E", "+", "0", "1", "2", "4", "8", "9", "00", "24", "10", "3]", "0]", "4,", "0,", ".0", "2.", "-1", "e+", "]]"];
  return TokenizerInfo.fromTokens(tokens, { vocabType: "raw", specialTokens: ["<eos>"], stopTokens: ["<eos>"], vocabSize: tokens.length + 3 });
}

const arrayOf = (multipleOf: number | string, type = "integer") => `{"type":"array","items":{"type":"${type}","multipleOf":${multipleOf}}}`;

describe("multipleOf instances, by exact decimal value", () => {
  const cases: Array<[string, string[], string[]]> = [
    [
      '{"type":"integer","multipleOf":1024}',
      ["0", "-0", "1024", "-1024", "2048", "1024.0", "1024.000000", "1073741824", "10240000000000000000000000000000000", "-5120.00"],
      ["1", "1023", "1025", "-1025", "512", "1024.5", "1024.0000001", "10240000000000000000000000000000001", "01024"],
    ],
    [
      '{"type":"number","multipleOf":0.000007}',
      ["0", "-0", "0.000007", "0.000014", "-0.000021", "7", "0.0000070", "1.000006", "700000000000000000000"],
      ["0.000006", "0.000008", "0.0000071", "1", "-0.000001", "0.00000700000001"],
    ],
    [
      '{"type":"number","multipleOf":4091}',
      ["4091", "8182", "-4091", "4091.000", "40910000000000000000000"],
      ["4090", "4092", "8183", "4091.5", "-4092"],
    ],
  ];
  for (const [schema, good, bad] of cases) {
    it(schema, () => {
      const { grammar } = compileJsonSchema(schema);
      for (const t of good) expect([t, isMatch(grammar, t)]).toEqual([t, true]);
      for (const t of bad) expect([t, isMatch(grammar, t)]).toEqual([t, false]);
    });
  }
});

describe("multipleOf masks on a tiny vocabulary, every step", () => {
  const vocab = digitVocabulary();
  for (const divisor of ["1024", "12", "0.25", "0.000007", "7"]) {
    it(`array of multiples of ${divisor}`, () => {
      const { grammar } = compileJsonSchema(arrayOf(divisor, "number"));
      const compiled = compileGrammar(vocab, grammar);
      let compared = 0;
      for (let seed = 1; seed <= 12; seed++) {
        compared += randomWalk(grammar, compiled, vocab.data, { steps: 30, seed, checkAllAccepts: true }).compared;
      }
      expect(compared).toBeGreaterThan(12);
    });
  }
});

describe("long right-linear groups (automata written as rules, thousands deep)", () => {
  const vocab = digitVocabulary();
  it("a cycle of 3000 rules compiles and walks exactly", () => {
    // Every rule refers to others in tail position only: one right-linear group, sized and
    // searched without following its chains (they were "nested more than 4000 levels deep").
    const n = 3000;
    const g = new GrammarBuilder();
    g.define("root", seq(lit("["), g.ruleRef("s0")));
    for (let i = 0; i < n; i++) {
      const alts: IrExpr[] = [seq(lit("1"), g.ruleRef(`s${(i + 1) % n}`)), seq(lit("2"), g.ruleRef(`s${(3 * i + 1) % n}`))];
      if (i % 7 === 0) alts.push(lit("]"));
      g.define(`s${i}`, choice(...alts));
    }
    const grammar = g.build("root");
    const compiled = compileGrammar(vocab, grammar);
    let compared = 0;
    for (let seed = 1; seed <= 4; seed++) compared += randomWalk(grammar, compiled, vocab.data, { steps: 40, seed, checkAllAccepts: true }).compared;
    expect(compared).toBeGreaterThan(4);
  });
  for (const schema of [arrayOf(2003), '{"type":"array","maxItems":100,"items":{"type":"integer","multipleOf":1009}}']) {
    it(schema, () => {
      const { grammar } = compileJsonSchema(schema);
      const compiled = compileGrammar(vocab, grammar);
      let compared = 0;
      for (let seed = 1; seed <= 4; seed++) compared += randomWalk(grammar, compiled, vocab.data, { steps: 30, seed, checkAllAccepts: true }).compared;
      expect(compared).toBeGreaterThan(4);
      const matcher = new GrammarMatcher(compiled);
      expect(matcher.acceptString("[4006,-6009,0,2003.0]")).toBe(schema.includes("2003"));
    });
  }
});

describe("a divisibility automaton used in several places", () => {
  it("six properties with multipleOf 1009 compile (one copy of the group per reference exceeded the automaton limit)", () => {
    const props = Object.fromEntries(["a", "b", "c", "d", "e", "f"].map((k) => [k, { type: "integer", multipleOf: 1009 }]));
    const { grammar } = compileJsonSchema({ type: "object", properties: props, required: ["a", "f"] } as never);
    const compiled = compileGrammar(loadTestVocabulary("llama3"), grammar);
    expect(new GrammarMatcher(compiled).acceptString('{"a": 2018, "f": -1009}')).toBe(true);
    expect(new GrammarMatcher(compiled).acceptString('{"a": 2019, "f": 0}')).toBe(false);
  });
});

describe("multipleOf masks on Llama 3", () => {
  const vocab = loadTestVocabulary("llama3");
  const schema = arrayOf(1024);
  const { grammar } = compileJsonSchema(schema);
  const compiled = compileGrammar(vocab, grammar);
  it("along a realistic output, every step", () => {
    const tokens = encodeForTest("llama3", "[1024, -2048, 0, 3072.0, 10240000000000000000000]");
    expect(walkTokens(grammar, compiled, vocab.data, tokens, 1)).toBe(tokens.length + 1);
  });
  it("along seeded random walks", () => {
    let compared = 0;
    for (let seed = 1; seed <= 3; seed++) compared += randomWalk(grammar, compiled, vocab.data, { steps: 40, seed, every: 8, structural: 0.3 }).compared;
    expect(compared).toBeGreaterThanOrEqual(3);
  });
});

describe("multipleOf that neither the automaton nor the remainder counter can hold is refused, naming the keyword", () => {
  // Divisors past the automaton's budget (4096 states) compile with a remainder counter
  // (multiple-of-residue.test.ts), except where the counter's budgets cannot describe liveness.
  const refused: Array<[string, RegExp]> = [
    ['{"type":"number","multipleOf":0.246914}', /constrains the last fraction digits/],
    ['{"type":"integer","multipleOf":999983,"minimum":0}', /only enforced with `type`/],
    ['{"type":"integer","multipleOf":999983,"maximum":5000000}', /only enforced with `type`/],
    ['{"not":{"type":"integer","multipleOf":999983}}', /only enforced with `type`/],
    ['{"anyOf":[{"type":"integer","multipleOf":999983},{"type":"integer","multipleOf":3}]}', /only enforced with `type`/],
    ['{"type":"integer","multipleOf":999983,"enum":[999983,1]}', /only enforced with `type`/],
    ['{"type":"integer","multipleOf":2147483659}', /over 2\^31 - 1/],
  ];
  for (const [schema, reason] of refused) {
    it(schema, () => {
      try {
        compileJsonSchema(`{"type":"object","properties":{"n":${schema}}}`);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(SchemaError);
        expect((err as Error).message).toMatch(/properties\/n\//);
        expect((err as Error).message).toMatch(reason);
        expect((err as Error).message).toContain("lenient: true");
      }
    });
  }
});
