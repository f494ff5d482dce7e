/**
 * String enums in the engine: their automaton is acyclic (the value trie), minimized bottom-up
 * instead of by partition refinement (native/core/minimize_acyclic.cpp). Masks are compared with
 * the oracle at every step on a tiny vocabulary (values that are prefixes of others, the empty
 * string, escapes, multi-byte characters, shared suffixes; enums inside an object and an array
 * and beside a free string) and along Llama 3 walks; the state count is checked against the
 * minimal automaton of the set, computed from its definition.
 */
import { describe, expect, it } from "vitest";
import { choice, GrammarBuilder, lit, seq, star, type IrGrammar } from "../../lib/compile/ir.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { rng } from "../helpers/random.js";
import { loadTestVocabulary } from "../helpers/vocab.js";
import { randomValues } from "./enum-values.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { randomWalk, seededWalksFromStart } from "./walk.js";

const TRICKY = ["a", "ab", "abc", "", "b", "xab", "xyab", "1ab", "12", "2", "22"];
const ESCAPES = ['q"', "back\\slash", "\n", "é", "€", "€a", "😀", "a😀b", "ab€", "\u0001"];

const schemas: Array<[string, unknown]> = [
  ["prefixes, the empty string, shared suffixes", { type: "string", enum: TRICKY }],
  ["escapes and multi-byte characters", { type: "string", enum: ESCAPES }],
  ["inside an object", { type: "object", properties: { k: { enum: TRICKY }, e: { enum: ESCAPES } }, required: ["k"], additionalProperties: false }],
  ["inside an array", { type: "array", items: { enum: [...TRICKY, ...ESCAPES] }, maxItems: 4 }],
  ["beside a free string", { anyOf: [{ enum: TRICKY }, { type: "string", maxLength: 3 }] }],
];

describe("string enums: exact masks on a tiny vocabulary", () => {
  const vocab = tinyVocabulary();
  for (const [name, schema] of schemas) {
    it(name, () => {
      const { grammar } = compileJsonSchema(schema as never);
      seededWalksFromStart(grammar, compileGrammar(vocab, grammar, { threads: 1 }), vocab.data);
    });
  }
});

/** The values as one choice of literals. */
function choiceOf(values: string[]): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", choice(...values.map((v) => (v === "" ? seq() : lit(v)))));
  return g.build("root");
}

/**
 * The size of the minimal automaton of a finite set of byte strings, from its definition: two
 * trie nodes are one state iff they agree on finality and lead on every byte into equal states.
 */
function minimalStates(values: string[]): number {
  const kids: Array<Map<number, number>> = [new Map()];
  const final = [false];
  for (const v of values) {
    let s = 0;
    for (const byte of Buffer.from(v)) {
      let t = kids[s]!.get(byte);
      if (t === undefined) {
        t = kids.length;
        kids.push(new Map());
        final.push(false);
        kids[s]!.set(byte, t);
      }
      s = t;
    }
    final[s] = true;
  }
  const classes = new Map<string, number>();
  const classOf: number[] = [];
  const visit = (s: number): number => {
    if (classOf[s] !== undefined) return classOf[s]!;
    const edges = [...kids[s]!].sort((x, y) => x[0] - y[0]).map(([byte, t]) => `${byte}:${visit(t)}`);
    const key = `${final[s] ? "F" : "N"}${edges.join(",")}`;
    let c = classes.get(key);
    if (c === undefined) {
      c = classes.size;
      classes.set(key, c);
    }
    classOf[s] = c;
    return c;
  };
  visit(0);
  return classes.size;
}

describe("string enums: bottom-up minimization", () => {
  const vocab = tinyVocabulary();
  it("gives the minimal automaton (plus the dead state)", () => {
    for (let seed = 1; seed <= 24; seed++) {
      const values = randomValues(seed, 5 + seed * 3);
      const states = compileGrammar(vocab, choiceOf(values), { threads: 1 }).stats().states;
      expect([seed, states]).toEqual([seed, minimalStates(values) + 1]);
    }
  });
  it("keeps masks exact where suffixes merged", () => {
    for (const seed of [5, 13]) {
      const grammar = choiceOf(randomValues(seed, 40));
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      for (let walk = 1; walk <= 12; walk++) randomWalk(grammar, compiled, vocab.data, { steps: 12, seed: walk, checkAllAccepts: true });
    }
  });
  it("an automaton with a cycle is left to partition refinement, and is never smaller", () => {
    const values = randomValues(7, 30);
    const g = new GrammarBuilder();
    g.define("root", choice(...values.map((v) => (v === "" ? seq() : lit(v))), seq(lit("\u0002"), star(lit("\u0002")))));
    const grammar = g.build("root");
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    expect(compiled.stats().states).toBeGreaterThanOrEqual(minimalStates(values) + 2);
    for (let walk = 1; walk <= 8; walk++) randomWalk(grammar, compiled, vocab.data, { steps: 12, seed: walk, checkAllAccepts: true });
  });
});

describe("string enums: Llama 3", () => {
  it("exact along random walks of a 300-value enum in an object", () => {
    const vocab = loadTestVocabulary("llama3");
    const values = [...randomValues(11, 200), ...Array.from({ length: 100 }, (_, i) => `value_${(i * 7919) % 1000}_${"xyz".slice(i % 3)}`)];
    const { grammar } = compileJsonSchema({ type: "object", properties: { v: { enum: values } }, required: ["v"], additionalProperties: false });
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    let steps = 0;
    for (let seed = 1; seed <= 6; seed++) steps += randomWalk(grammar, compiled, vocab.data, { steps: 20, seed, every: 1, structural: 0.2 }).steps;
    expect(steps).toBeGreaterThan(20);
  });

  it("walks only the live child below a state with one live byte, masks exact", () => {
    // Random alphanumeric values: every state but the branch points of the value trie has one
    // live byte, and Llama 3's trie nodes for such prefixes have dozens of children. Stepping
    // every sibling cost ~35 trie nodes per walked state; going straight to the live child ~2.
    const vocab = loadTestVocabulary("llama3");
    const rnd = rng(5);
    const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
    const values = new Set<string>();
    while (values.size < 2000) {
      const n = 15 + Math.floor(rnd() * 10);
      values.add(Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join(""));
    }
    const { grammar } = compileJsonSchema({ type: "string", enum: [...values] });
    // Every state walked: most of them would otherwise be filled along their chain (chain-masks.test.ts).
    process.env.TAGMASK_CHAIN_MASKS = "off";
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    delete process.env.TAGMASK_CHAIN_MASKS;
    const stats = compiled.stats();
    expect(stats.trieNodesVisited / stats.walkedStates).toBeLessThan(4);
    let steps = 0;
    for (let seed = 1; seed <= 4; seed++) steps += randomWalk(grammar, compiled, vocab.data, { steps: 12, seed, every: 1 }).steps;
    expect(steps).toBeGreaterThan(8);
  });
});
