/**
 * Partition refinement (native/core/minimize.cpp) gives the minimal automaton. Automata with a
 * cycle skip the acyclic minimizer, so these grammars go through it. The minimum is computed
 * here, independently of the engine: a random regular expression becomes a DFA by subset
 * construction over its Thompson NFA, and Moore refinement to its fixpoint counts the classes
 * (the dead state included, as the engine's state 0). A partition that keeps two equivalent
 * states apart shows as a larger count.
 */
import { describe, expect, it } from "vitest";
import { choice, GrammarBuilder, lit, seq, star, type IrExpr, type IrGrammar } from "../../lib/compile/ir.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { rng } from "../helpers/random.js";
import { randomValues } from "./enum-values.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { randomWalk } from "./walk.js";

type Re = { t: "lit"; s: string } | { t: "seq" | "alt"; xs: Re[] } | { t: "star"; x: Re };

/** A random expression over a few letters, with literals of one to three bytes. */
function randomRe(rnd: () => number, depth: number): Re {
  const pick = Math.floor(rnd() * (depth <= 0 ? 1 : 4));
  const letters = "abcd";
  if (pick === 0) {
    const len = 1 + Math.floor(rnd() * 3);
    let s = "";
    for (let i = 0; i < len; i++) s += letters[Math.floor(rnd() * letters.length)]!;
    return { t: "lit", s };
  }
  if (pick === 3) return { t: "star", x: randomRe(rnd, depth - 1) };
  const xs = Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => randomRe(rnd, depth - 1));
  return { t: pick === 1 ? "seq" : "alt", xs };
}

function toIr(re: Re): IrExpr {
  if (re.t === "lit") return lit(re.s);
  if (re.t === "star") return star(toIr(re.x));
  const items = re.xs.map(toIr);
  return re.t === "seq" ? seq(...items) : choice(...items);
}

function grammarOf(re: Re): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", toIr(re));
  return g.build("root");
}

/** The number of states of the minimal complete DFA of `re` over all bytes. */
function minimalStates(re: Re): number {
  // Thompson NFA: byte edges and epsilon edges.
  const bytes: Array<Array<[number, number]>> = [];
  const eps: number[][] = [];
  const add = () => {
    bytes.push([]);
    eps.push([]);
    return bytes.length - 1;
  };
  const build = (r: Re, from: number): number => {
    if (r.t === "lit") {
      let at = from;
      for (const b of Buffer.from(r.s)) {
        const next = add();
        bytes[at]!.push([b, next]);
        at = next;
      }
      return at;
    }
    if (r.t === "seq") return r.xs.reduce((at, x) => build(x, at), from);
    const to = add();
    // "seq" returned above, so anything but a star is an alternation.
    if (r.t !== "star") {
      for (const x of r.xs) {
        const start = add();
        eps[from]!.push(start);
        eps[build(x, start)]!.push(to);
      }
      return to;
    }
    const start = add();
    eps[from]!.push(start, to);
    const end = build(r.x, start);
    eps[end]!.push(start, to);
    return to;
  };
  const start = add();
  const accept = build(re, start);
  const closure = (set: Iterable<number>): number[] => {
    const seen = new Set<number>(set);
    const stack = [...seen];
    while (stack.length > 0) {
      for (const t of eps[stack.pop()!]!) {
        if (!seen.has(t)) {
          seen.add(t);
          stack.push(t);
        }
      }
    }
    return [...seen].sort((x, y) => x - y);
  };
  // Subset construction; DFA state 0 is the empty set (dead), every byte not listed goes there.
  const ids = new Map<string, number>([["", 0]]);
  const sets: number[][] = [[]];
  const delta: Array<Map<number, number>> = [new Map()];
  const queue = [closure([start])];
  ids.set(queue[0]!.join(","), 1);
  sets.push(queue[0]!);
  delta.push(new Map());
  while (queue.length > 0) {
    const set = queue.shift()!;
    const id = ids.get(set.join(","))!;
    const moves = new Map<number, number[]>();
    for (const s of set) for (const [b, t] of bytes[s]!) moves.set(b, [...(moves.get(b) ?? []), t]);
    for (const [b, targets] of moves) {
      const next = closure(targets);
      const key = next.join(",");
      let t = ids.get(key);
      if (t === undefined) {
        t = sets.length;
        ids.set(key, t);
        sets.push(next);
        delta.push(new Map());
        queue.push(next);
      }
      delta[id]!.set(b, t);
    }
  }
  // Moore refinement: a class is (class, classes of the successors on every byte used).
  const used = [...new Set(delta.flatMap((d) => [...d.keys()]))].sort((x, y) => x - y);
  let cls: number[] = sets.map((set) => (set.includes(accept) ? 1 : 0));
  for (;;) {
    const keys = new Map<string, number>();
    const next = cls.map((c, s) => {
      const key = `${c}|${used.map((b) => cls[delta[s]!.get(b) ?? 0]).join(",")}`;
      let k = keys.get(key);
      if (k === undefined) {
        k = keys.size;
        keys.set(key, k);
      }
      return k;
    });
    const before = new Set(cls).size;
    cls = next;
    if (keys.size === before) return keys.size;
  }
}

/** Whether `re` has a star: without one the automaton takes the acyclic minimizer. */
const hasStar = (re: Re): boolean => re.t === "star" || (re.t !== "lit" && re.xs.some(hasStar));

describe("partition refinement gives the minimal automaton", () => {
  const vocab = tinyVocabulary();
  it("random expressions with a cycle: the engine's state count equals the Moore minimum", () => {
    let checked = 0;
    for (let seed = 1; checked < 120; seed++) {
      const re = randomRe(rng(seed), 4);
      if (!hasStar(re)) continue;
      checked++;
      const states = compileGrammar(vocab, grammarOf(re), { threads: 1 }).stats().states;
      expect([seed, states]).toEqual([seed, minimalStates(re)]);
    }
  });

  it("an enum beside a loop: suffixes shared by final and non-final states still merge", () => {
    // The enums of string-enums.test.ts with a loop beside them; seed 13 has a final state with
    // live segments [7, 8] and non-final ones with only [8], whose keys collided in the former
    // initial partition and split their class.
    for (let seed = 1; seed <= 24; seed++) {
      const values = randomValues(seed, 5 + seed * 3);
      const re: Re = { t: "alt", xs: [...values.map((s): Re => ({ t: "lit", s })), { t: "star", x: { t: "lit", s: "\u0002" } }] };
      const grammar = grammarOf(re);
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      expect([seed, compiled.stats().states]).toEqual([seed, minimalStates(re)]);
      if (seed === 13) for (let walk = 1; walk <= 6; walk++) randomWalk(grammar, compiled, vocab.data, { steps: 12, seed: walk, checkAllAccepts: true });
    }
  });
});
