/**
 * Walks that compare the engine with the brute-force oracle: along a given token sequence (a
 * realistic output), or a seeded random walk that picks tokens from the engine's own mask (each
 * pick checked viable by the oracle), comparing full masks at every step or at sampled steps.
 */
import { expect } from "vitest";
import type { IrGrammar } from "../../lib/compile/ir.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import type { CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import { popcount32 } from "../../lib/mask/types.js";
import type { VocabularyData } from "../../lib/tokenizer/vocabulary.js";
import { rng } from "../helpers/random.js";
import { BruteForce, describeToken, maskDiff, maskHas, type OracleState } from "./oracle.js";
import type { RecognizerState } from "../../lib/compile/recognizer.js";

/** Compares the engine's mask with the oracle's; fails with the differing tokens. */
export function expectSameMask(engine: Int32Array, oracle: Int32Array, vocab: VocabularyData, where: string): void {
  const { onlyA, onlyB } = maskDiff(engine, oracle, vocab.vocabSize);
  if (onlyA.length === 0 && onlyB.length === 0) return;
  const show = (ids: number[]) => ids.slice(0, 12).map((id) => describeToken(vocab, id)).join(", ") + (ids.length > 12 ? `, … (${ids.length})` : "");
  expect.fail(`${where}: engine allows but oracle rejects [${show(onlyA)}]; oracle allows but engine rejects [${show(onlyB)}]`);
}

/** One comparison point: full masks and canTerminate. */
function compare(matcher: GrammarMatcher, oracle: BruteForce, state: OracleState, vocab: VocabularyData, mask: Int32Array, where: string): Int32Array {
  const expected = oracle.mask(state);
  matcher.fillNextTokenBitmask(mask);
  expectSameMask(mask, expected, vocab, where);
  expect(matcher.canTerminate(), `${where}: canTerminate`).toBe(oracle.accepts(state));
  return expected;
}

/** Walks `tokens` (each must be allowed), comparing at every `every`-th step and at the end. */
export function walkTokens(grammar: IrGrammar, compiled: CompiledGrammar, vocab: VocabularyData, tokens: number[], every = 1): number {
  const oracle = new BruteForce(grammar, vocab);
  const matcher = new GrammarMatcher(compiled);
  const mask = new Int32Array(Math.ceil(vocab.vocabSize / 32));
  let state: OracleState = oracle.initial();
  let compared = 0;
  for (let step = 0; step <= tokens.length; step++) {
    if (step % every === 0 || step === tokens.length) {
      compare(matcher, oracle, state, vocab, mask, `step ${step}`);
      compared++;
    }
    if (step === tokens.length) break;
    const id = tokens[step]!;
    expect(matcher.acceptToken(id), `acceptToken(${describeToken(vocab, id)}) at step ${step}`).toBe(true);
    const next = oracle.advance(state, id);
    expect(next, `oracle: ${describeToken(vocab, id)} at step ${step}`).not.toBeNull();
    state = next!;
  }
  return compared;
}

/**
 * Walks a text's `tokens`, which the grammar may reject part-way: masks and canTerminate are
 * compared with the oracle's at the start and at each of the last `last` steps (every step by
 * default), acceptToken's verdict with the oracle's at every step; the walk ends at the first
 * rejected token. Returns the number of comparisons.
 */
export function walkAlong(grammar: IrGrammar, compiled: CompiledGrammar, vocab: VocabularyData, tokens: readonly number[], label: string, last = Infinity): number {
  const oracle = new BruteForce(grammar, vocab);
  const matcher = new GrammarMatcher(compiled);
  const mask = new Int32Array(Math.ceil(vocab.vocabSize / 32));
  let state: OracleState = oracle.initial();
  let compared = 0;
  const from = Math.max(0, tokens.length - last);
  for (let step = 0; step <= tokens.length; step++) {
    if (step === 0 || step >= from) {
      compare(matcher, oracle, state, vocab, mask, `${label}: step ${step} of ${tokens.length}`);
      compared++;
    }
    if (step === tokens.length) break;
    const id = tokens[step]!;
    const next = oracle.advance(state, id);
    expect(matcher.acceptToken(id), `${label}: acceptToken(${describeToken(vocab, id)}) at step ${step}`).toBe(next !== null);
    if (next === null) break;
    state = next;
  }
  return compared;
}

export interface WalkOptions {
  steps: number;
  seed: number;
  /** Compare the full mask every `every` steps (1 = every step). */
  every?: number;
  /** Also check acceptToken on every token of the vocabulary (small vocabularies only). */
  checkAllAccepts?: boolean;
  /**
   * With this probability a step picks among "structural" allowed tokens (special text tokens and
   * tokens holding any of `<"{}[],:`), so that walks get through the structure instead of
   * wandering in free text.
   */
  structural?: number;
  /** Text both the engine and the oracle accept before the walk starts (to start near a bound). */
  prefix?: string;
}

const STRUCTURAL_BYTES = new Set([0x3c, 0x22, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a]);
const structuralCache = new WeakMap<VocabularyData, Int32Array>();

/** Tokens that are special text or hold any of `<"{}[],:`, as a mask. */
function structuralMask(vocab: VocabularyData): Int32Array {
  let m = structuralCache.get(vocab);
  if (m) return m;
  m = new Int32Array(Math.ceil(vocab.vocabSize / 32));
  for (let id = 0; id < vocab.kinds.length; id++) {
    let hit = vocab.kinds[id] === 1;
    for (let k = vocab.offsets[id]!; !hit && k < vocab.offsets[id + 1]!; k++) hit = STRUCTURAL_BYTES.has(vocab.bytes[k]!);
    if (hit) m[id >>> 5]! |= 1 << (id & 31);
  }
  structuralCache.set(vocab, m);
  return m;
}

/** A uniformly random set bit of `mask` (optionally ANDed with `filter`), or -1. Also used by test/batch/mask-refs.test.ts. */
export function pickBit(mask: Int32Array, random: () => number, filter?: Int32Array): number {
  let total = 0;
  for (let w = 0; w < mask.length; w++) total += popcount32(filter ? mask[w]! & filter[w]! : mask[w]!);
  if (total === 0) return -1;
  let k = Math.floor(random() * total);
  for (let w = 0; w < mask.length; w++) {
    let x = (filter ? mask[w]! & filter[w]! : mask[w]!) >>> 0;
    const n = popcount32(x);
    if (k >= n) {
      k -= n;
      continue;
    }
    for (;;) {
      const low = x & -x;
      if (k === 0) return w * 32 + (31 - Math.clz32(low));
      x ^= low;
      k--;
    }
  }
  return -1;
}

/**
 * Seeded walks (seeds 1..`seeds`) of `steps` steps after each prefix, every token's acceptToken
 * checked against the recognizer at every step; expects each walk to take at least one step
 * on average (a prefix the walks cannot continue from would otherwise check nothing).
 */
export function walksAfterPrefixes(grammar: IrGrammar, compiled: CompiledGrammar, vocab: VocabularyData, prefixes: readonly string[], seeds: number, steps: number): void {
  let taken = 0;
  for (const prefix of prefixes) {
    for (let seed = 1; seed <= seeds; seed++) taken += randomWalk(grammar, compiled, vocab, { steps, seed, checkAllAccepts: true, prefix }).steps;
  }
  expect(taken).toBeGreaterThanOrEqual(prefixes.length * seeds);
}

/**
 * Sixteen seeded walks of 30 steps from the start, every token's acceptToken checked against the
 * recognizer at every step (structural tokens favoured); expects them to take more than 16 steps
 * in all.
 */
export function seededWalksFromStart(grammar: IrGrammar, compiled: CompiledGrammar, vocab: VocabularyData): void {
  let steps = 0;
  for (let seed = 1; seed <= 16; seed++) {
    steps += randomWalk(grammar, compiled, vocab, { steps: 30, seed, checkAllAccepts: true, structural: 0.3 }).steps;
  }
  expect(steps).toBeGreaterThan(16);
}

/** Runs one seeded walk. Returns the number of steps taken and masks compared. */
export function randomWalk(grammar: IrGrammar, compiled: CompiledGrammar, vocab: VocabularyData, options: WalkOptions): { steps: number; compared: number } {
  const oracle = new BruteForce(grammar, vocab);
  const matcher = new GrammarMatcher(compiled);
  const random = rng(options.seed);
  const every = options.every ?? 1;
  const mask = new Int32Array(Math.ceil(vocab.vocabSize / 32));
  const structural = structuralMask(vocab);
  let state: OracleState = oracle.initial();
  if (options.prefix) {
    const bytes = new TextEncoder().encode(options.prefix);
    const next = state.map((s) => oracle.recognizer.stepBytes(s, bytes)).filter((s): s is RecognizerState => s !== null);
    expect(next.length, `the oracle rejects the prefix ${JSON.stringify(options.prefix)}`).toBeGreaterThan(0);
    expect(matcher.acceptString(options.prefix), `acceptString(${JSON.stringify(options.prefix)})`).toBe(true);
    state = next;
  }
  let compared = 0;
  let step = 0;
  for (; step < options.steps; step++) {
    const where = `seed ${options.seed}, step ${step}`;
    if (step % every === 0) {
      compare(matcher, oracle, state, vocab, mask, where);
      compared++;
    } else {
      matcher.fillNextTokenBitmask(mask);
    }
    if (options.checkAllAccepts) {
      for (let id = 0; id < vocab.vocabSize; id++) {
        const fork = matcher.fork();
        expect(fork.acceptToken(id), `acceptToken(${describeToken(vocab, id)}) at ${where}`).toBe(maskHas(mask, id));
      }
    }
    for (const id of vocab.stopTokenIds) mask[id >>> 5]! &= ~(1 << (id & 31));
    let pick = -1;
    if (options.structural !== undefined && random() < options.structural) pick = pickBit(mask, random, structural);
    if (pick < 0) pick = pickBit(mask, random);
    if (pick < 0) {
      if (step % every !== 0) {
        compare(matcher, oracle, state, vocab, mask, where);
        compared++;
      }
      break;
    }
    const next = oracle.advance(state, pick);
    expect(next, `the engine allowed ${describeToken(vocab, pick)} at ${where}, the oracle rejects it`).not.toBeNull();
    expect(matcher.acceptToken(pick), `acceptToken(${describeToken(vocab, pick)}) at ${where}`).toBe(true);
    state = next!;
  }
  return { steps: step, compared };
}
