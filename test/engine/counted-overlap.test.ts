/**
 * Counted and marks nodes whose operations overlap another path on one byte (docs/engine.md,
 * "Counted repetition", "Ambiguity"): two alternatives of an object that start alike, one
 * counting its members and the other not; two length-limited strings in alternatives that share
 * their prefix. The compiler builds such nodes as rules of their own (a call, so a counter and
 * marks of their own) instead of refusing the grammar; masks must stay exact. Each grammar here
 * was refused before ("two counted nodes overlap", "cannot be told apart from the bytes").
 */
import { describe, expect, it } from "vitest";
import { charClass, choice, counted, GrammarBuilder, lit, mark, marks, plus, seq, star, unit, type IrExpr, type IrGrammar } from "../../lib/compile/ir.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import type { JsonSchema } from "../../lib/format/types.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { loadTestVocabulary } from "../helpers/vocab.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { randomWalk, walksAfterPrefixes } from "./walk.js";

function rootOf(body: (g: GrammarBuilder) => IrExpr): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", body(g));
  return g.build("root");
}

const AB = charClass([[0x61, 0x62]]);

/** A dependency splits the object in two alternatives; only the one without "a" counts members. */
const DEPENDENT: JsonSchema = {
  type: "object",
  properties: { a: { type: "string" }, b: { type: "number" } },
  additionalProperties: false,
  minProperties: 1,
  dependencies: { a: ["b"] },
};

/**
 * Two oneOf branches that both begin with the same length-limited e-mail string (a counted node
 * per branch): the shape of a JSONSchemaBench schema (Github_medium o55361).
 */
const BRANCHED_EMAIL: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: { a: { type: "string", format: "email", maxLength: 30 }, b: { type: ["array", "null"], items: { type: "string" } }, x: { enum: ["a", "b"] } },
  oneOf: [
    { properties: { b: { type: ["null", "array"], maxItems: 0 }, x: { enum: ["a"] } }, required: ["a"] },
    { properties: { b: { type: "array", minItems: 1, items: { type: "string" } }, x: { enum: ["b"] } }, required: ["x", "b"] },
  ],
};

/** minProperties with pattern properties, inside a oneOf with another object. */
const PATTERN_MIN: JsonSchema = {
  oneOf: [
    { type: "object", patternProperties: { "^[ab]+$": { type: "integer" } }, additionalProperties: false, minProperties: 1 },
    { type: "object", properties: { x: { type: "string" } }, required: ["x"], additionalProperties: false },
  ],
};

const schema = (s: JsonSchema): IrGrammar => compileJsonSchema(s, { whitespace: "compact" }).grammar;

const CASES: Array<[string, IrGrammar, string[], string[], string[]]> = [
  // [name, grammar, prefixes for walks, documents it matches, documents it does not]
  ["minProperties 1 and a dependency", schema(DEPENDENT), ["", "{", '{"a":"ab"'], ['{"b":1}', '{"a":"x","b":2}'], ["{}", '{"a":"x"}', '{"b":1,"b":1}']],
  ["oneOf branches that begin with the same limited e-mail string", schema(BRANCHED_EMAIL), ["", '{"a":"', '{"a":"ab@b', '{"a":"a@b.ab","b":['],
    ['{"a":"a@b.ab"}', '{"a":"a@b.ab","b":[],"x":"a"}', '{"a":"b@a.ba","b":["a"],"x":"b"}', '{"b":["a"],"x":"b"}'],
    ['{"a":"a@b.ab","b":["a"]}', '{"x":"b","b":["a"]}', '{"a":"' + "a".repeat(26) + '@b.ab"}', '{"b":[],"x":"b"}']],
  ["minProperties 1 with patternProperties in a oneOf", schema(PATTERN_MIN), ["", "{", '{"ab":1'], ['{"ab":1}', '{"x":"a"}', '{"a":1,"b":2}'], ["{}", '{"x":1}']],
  ["two counted nodes after one prefix", rootOf(() => choice(
    seq(lit("x"), counted(plus(unit(AB)), 0, 40), lit("]")),
    seq(lit("x"), counted(plus(unit(AB)), 34, 36), lit(",")),
  )), ["", "x", "x" + "ab".repeat(16), "x" + "a".repeat(35)], ["x" + "a".repeat(40) + "]", "x" + "b".repeat(35) + ","], ["x" + "a".repeat(41) + "]", "x" + "a".repeat(33) + ","]],
  ["a marks node beside a plain alternative", rootOf(() => choice(
    seq(lit("["), marks(star(choice(mark(0, lit("a")), mark(1, lit("b")))), [0]), lit("]")),
    seq(lit("["), lit("ab"), lit(",")),
  )), ["", "[", "[b"], ["[a]", "[ba]", "[ab,"], ["[]", "[b]", "[aa]", "[ab]x"]],
];

describe("counted and marks nodes that overlap another path: rules of their own, exact masks", () => {
  const vocab = tinyVocabulary();
  for (const [name, grammar, prefixes, good, bad] of CASES) {
    it(name, () => {
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      for (const text of [...good, ...bad]) {
        const m = new GrammarMatcher(compiled);
        const expected = isMatch(grammar, text);
        expect(expected, `the recognizer on ${text}`).toBe(good.includes(text));
        expect(m.acceptString(text) && m.canTerminate(), text).toBe(expected);
      }
      walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 5, 14);
    });
  }
});

describe("on Llama 3", () => {
  const vocab = loadTestVocabulary("llama3");
  // The e-mail case is left to the tiny vocabulary: on Llama 3 its compile takes seconds.
  for (const [name, grammar, prefixes] of [CASES[0]!, CASES[2]!]) {
    it(name, () => {
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      for (const [i, prefix] of prefixes.entries()) randomWalk(grammar, compiled, vocab.data, { steps: 10, seed: 11 + i, every: 2, prefix });
    });
  }
});
