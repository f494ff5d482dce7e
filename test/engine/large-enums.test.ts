/**
 * String enums past 2^20 automaton states (docs/engine.md, "One-byte states"): a 100,000-value
 * enum compiles on Llama 3, its states with one live byte keep no transition row, and its masks
 * are exact along random walks. The oracle cannot walk 100,000 alternatives per token, so each
 * mask is checked where the text read so far leaves at most a few dozen values: there the
 * grammar's continuations are those of the enum of just those values, which the oracle walks
 * along the same tokens (the values that are prefixes of others, the shared suffixes, escapes
 * and non-ASCII values of the small enums are in string-enums.test.ts and chain-masks.test.ts).
 */
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { rng } from "../helpers/random.js";
import { loadTestVocabulary } from "../helpers/vocab.js";
import { alphanumericValues } from "./enum-values.js";
import { BruteForce, describeToken } from "./oracle.js";
import { expectSameMask, pickBit } from "./walk.js";

/** The bench's kind of values, and after every 50th one more with a suffix: values that are prefixes of others. */
function values(seed: number, count: number): string[] {
  return [...new Set(alphanumericValues(seed, count).flatMap((v, i) => (i % 50 === 49 ? [v, `${v}_x`] : [v])))].slice(0, count);
}

const decoder = new TextDecoder();

describe("a 100,000-value string enum on Llama 3", () => {
  const vocab = loadTestVocabulary("llama3");
  const data = vocab.data;
  const all = values(5, 100_000);
  const { grammar } = compileJsonSchema({ type: "string", enum: all });
  const compiled = compileGrammar(vocab, grammar, { threads: 1 });

  it("compiles past the 2^20 state limit, one-byte states without rows", () => {
    const stats = compiled.stats();
    expect(stats.states).toBeGreaterThan(1 << 20);
    // Dense rows of its byte classes alone would take states x classes x 4 bytes.
    expect(compiled.memoryBytes).toBeLessThan(stats.states * stats.byteClasses * 2);
    expect(stats.chainStates).toBeGreaterThan(stats.states * 0.9);
  });

  it("masks equal the oracle's on the values the text read so far leaves", () => {
    const words = Math.ceil(data.vocabSize / 32);
    const mask = new Int32Array(words);
    let compared = 0;
    for (let seed = 1; seed <= 4; seed++) {
      const random = rng(seed);
      const matcher = new GrammarMatcher(compiled);
      const taken: number[] = [];
      let text = "";
      let here = 0;  // masks compared along this walk: the oracle's are slow on Llama 3
      for (let step = 0; step < 40 && !matcher.isTerminated(); step++) {
        matcher.fillNextTokenBitmask(mask);
        // The values the text read so far (after the opening quote) leaves.
        const body = text.slice(1);
        const left = text.length > 3 ? all.filter((v) => `${v}"`.startsWith(body)) : [];
        if (left.length > 0 && left.length <= 40 && here < 3) {
          const small = compileJsonSchema({ type: "string", enum: left }).grammar;
          const oracle = new BruteForce(small, data);
          let state = oracle.initial();
          for (const id of taken) {
            const next = oracle.advance(state, id);
            expect(next, `seed ${seed}: the small enum takes ${describeToken(data, id)}`).not.toBeNull();
            state = next!;
          }
          expectSameMask(mask, oracle.mask(state), data, `seed ${seed}, step ${step} after ${JSON.stringify(text)}`);
          expect(matcher.canTerminate(), `seed ${seed}, step ${step}: canTerminate`).toBe(oracle.accepts(state));
          compared++;
          here++;
        }
        const id = pickBit(mask, random);
        if (id < 0) break;
        expect(matcher.acceptToken(id)).toBe(true);
        taken.push(id);
        text += decoder.decode(data.bytes.subarray(data.offsets[id]!, data.offsets[id + 1]!));
      }
      expect(matcher.isTerminated() || matcher.canTerminate()).toBe(true);
    }
    expect(compared).toBeGreaterThanOrEqual(10);
  }, 180_000);
});
