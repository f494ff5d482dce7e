/**
 * Rule walks kept per vocabulary (native/core/rule_walks.h, docs/engine.md): a kept rule that
 * several compiles share (the any-value rule `json/value` above all) is walked once against its
 * closure and reused. A compile that uses kept walks must store exactly what a compile without
 * them stores (masks, uncertain tokens, pairs: every stat but the work counters) and give the
 * oracle's masks; the cache stays within its entry and byte bounds.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import type { IrGrammar } from "../../lib/compile/ir.js";
import { compileGrammar, type CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import type { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { rng } from "../helpers/random.js";
import { loadTestVocabulary } from "../helpers/vocab.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { seededWalksFromStart } from "./walk.js";

// Free-form values called from different places: the any-value rule's return states differ.
const SCHEMAS: Array<[string, unknown]> = [
  ["an object with a free extra property", { type: "object", properties: { a: { type: "string" } }, required: ["a"] }],
  ["an array of anything", { type: "array", items: {} }],
  ["free values in three places", {
    type: "object",
    properties: { meta: { type: "object" }, list: { type: "array", items: true }, n: { type: "integer" } },
    required: ["n"],
  }],
  ["a nested free object beside an enum", {
    type: "object",
    properties: { kind: { enum: ["x", "y"] }, data: { type: "object", additionalProperties: { type: "object" } } },
  }],
];

const WORK_STATS = new Set(["trieNodesVisited", "maskWork", "readMs", "automatonMs", "masksMs", "totalMs"]);

function compileWith(vocab: TokenizerInfo, grammar: IrGrammar, kept: boolean): CompiledGrammar {
  process.env.TAGMASK_RULE_WALKS = kept ? "on" : "off";
  return compileGrammar(vocab, grammar, { threads: 1 });
}

/** Everything a compile stores, but for the work counters. */
function expectSameStore(off: CompiledGrammar, on: CompiledGrammar): void {
  const so = off.stats() as unknown as Record<string, unknown>;
  const sn = on.stats() as unknown as Record<string, unknown>;
  for (const key of Object.keys(so)) {
    if (!WORK_STATS.has(key)) expect(sn[key], key).toEqual(so[key]);
  }
  const mo = off.handle.maskStore();
  const mn = on.handle.maskStore();
  expect(mn.count).toBe(mo.count);
  expect(Buffer.from(mn.words.buffer, mn.words.byteOffset, mn.words.byteLength).equals(Buffer.from(mo.words.buffer, mo.words.byteOffset, mo.words.byteLength))).toBe(true);
}

/** Seeded walks that pick tokens from the masks, comparing both compiles' masks at every step. */
function expectSameWalks(off: CompiledGrammar, on: CompiledGrammar, vocabSize: number): number {
  const words = Math.ceil(vocabSize / 32);
  let steps = 0;
  for (let seed = 1; seed <= 4; seed++) {
    const a = new GrammarMatcher(off);
    const b = new GrammarMatcher(on);
    const ma = new Int32Array(words);
    const mb = new Int32Array(words);
    const random = rng(seed);
    for (let step = 0; step < 40; step++) {
      a.fillNextTokenBitmask(ma);
      b.fillNextTokenBitmask(mb);
      expect(Array.from(mb), `seed ${seed} step ${step}`).toEqual(Array.from(ma));
      steps++;
      const ids: number[] = [];
      for (let id = 0; id < vocabSize; id++) if ((ma[id >>> 5]! >>> (id & 31)) & 1) ids.push(id);
      if (ids.length === 0) break;
      const id = ids[Math.floor(random() * ids.length)]!;
      const accepted = a.acceptToken(id);
      expect(b.acceptToken(id), `seed ${seed} step ${step}: acceptToken(${id})`).toBe(accepted);
      if (!accepted || a.isTerminated()) break;
    }
  }
  return steps;
}

afterEach(() => {
  delete process.env.TAGMASK_RULE_WALKS;
});

describe("rule walks kept per vocabulary", () => {
  it("change nothing a compile stores, and give the oracle's masks (tiny vocabulary)", () => {
    const vocab = tinyVocabulary();
    const grammars = SCHEMAS.map(([, schema]) => compileJsonSchema(schema as never).grammar);
    // A rule is kept from its second compile on (every grammar here has the any-value rule).
    compileWith(vocab, grammars[0]!, true);
    expect(vocab.native().ruleWalkCache().entries).toBe(0);
    for (const g of grammars) compileWith(vocab, g, true);
    expect(vocab.native().ruleWalkCache().entries).toBeGreaterThan(0);
    for (const g of grammars) {
      const on = compileWith(vocab, g, true);
      expectSameStore(compileWith(vocab, g, false), on);
      seededWalksFromStart(g, on, vocab.data);
    }
  });

  it("change nothing a compile stores (Llama 3)", () => {
    const vocab = loadTestVocabulary("llama3");
    const grammars = SCHEMAS.map(([, schema]) => compileJsonSchema(schema as never, { lenient: true }).grammar);
    for (let pass = 0; pass < 2; pass++) for (const g of grammars) compileWith(vocab, g, true);
    const cache = vocab.native().ruleWalkCache();
    expect(cache.entries).toBeGreaterThan(0);
    let steps = 0;
    for (const g of grammars) {
      const off = compileWith(vocab, g, false);
      const on = compileWith(vocab, g, true);
      // The kept walks were used: their work is the closure walk's, not the in-place walk's.
      expect(on.stats().trieNodesVisited).not.toBe(off.stats().trieNodesVisited);
      expectSameStore(off, on);
      steps += expectSameWalks(off, on, vocab.vocabSize);
    }
    expect(steps).toBeGreaterThan(40);
  });

  it("stay within the entry and byte bounds", () => {
    const vocab = tinyVocabulary();
    const { maxEntries, maxBytes } = vocab.native().ruleWalkCache();
    // Distinct recursive rules, each compiled twice: more than the cache holds.
    const count = maxEntries + 40;
    let last = 0;
    for (let i = 0; i < count; i++) {
      const schema = {
        $defs: { node: { type: "object", properties: { [`k${i}`]: { $ref: "#/$defs/node" }, v: { type: "integer" } }, additionalProperties: false } },
        type: "array",
        items: { $ref: "#/$defs/node" },
      };
      const { grammar } = compileJsonSchema(schema as never);
      compileWith(vocab, grammar, true);
      compileWith(vocab, grammar, true);
      const cache = vocab.native().ruleWalkCache();
      expect(cache.entries).toBeLessThanOrEqual(maxEntries);
      expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
      last = cache.entries;
    }
    expect(last).toBe(maxEntries);
  });
});
