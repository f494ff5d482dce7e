/**
 * Seeded random walks that compare the engine with the brute-force oracle at every step (or at
 * sampled steps): the full mask, canTerminate, and acceptToken for chosen tokens.
 */
import { expect } from "vitest";
import type { IrGrammar } from "../../lib/compile/ir.js";
import type { RecognizerState } from "../../lib/compile/recognizer.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import type { CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import type { VocabularyData } from "../../lib/tokenizer/vocabulary.js";
import { BruteForce, describeToken, maskDiff, maskHas, maskIds } from "./oracle.js";

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Compares the engine's mask with the oracle's; fails with the differing tokens. */
export function expectSameMask(engine: Int32Array, oracle: Int32Array, vocab: VocabularyData, where: string): void {
  const { onlyA, onlyB } = maskDiff(engine, oracle, vocab.vocabSize);
  if (onlyA.length === 0 && onlyB.length === 0) return;
  const show = (ids: number[]) => ids.slice(0, 12).map((id) => describeToken(vocab, id)).join(", ") + (ids.length > 12 ? `, … (${ids.length})` : "");
  expect.fail(`${where}: engine allows but oracle rejects [${show(onlyA)}]; oracle allows but engine rejects [${show(onlyB)}]`);
}

export interface WalkOptions {
  steps: number;
  seed: number;
  /** Compare the full mask every `every` steps (1 = every step). */
  every?: number;
  /** Also check acceptToken on every token of the vocabulary (small vocabularies only). */
  checkAllAccepts?: boolean;
  /** Prefer tokens that are not stop tokens until this many steps were taken. */
  bias?: (ids: number[], random: () => number) => number;
}

/** Runs one seeded walk. Returns the number of steps taken and masks compared. */
export function randomWalk(grammar: IrGrammar, compiled: CompiledGrammar, vocab: VocabularyData, options: WalkOptions): { steps: number; compared: number } {
  const oracle = new BruteForce(grammar, vocab);
  const matcher = new GrammarMatcher(compiled);
  const random = rng(options.seed);
  const every = options.every ?? 1;
  const mask = new Int32Array(Math.ceil(vocab.vocabSize / 32));
  let state: RecognizerState = oracle.initial();
  let compared = 0;
  let step = 0;
  const stops = new Set(vocab.stopTokenIds);
  for (; step < options.steps; step++) {
    const expected = oracle.mask(state);
    const allowed = maskIds(expected, vocab.vocabSize);
    if (step % every === 0 || allowed.length === 0) {
      matcher.fillNextTokenBitmask(mask);
      expectSameMask(mask, expected, vocab, `seed ${options.seed}, step ${step}`);
      expect(matcher.canTerminate()).toBe(oracle.recognizer.accepts(state));
      compared++;
    }
    if (options.checkAllAccepts) {
      for (let id = 0; id < vocab.vocabSize; id++) {
        const fork = matcher.fork();
        expect(fork.acceptToken(id), `acceptToken(${describeToken(vocab, id)}) at step ${step}`).toBe(maskHas(expected, id));
      }
    }
    const texts = allowed.filter((id) => !stops.has(id));
    if (texts.length === 0) break;
    const pick = options.bias ? options.bias(texts, random) : texts[Math.floor(random() * texts.length)]!;
    expect(matcher.acceptToken(pick), `acceptToken(${describeToken(vocab, pick)}) at step ${step}`).toBe(true);
    const next = oracle.advance(state, pick);
    expect(next).not.toBeNull();
    state = next!;
  }
  return { steps: step, compared };
}
