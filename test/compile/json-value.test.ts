import { describe, expect, it } from "vitest";
import { GrammarBuilder, printGrammar, seq, type IrGrammar } from "../../lib/compile/ir.js";
import {
  jsonInteger, jsonNumber, jsonString, jsonStringBody, jsonValueRule, jsonWhitespace, type JsonValueOptions,
} from "../../lib/compile/json-value.js";
import { isMatch, isViablePrefix } from "../../lib/compile/recognizer.js";
import { InvalidArgumentError } from "../../lib/errors.js";
import { expectGolden } from "./golden.js";

function valueGrammar(options?: JsonValueOptions): IrGrammar {
  const b = new GrammarBuilder();
  b.define("root", jsonValueRule(b, options));
  return b.build("root");
}

const valid = [
  "0", "-0", "12", "-12.5", "1e9", "1E+9", "2.5e-3", "0.0", "true", "false", "null",
  '""', '"abc"', '"é😀"', '"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\u00e9\\uD83D\\uDE00"', '"\\uABCD"', '"\u007f"',
  "[]", "[ ]", "[1]", "[1,2,3]", "[ 1 , [ ] , { } ]", "[[[[]]]]", "{}", '{"a":1}', '{ "a" : [ true , null ] , "b" : { } }',
  '{"":""}', '{"a":{"b":{"c":[{"d":-1.0e+10}]}}}', '[\n\t1,\r\n\t2\n]',
];
const invalid = [
  "01", "-", "+1", "1.", ".5", "1e", "1e+", "0x10", "NaN", "Infinity", "tru", "True", "nul",
  '"', '"abc', '"\\x"', '"\\u12"', '"\\u12G4"', '"\t"', '"\n"', '"\u0000"', "'a'",
  "[", "[1,]", "[,1]", "[1 2]", "{", '{"a"}', '{"a":}', '{a:1}', '{"a":1,}', '{,}', '{"a" 1}', " 1", "1 ", "[1]]",
];

describe("jsonValueRule", () => {
  const g = valueGrammar();
  it("accepts RFC 8259 values", () => {
    for (const s of valid) expect(isMatch(g, s), s).toBe(true);
  });
  it("rejects everything else", () => {
    for (const s of invalid) expect(isMatch(g, s), s).toBe(false);
  });
  it("agrees with JSON.parse on generated documents", () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const leaf = (): unknown => [() => rand(1000) - 500, () => rand(1000) / 7, () => "s\u00e9\n\"" + rand(9), () => true, () => null, () => "😀\\"][rand(6)]!();
    const value = (d: number): unknown => {
      if (d === 0 || rand(3) === 0) return leaf();
      if (rand(2) === 0) return Array.from({ length: rand(4) }, () => value(d - 1));
      return Object.fromEntries(Array.from({ length: rand(4) }, (_, i) => [`k${i}`, value(d - 1)]));
    };
    for (let i = 0; i < 60; i++) {
      const doc = value(4);
      for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2), JSON.stringify(doc, null, "\t")]) {
        expect(isMatch(g, text), text).toBe(true);
        // Removing one character gives a string JSON.parse judges; the grammar must agree.
        const cut = rand(text.length);
        const broken = text.slice(0, cut) + text.slice(cut + 1);
        let parses = true;
        try {
          JSON.parse(broken);
        } catch {
          parses = false;
        }
        const trimmed = broken.trim() === broken;
        expect(isMatch(g, broken), broken).toBe(parses && trimmed);
      }
    }
  });
  it("keeps viable prefixes viable", () => {
    for (const p of ['{"a": [1, 2', '{"a', '"\\u00', "-", "1.", "1e", "[", "{", 'tr', '{"a":1,']) expect(isViablePrefix(g, p), p).toBe(true);
    for (const p of ['{"a" 1', "[1,,", '"\\u00x', "00", "-a"]) expect(isViablePrefix(g, p), p).toBe(false);
  });
  it("bounds every whitespace gap with maxWhitespace", () => {
    const w2 = valueGrammar({ maxWhitespace: 2 });
    for (const s of ["[ 1 ,  2 ]", "{  }", '{"a" :  1}', "[\n\t1]"]) expect(isMatch(w2, s), s).toBe(true);
    for (const s of ["[   1]", "{   }", '{"a":1   }', "[1 ,   2]"]) expect(isMatch(w2, s), s).toBe(false);
  });
  it("allows no whitespace when compact", () => {
    const c = valueGrammar({ compact: true });
    expect(isMatch(c, '{"a":[1,2],"b":"x y"}')).toBe(true);
    for (const s of ["[ 1]", "{ }", '{"a": 1}', "[1, 2]"]) expect(isMatch(c, s), s).toBe(false);
    expect(isMatch(valueGrammar({ maxWhitespace: 0 }), "[ 1]")).toBe(false);
  });
  it("shares rules between calls on one builder", () => {
    const b = new GrammarBuilder();
    const a1 = jsonValueRule(b);
    const a2 = jsonValueRule(b);
    const c = jsonValueRule(b, { compact: true });
    expect(a2.rule).toBe(a1.rule);
    expect(c.rule).not.toBe(a1.rule);
    b.define("root", seq(a1, c));
    expectGolden("json-value.txt", printGrammar(b.build("root")));
  });
  it("refuses a bad whitespace limit", () => {
    expect(() => jsonWhitespace({ maxWhitespace: -1 })).toThrow(InvalidArgumentError);
    expect(() => valueGrammar({ maxWhitespace: 1.5 })).toThrow(/maxWhitespace must be a non-negative integer/);
  });
});

describe("JSON pieces", () => {
  const one = (e: Parameters<typeof seq>[0]): IrGrammar => {
    const b = new GrammarBuilder();
    b.define("root", e);
    return b.build("root");
  };
  it("number, integer, string, bounded string body", () => {
    const num = one(jsonNumber());
    const int = one(jsonInteger());
    const str = one(jsonString());
    const body = one(jsonStringBody({ minChars: 1, maxChars: 3 }));
    expect(["-1.5e3", "0", "10"].every((s) => isMatch(num, s))).toBe(true);
    expect(["-1", "0", "10"].every((s) => isMatch(int, s))).toBe(true);
    expect(["1.5", "1e3", "-0.0", "01"].some((s) => isMatch(int, s))).toBe(false);
    expect(isMatch(str, '"a\\nb"')).toBe(true);
    expect(isMatch(body, "a\\u0041é")).toBe(true);
    expect(isMatch(body, "")).toBe(false);
    expect(isMatch(body, "abcd")).toBe(false);
  });
});
