/**
 * xgrammar's tests/python/test_bounded_string_materialization.py, on tagmask's engine: strings
 * with minLength / maxLength (counted by the matcher, docs/engine.md "Counted repetition") under
 * tiny vocabularies of single bytes, long runs of one character, split and multi-byte characters
 * and tokens that close the string and the object around it. The first table compares the
 * engine's masks with the reference recognizer's along each value (xgrammar compares two of its own
 * grammars); the second checks every mask against the lengths directly, up to maxLength 100000,
 * and that a rollback restores the mask.
 */
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { BruteForce, describeToken, maskHas, type OracleState } from "./oracle.js";
import { expectSameMask } from "./walk.js";

const enc = (s: string) => new TextEncoder().encode(s);
const codePoints = (s: string) => [...s].length;

function vocabulary(tokens: Array<string | Uint8Array>): TokenizerInfo {
  return TokenizerInfo.fromTokens([...tokens, "<eos>"], { vocabType: "raw", specialTokens: ["<eos>"], stopTokens: ["<eos>"] });
}

const stringSchema = (lower: number, upper: number) => ({ type: "string", minLength: lower, maxLength: upper });
const nestedSchema = (lower: number, upper: number) => ({
  type: "object",
  properties: { content: stringSchema(lower, upper), tail: { const: "x" } },
  required: ["content", "tail"],
  additionalProperties: false,
});

describe("test_bounded_string_materialization: masks along the bounds", () => {
  const tokens: Array<string | Uint8Array> = [
    ...Array.from({ length: 256 }, (_, b) => Uint8Array.of(b)),
    ...[2, 16, 31, 32, 33, 127, 128, 129].map((n) => "a".repeat(n)),
    "é", "中", "😀", 'aa"', '",', '","tail":"x"}', 'a","tail":"x"}', "\\n", '\\"', "\\u0061",
  ];
  const info = vocabulary(tokens);
  const vocab = info.data;
  const eos = tokens.length;
  const bounds: Array<[number, number]> = [[0, 0], [0, 1], [1, 1], [0, 32], [16, 32], [32, 32], [0, 128], [0, 129], [113, 129], [0, 256], [240, 256]];
  it.each(bounds.flatMap(([lo, hi]) => [[lo, hi, false], [lo, hi, true]] as const))("minLength %i, maxLength %i, nested %s", (lower, upper, nested) => {
    const grammar = compileJsonSchema(nested ? nestedSchema(lower, upper) : stringSchema(lower, upper), { whitespace: "compact" }).grammar;
    const compiled = compileGrammar(info, grammar, { threads: 1 });
    const oracle = new BruteForce(grammar, vocab);
    const [prefix, suffix] = nested ? ['{"content":', ',"tail":"x"}'] : ["", ""];
    const values = new Set(["a".repeat(lower), "a".repeat(upper)]);
    if (upper > 0) {
      values.add("a".repeat(upper - 1) + "😀");
      values.add("é".repeat(upper));
    }
    const mask = new Int32Array(Math.ceil(vocab.vocabSize / 32));
    const again = new Int32Array(mask.length);
    for (const value of values) {
      const bytes = enc(prefix + JSON.stringify(value) + suffix);
      const matcher = new GrammarMatcher(compiled);
      let state: OracleState = oracle.initial();
      for (let step = 0; step <= bytes.length; step++) {
        const where = `${JSON.stringify(value.slice(0, 8))}… (${codePoints(value)} code points), step ${step} of ${bytes.length}`;
        matcher.fillNextTokenBitmask(mask);
        // The reference recognizer's masks near both ends and every 8th step between (each costs a walk
        // of the vocabulary; every step agreed when this was written).
        if (step < 4 || bytes.length - step < 8 || step % 8 === 0) expectSameMask(mask, oracle.mask(state), vocab, where);
        if (step === bytes.length) break;
        const id = bytes[step]!;
        expect(matcher.acceptToken(id), `acceptToken(${describeToken(vocab, id)}) at ${where}`).toBe(true);
        matcher.rollback(1);
        matcher.fillNextTokenBitmask(again);
        expect(again, `the mask after a rollback at ${where}`).toEqual(mask);
        expect(matcher.acceptToken(id)).toBe(true);
        state = oracle.advance(state, id)!;
        expect(state, `the oracle takes byte ${id} at ${where}`).not.toBeNull();
      }
      expect(maskHas(mask, eos)).toBe(true);
      expect(matcher.acceptToken(eos)).toBe(true);
    }
  });
});

describe("test_large_string_capacity_and_rollback", () => {
  const closing = '", "tail": "x"}';
  const candidates: Array<[string, boolean]> = [
    ...["a", "a".repeat(128), "a".repeat(129), "a".repeat(256), "中", "😀", "中".repeat(256)].flatMap((body) => [[body, false], [body, true]] as Array<[string, boolean]>),
    ["", true],
  ];
  const info = vocabulary(candidates.map(([body, closes]) => body + (closes ? closing : "")));
  const eos = candidates.length;
  it.each([1024, 4096, 100000].flatMap((upper) => [[upper, false], [upper, true]] as const))("maxLength %i, near the lower bound %s", (upper, nearLower) => {
    const lower = nearLower ? upper - 16 : 0;
    const compiled = compileGrammar(info, compileJsonSchema(nestedSchema(lower, upper)).grammar, { threads: 1 });
    const matcher = new GrammarMatcher(compiled);
    expect(matcher.acceptString('{"content": "')).toBe(true);
    const mask = new Int32Array(Math.ceil(info.vocabSize / 32));
    const positions = [0, 1, 127, 128, 129, 255, 256, 257, Math.floor(upper / 2), lower - 1, lower, upper - 257, upper - 256, upper - 129, upper - 128, upper - 1, upper];
    let previous = 0;
    for (const position of [...new Set(positions.filter((p) => p >= 0 && p <= upper))].sort((x, y) => x - y)) {
      expect(matcher.acceptString("a".repeat(position - previous))).toBe(true);
      previous = position;
      matcher.fillNextTokenBitmask(mask);
      candidates.forEach(([body, closes], id) => {
        const length = position + codePoints(body);
        const expected = length <= upper && (!closes || length >= lower);
        expect(maskHas(mask, id), `${JSON.stringify(body.slice(0, 4))}… (${codePoints(body)}) ${closes ? "closing " : ""}at ${position}`).toBe(expected);
      });
      // A rollback over several tokens restores the whole mask.
      const before = mask.slice();
      const steps = Math.min(3, upper - position);
      for (let i = 0; i < steps; i++) expect(matcher.acceptToken(0)).toBe(true);
      if (steps > 0) {
        matcher.rollback(steps);
        matcher.fillNextTokenBitmask(mask);
        expect(mask).toEqual(before);
      }
    }
    expect(matcher.acceptToken(candidates.length - 1)).toBe(true);
    expect(matcher.acceptToken(eos)).toBe(true);
    expect(matcher.isTerminated()).toBe(true);
  });
});
