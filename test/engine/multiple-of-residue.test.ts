/**
 * `multipleOf` with a divisor whose part coprime to 10 is past the automaton's budget: the
 * remainder is kept by the matcher (IR `residue` / `rdigit` / `rlive`, docs/json-schema.md "The
 * remainder counter for large divisors"). Instances by exact value through the recognizer and the
 * engine, masks against the recognizer at every step on a tiny vocabulary (seeded walks over
 * every token) and on Llama 3, and what stays refused.
 */
import { describe, expect, it } from "vitest";
import { GrammarError } from "../../lib/errors.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { choice, deserializeGrammar, GrammarBuilder, lit, printGrammar, rdigit, residue, residueAlive, rlive, serializeGrammar, seq, star, validateGrammar } from "../../lib/compile/ir.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { BatchMatcher } from "../../lib/engine/batch.js";
import { expandMaskRefs } from "../../lib/mask/refs.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";
import { randomWalk, walksAfterPrefixes, walkTokens } from "./walk.js";

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

describe("remainders alone at the root and beside counters and marks (array bounds, objects in any order), tiny vocabulary", () => {
  const vocab = TokenizerInfo.fromTokens(
    ["<eos>", "[", "]", ",", "{", "}", ":", "\"a\"", "\"b\"", "-", ".", "0", "1", "3", "8", "9", "99", "983", "19", "0,", "3]", "0}", "\"a\":", "6,"],
    { vocabType: "raw", specialTokens: ["<eos>"], stopTokens: ["<eos>"] },
  );
  for (const [schema, options] of [
    ['{"type":"integer","multipleOf":999983}', {}],
    ['{"type":"number","multipleOf":0.123457}', {}],
    ['{"type":"array","minItems":1,"maxItems":3,"items":{"type":"integer","multipleOf":999983}}', {}],
    ['{"type":"object","properties":{"a":{"type":"integer","multipleOf":1000003},"b":{"type":"number","multipleOf":0.123457}},"required":["b"],"additionalProperties":false}', { anyOrder: true }],
  ] as const) {
    it(schema, () => {
      const { grammar } = compileJsonSchema(schema, options);
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
    [arrayOf("999983"), `[1999966, -0, 2999949.0, ${times(987654321n, "999983")}]`],
    [`{"type":"object","properties":{"x":{"type":"number","multipleOf":0.123457},"n":{"type":"integer","multipleOf":1000003}},"required":["x","n"]}`,
      `{"x": 1.234570, "n": ${times(-77n, "1000003")}}`],
  ] as const) {
    it(schema, () => {
      const { grammar } = compileJsonSchema(schema);
      const compiled = compileGrammar(vocab, grammar);
      const tokens = encodeForTest("llama3", text);
      // Every other step: each oracle mask walks the whole vocabulary through fresh recognizer
      // states (a new remainder each), ~1 s apiece on a loaded machine.
      expect(walkTokens(grammar, compiled, vocab.data, tokens, 2)).toBeGreaterThanOrEqual(Math.ceil(tokens.length / 2));
      expect(randomWalk(grammar, compiled, vocab.data, { steps: 16, seed: 1, every: 8, structural: 0.3 }).compared).toBeGreaterThanOrEqual(1);
    });
  }
});

describe("the residue IR nodes", () => {
  /** Numbers in 0..99 written with or without a fraction of zeros, multiples of 7 by a remainder. */
  const sevens = () => {
    const g = new GrammarBuilder();
    const digits = choice(...Array.from({ length: 10 }, (_, d) => rdigit(d, 7)));
    g.define("root", residue(seq(digits, star(digits), choice(lit(""), seq(rlive(7, 0), lit("."), rdigit(0, 7, 0), star(rdigit(0, 7, 0))))), 7));
    return g.build("root");
  };
  it("alive(r, t): some t' <= t more digits can make r a multiple", () => {
    expect(residueAlive(0, 999983, 0)).toBe(true);
    expect(residueAlive(1, 999983, 0)).toBe(false);
    expect(residueAlive(999982, 999983, 1)).toBe(false);  // 10·999982 + d ≡ d - 10: never 0 for d < 10
    expect(residueAlive(99998, 999983, 1)).toBe(true);  // 999980 + 3
    expect(residueAlive(5, 7, 0)).toBe(false);
    expect(residueAlive(5, 7, 1)).toBe(true);  // 50 + 6 = 56
  });
  it("round-trips through the binary form and prints", () => {
    const grammar = sevens();
    const back = deserializeGrammar(serializeGrammar(grammar));
    expect(printGrammar(back)).toBe(printGrammar(grammar));
    expect(printGrammar(grammar)).toContain("residue%7(");
    expect(printGrammar(grammar)).toContain("rdigit(0; live 0)");
  });
  it("matches by remainder, in the recognizer and the engine alike", () => {
    const grammar = sevens();
    const compiled = compileGrammar(TokenizerInfo.fromTokens(["1", "4", "7", "0", "."], { vocabType: "raw" }), grammar);
    for (const [t, ok] of [["14", true], ["147", true], ["140.00", true], ["15", false], ["0", true], ["7.", false], ["3.0", false]] as const) {
      expect([t, isMatch(grammar, t)]).toEqual([t, ok]);
      const m = new GrammarMatcher(compiled);
      expect([t, [...t].every((c) => m.acceptString(c)) && m.canTerminate()]).toEqual([t, ok]);
    }
  });
  it("is refused with a clear error: a modulus with factors 2 or 5, an rdigit outside its residue", () => {
    const g = new GrammarBuilder();
    g.define("root", residue(rdigit(1, 15), 15));
    expect(() => validateGrammar(g.build("root"))).toThrow(/modulus 15/);
    const outside = new GrammarBuilder();
    outside.define("root", seq(rdigit(1, 7), residue(rdigit(2, 7), 7)));
    expect(() => compileGrammar(TokenizerInfo.fromTokens(["1", "2"], { vocabType: "raw" }), outside.build("root"))).toThrow(GrammarError);
  });
});

describe("mask references (the GPU path's resident rows) in remainder states", () => {
  it("fall back to the CPU-filled row where a token's verdict depends on the remainder, and equal the fill everywhere", () => {
    const vocab = digitVocabulary();
    const { grammar } = compileJsonSchema(arrayOf("999983"));
    const compiled = compileGrammar(vocab, grammar);
    const matcher = new GrammarMatcher(compiled);
    const batch = new BatchMatcher([matcher]);
    const words = batch.maskWords;
    const fill = new Int32Array(words);
    let fallbacks = 0;
    const text = "[1999966,0,-999983,1999966.0]";
    for (let i = 0; i <= text.length; i++) {
      const refs = new Int32Array(1);
      const compact = new Int32Array(words);
      expect(batch.fillMaskRefs(refs, compact).errors).toEqual([]);
      if (refs[0]! < 0) fallbacks++;
      matcher.fillNextTokenBitmask(fill);
      expect([i, Array.from(expandMaskRefs(refs, compiled.maskStore(), compact))]).toEqual([i, Array.from(fill)]);
      if (i < text.length) expect(matcher.acceptString(text[i]!)).toBe(true);
    }
    expect(fallbacks).toBeGreaterThan(0);
  });
});

describe("rollback restores the remainder", () => {
  it("masks after rolling back into a number equal the masks first seen there", () => {
    const vocab = digitVocabulary();
    const { grammar } = compileJsonSchema(arrayOf("999983"));
    const compiled = compileGrammar(vocab, grammar);
    const m = new GrammarMatcher(compiled);
    const ids = ["[", "19", "999", "6", "6,", "7", "7"].map((t) => vocab.tokenId(t)!);
    const seen: number[][] = [];
    const mask = new Int32Array(Math.ceil(vocab.vocabSize / 32));
    for (const id of ids) {
      m.fillNextTokenBitmask(mask);
      seen.push(Array.from(mask));
      expect(m.acceptToken(id)).toBe(true);
    }
    // "[1999966," then "77": after rolling back 4 tokens the remainder is that of "19999" again.
    m.rollback(4);
    m.fillNextTokenBitmask(mask);
    expect(Array.from(mask)).toEqual(seen[3]);
    expect(m.acceptToken(vocab.tokenId("6")!)).toBe(true);
    expect(m.acceptToken(vocab.tokenId("6,")!)).toBe(true);
    m.rollback(2);
    expect(m.acceptToken(vocab.tokenId("7")!)).toBe(true);
    m.fillNextTokenBitmask(mask);
    // 199997 is no multiple: the delimiters are masked, digits stay.
    const has = (t: string) => (mask[vocab.tokenId(t)! >> 5]! >>> (vocab.tokenId(t)! & 31)) & 1;
    expect([has(","), has("]"), has("3]"), has("0,"), has("9")]).toEqual([0, 0, 0, 0, 1]);
  });
});

describe("remainder tokens decided by arithmetic at fill time (one entry per way: digit count, value, budget)", () => {
  // Tokens that fold one, two or three digits and then end the number, digit runs inside a
  // fraction (checked against its budget), and delimiters alone.
  const vocab = TokenizerInfo.fromTokens(
    ["<eos>", "[", "]", ",", ", ", "{", "}", ":", "\"x\"", "-", ".", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
      "3]", "2]", "4]", "83]", "983]", "6,", "66,", "966,", "0,", "00,", "0]", "00", "000", "99", "999", "12", "123", "457", "57", "57}", "7}", "0}", ".1", "7,"],
    { vocabType: "raw", specialTokens: ["<eos>"], stopTokens: ["<eos>"] },
  );
  for (const [schema, prefixes] of [
    [arrayOf("999983"), ["[", "[9", "[99998", "[9999", "[199996", "[19999", "[1999966, 1999", "[-99998", "[1999966.", "[0, -9"]],
    [arrayOf("0.123457", "number"), ["[", "[0.12345", "[0.1234", "[0.12", "[1.23457", "[0.", "[12345", "[-0.24691", "[0.123457, 0.3703"]],
    ['{"type":"object","properties":{"x":{"type":"number","multipleOf":0.123457}},"required":["x"],"additionalProperties":false}', ["{\"x\":", "{\"x\":0.1234", "{\"x\":0.12345", "{\"x\":-1.2"]],
    [arrayOf("1000003"), ["[1000", "[100000", "[2000006, 1"]],
  ] as const) {
    it(schema, () => {
      const { grammar } = compileJsonSchema(schema);
      const compiled = compileGrammar(vocab, grammar);
      const stats = compiled.stats();
      // The tokens that end a number (and fraction digits) are all decided by arithmetic: none
      // is left to a walk of its bytes on the real stack.
      expect(stats.residueTokens).toBeGreaterThan(0);
      expect(stats.residualTokens).toBe(0);
      walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 4, 12);
    });
  }
  it("agrees with the recognizer after multiples cut at random places (integer and fraction digits, all remainders' ranges)", () => {
    // Deterministic pseudo-random multiples k·d, cut after 1..len-1 characters: the tokens that
    // complete them (and those that do not) hit the arithmetic's ranges, wrapped ones included.
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (const [divisor, type] of [["999983", "integer"], ["0.123457", "number"], ["4093", "integer"]] as const) {
      const { grammar } = compileJsonSchema(arrayOf(divisor, type));
      const compiled = compileGrammar(vocab, grammar);
      const prefixes: string[] = [];
      for (let i = 0; i < 12; i++) {
        const text = times(BigInt(next() % 1000000) * (next() % 2 === 0 ? 1n : -1n), divisor);
        const cut = 1 + (next() % Math.max(1, text.length - 1));
        prefixes.push(`[${text.slice(0, cut)}`);
      }
      walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 1, 3);
    }
  });
  it("accepts a token ending the number for exactly the remainder that makes a multiple", () => {
    const { grammar } = compileJsonSchema(arrayOf("999983"));
    const compiled = compileGrammar(vocab, grammar);
    const mask = new Int32Array(Math.ceil(vocab.vocabSize / 32));
    const has = (t: string) => (mask[vocab.tokenId(t)! >> 5]! >>> (vocab.tokenId(t)! & 31)) & 1;
    const after = (prefix: string) => {
      const m = new GrammarMatcher(compiled);
      expect(m.acceptString(prefix)).toBe(true);
      m.fillNextTokenBitmask(mask);
      return ["2]", "3]", "4]", "83]", "983]", "6,", "66,", "966,", "0,", "00,", "]"].filter((t) => has(t) === 1);
    };
    expect(after("[99998")).toEqual(["3]"]);
    expect(after("[9999")).toEqual(["83]"]);
    expect(after("[999")).toEqual(["983]"]);
    expect(after("[199996")).toEqual(["6,"]);
    expect(after("[19999")).toEqual(["66,"]);
    expect(after("[1999")).toEqual(["966,"]);
    expect(after("[99998300")).toEqual(["0,", "00,", "]"]);
    expect(after("[-1")).toEqual([]);
  });
});
