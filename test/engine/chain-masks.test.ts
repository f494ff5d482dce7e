/**
 * Masks filled along a chain (docs/engine.md, "Masks filled along a chain"): in a grammar with
 * many states whose tokens all end on the one byte string they are forced to read next (the
 * positions of a large string enum's values), those states are neither walked nor stored, and a
 * fill follows the token tries along that string. Checked against the oracle at every step on a
 * tiny vocabulary (values that are prefixes of others, shared suffixes, escapes, non-ASCII values,
 * tokens spanning the closing quote and what follows), against the oracle on Llama 3, and against
 * the same grammar compiled with every state walked (TAGMASK_CHAIN_MASKS=off) along random walks.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { compileGrammar, type CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import type { IrGrammar } from "../../lib/compile/ir.js";
import type { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { rng } from "../helpers/random.js";
import { loadTestVocabulary } from "../helpers/vocab.js";
import { alphanumericValues } from "./enum-values.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { describeToken, maskDiff } from "./oracle.js";
import { pickBit, randomWalk, seededWalksFromStart } from "./walk.js";

afterEach(() => {
  delete process.env.TAGMASK_CHAIN_MASKS;
});

/** Distinct values built from `parts`, 4-13 parts each; every seventh also gets `"ab"` appended (a value that is a prefix of another). */
function values(seed: number, count: number, parts: readonly string[]): string[] {
  const random = rng(seed);
  const out = new Set<string>();
  while (out.size < count) {
    let s = "";
    const n = 4 + Math.floor(random() * 10);
    for (let i = 0; i < n; i++) s += parts[Math.floor(random() * parts.length)]!;
    s += ["", "ing", "ed", "ab"][Math.floor(random() * 4)]!;  // shared suffixes
    out.add(s);
    if (out.size % 7 === 0) out.add(`${s}ab`);
  }
  return [...out].slice(0, count);
}

function compileBoth(vocab: TokenizerInfo, grammar: IrGrammar): [CompiledGrammar, CompiledGrammar] {
  const chained = compileGrammar(vocab, grammar, { threads: 1 });
  process.env.TAGMASK_CHAIN_MASKS = "off";
  const walked = compileGrammar(vocab, grammar, { threads: 1 });
  delete process.env.TAGMASK_CHAIN_MASKS;
  return [chained, walked];
}

/**
 * Seeded walks that pick random allowed tokens and compare both grammars' masks and canTerminate
 * at every step. Returns the steps taken.
 */
function compareAlongWalks(a: CompiledGrammar, b: CompiledGrammar, vocab: TokenizerInfo, seeds: number, steps: number): number {
  const data = vocab.data;
  const words = Math.ceil(data.vocabSize / 32);
  const ma = new Int32Array(words), mb = new Int32Array(words);
  let taken = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const x = new GrammarMatcher(a), y = new GrammarMatcher(b);
    const random = rng(seed);
    for (let step = 0; step < steps && !x.isTerminated(); step++) {
      x.fillNextTokenBitmask(ma);
      y.fillNextTokenBitmask(mb);
      const { onlyA, onlyB } = maskDiff(ma, mb, data.vocabSize);
      if (onlyA.length + onlyB.length > 0) {
        const show = (ids: number[]) => ids.slice(0, 8).map((id) => describeToken(data, id)).join(", ");
        expect.fail(`seed ${seed}, step ${step}: only chain fill [${show(onlyA)}], only walked [${show(onlyB)}]`);
      }
      expect(x.canTerminate(), `seed ${seed}, step ${step}: canTerminate`).toBe(y.canTerminate());
      const id = pickBit(ma, random);
      if (id < 0) break;
      expect(x.acceptToken(id)).toBe(true);
      expect(y.acceptToken(id)).toBe(true);
      taken++;
    }
  }
  return taken;
}

const PARTS = ["a", "b", "x", "y", "1", "2", "é", "€", "😀", "\\", '"', "\n", "ab", "12", "xy"];

describe("masks filled along a chain: tiny vocabulary, the oracle at every step", () => {
  const vocab = tinyVocabulary();
  const enumValues = values(3, 3000, PARTS);
  const schemas: Array<[string, unknown]> = [
    ["a string enum", { type: "string", enum: enumValues }],
    ["in an object (tokens spanning the closing quote and the brace)", { type: "object", properties: { k: { enum: enumValues } }, required: ["k"], additionalProperties: false }],
    ["in an array", { type: "array", items: { enum: enumValues }, maxItems: 3 }],
    ["beside a free string", { anyOf: [{ enum: enumValues }, { type: "string", maxLength: 3 }] }],
  ];
  for (const [name, schema] of schemas) {
    it(name, () => {
      const { grammar } = compileJsonSchema(schema as never);
      const [chained, walked] = compileBoth(vocab, grammar);
      expect(chained.stats().chainStates).toBeGreaterThan(chained.stats().states / 2);
      expect(walked.stats().chainStates).toBe(0);
      expect(chained.stats().walkedStates).toBeLessThan(walked.stats().walkedStates / 2);
      seededWalksFromStart(grammar, chained, vocab.data);
      expect(compareAlongWalks(chained, walked, vocab, 40, 40)).toBeGreaterThan(100);
    });
  }

  it("a grammar with few chain states walks and stores every state", () => {
    const { grammar } = compileJsonSchema({ type: "string", enum: enumValues.slice(0, 300) });
    const stats = compileGrammar(vocab, grammar, { threads: 1 }).stats();
    expect(stats.chainStates).toBe(0);
  });
});

describe("masks filled along a chain: Llama 3", () => {
  const vocab = loadTestVocabulary("llama3");

  it("the oracle along random walks of a 2,000-value enum in an object", () => {
    const { grammar } = compileJsonSchema({ type: "object", properties: { v: { enum: alphanumericValues(7, 2000) } }, required: ["v"], additionalProperties: false });
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    expect(compiled.stats().chainStates).toBeGreaterThan(compiled.stats().states / 2);
    let steps = 0;
    for (let seed = 1; seed <= 6; seed++) steps += randomWalk(grammar, compiled, vocab.data, { steps: 16, seed, every: 1, structural: 0.2 }).steps;
    expect(steps).toBeGreaterThan(30);
  });

  it("the same masks as every state walked, 10,000 values alone and in an array", () => {
    const enumValues = alphanumericValues(11, 10_000);
    for (const schema of [{ type: "string", enum: enumValues }, { type: "array", items: { enum: enumValues }, maxItems: 2 }]) {
      const { grammar } = compileJsonSchema(schema);
      const [chained, walked] = compileBoth(vocab, grammar);
      expect(chained.stats().chainStates).toBeGreaterThan(100_000);
      expect(chained.stats().states).toBe(walked.stats().states);
      expect(compareAlongWalks(chained, walked, vocab, 30, 30)).toBeGreaterThan(200);
    }
  });
});
