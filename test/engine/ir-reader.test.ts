/**
 * The native IR reader: every corruption of a valid buffer is a GrammarError naming what is
 * wrong (a table of targeted corruptions), and random truncations and byte flips never crash
 * the process: compiling either succeeds or throws a GrammarError.
 */
import { describe, expect, it } from "vitest";
import { GrammarError } from "../../lib/errors.js";
import { charClass, choice, counted, GrammarBuilder, lit, optional, plus, repeat, seq, serializeGrammar, star, text, unit } from "../../lib/compile/ir.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { seedGrammar } from "./grammars.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { rng } from "../helpers/random.js";

function sample(): Uint8Array {
  const g = new GrammarBuilder();
  g.define("root", seq(lit("ab"), g.ruleRef("item"), optional(text(["x", "~"], { maxChars: 3, maxTokens: 2 }))));
  g.define("item", choice(charClass([[0x61, 0x7a], 0xe9]), repeat(lit("c"), 1, 3), star(g.ruleRef("item2"))));
  g.define("item2", choice(plus(lit("[")), seq(counted(plus(unit(lit("~"))), 2, 40), lit("!"))));
  return serializeGrammar(g.build("root"));
}

/** Layout offsets of a serialized grammar (docs/ir.md). */
function layout(buf: Uint8Array) {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const word = (i: number) => v.getUint32(i * 4, true);
  const rules = word(2);
  const nodes = word(4);
  const extra = word(5);
  const nodesAt = 8 + 3 * rules;
  const extraAt = nodesAt + 4 * nodes;
  const kinds = Array.from({ length: nodes }, (_, i) => word(nodesAt + 4 * i));
  return { v, word, rules, nodes, extra, nodesAt, extraAt, kinds, bytesAt: (extraAt + extra) * 4 };
}

function mutate(fn: (buf: Uint8Array, l: ReturnType<typeof layout>) => Uint8Array | void): Uint8Array {
  const buf = sample().slice();
  return fn(buf, layout(buf)) ?? buf;
}

const set = (l: ReturnType<typeof layout>, word: number, value: number) => l.v.setUint32(word * 4, value >>> 0, true);
const nodeOf = (l: ReturnType<typeof layout>, kind: number) => l.kinds.indexOf(kind);

const CORRUPTIONS: Array<[string, () => Uint8Array, RegExp]> = [
  ["empty buffer", () => new Uint8Array(0), /at least 32/],
  ["length not a multiple of 4", () => mutate((b) => b.slice(0, b.length - 1)), /multiple of 4/],
  ["truncated by a word", () => mutate((b) => b.slice(0, b.length - 4)), /need \d+/],
  ["bad magic", () => mutate((_, l) => set(l, 0, 0x12345678)), /bad magic/],
  ["unsupported version", () => mutate((_, l) => set(l, 1, 2)), /version 2/],
  ["zero rules", () => mutate((_, l) => set(l, 2, 0)), /at least one rule/],
  ["root out of range", () => mutate((_, l) => set(l, 3, 99)), /rootRule 99/],
  ["flags set", () => mutate((_, l) => set(l, 7, 1)), /flags must be 0/],
  ["unknown node kind", () => mutate((_, l) => set(l, l.nodesAt, 99)), /unknown kind code 99/],
  ["bytes of length 0", () => mutate((_, l) => set(l, l.nodesAt + 4 * nodeOf(l, 2) + 2, 0)), /at least one byte/],
  ["bytes outside the pool", () => mutate((_, l) => set(l, l.nodesAt + 4 * nodeOf(l, 2) + 1, 1 << 20)), /outside the byte pool/],
  ["class with no ranges", () => mutate((_, l) => set(l, l.nodesAt + 4 * nodeOf(l, 3) + 2, 0)), /at least one range/],
  ["class flags", () => mutate((_, l) => set(l, l.nodesAt + 4 * nodeOf(l, 3) + 3, 2)), /negated/],
  ["class range beyond U+10FFFF", () => mutate((_, l) => set(l, l.extraAt + l.word(l.nodesAt + 4 * nodeOf(l, 3) + 1) + 1, 0x110000)), /0x10FFFF/],
  ["class ranges unsorted", () => mutate((_, l) => set(l, l.extraAt + l.word(l.nodesAt + 4 * nodeOf(l, 3) + 1) + 2, 0x50)), /sorted/],
  ["class ranges adjacent", () => mutate((_, l) => {
    const at = l.extraAt + l.word(l.nodesAt + 4 * nodeOf(l, 3) + 1);
    set(l, at + 2, 0x7b);
    set(l, at + 3, 0x7b);
  }), /touches/],
  ["child not before its parent", () => mutate((_, l) => set(l, l.extraAt + l.word(l.nodesAt + 4 * nodeOf(l, 4) + 1), 1000)), /post-order/],
  ["repeat max below min", () => mutate((_, l) => {
    const n = nodeOf(l, 6);
    set(l, l.nodesAt + 4 * n + 2, 5);
    set(l, l.nodesAt + 4 * n + 3, 2);
  }), /max 2 is below min 5/],
  ["counted max below min", () => mutate((_, l) => set(l, l.nodesAt + 4 * nodeOf(l, 9) + 3, 1)), /max 1 is below min 2/],
  ["counted item after it", () => mutate((_, l) => set(l, l.nodesAt + 4 * nodeOf(l, 9) + 1, 1000)), /post-order/],
  ["unit with a field set", () => mutate((_, l) => set(l, l.nodesAt + 4 * nodeOf(l, 10) + 2, 1)), /fields b and c must be 0/],
  ["ref to a missing rule", () => mutate((_, l) => set(l, l.nodesAt + 4 * nodeOf(l, 7) + 1, 7)), /refers to rule 7/],
  ["empty excluded string", () => mutate((_, l) => set(l, l.extraAt + l.word(l.nodesAt + 4 * nodeOf(l, 8) + 1) + 3, 0)), /excluded string 0 is empty/],
  ["rule body out of range", () => mutate((_, l) => set(l, 8 + 2, 500)), /body is node 500/],
  ["duplicate rule names", () => mutate((_, l) => {
    set(l, 8 + 3, l.word(8));
    set(l, 8 + 4, l.word(9));
  }), /duplicate rule name/],
  ["non-zero padding", () => mutate((b) => {
    if (b[b.length - 1] === 0 && layout(b).word(6) % 4 !== 0) b[b.length - 1] = 1;
    else b.set([1, 2, 3, 4], 0);
  }), /padding|magic/],
];

describe("the native IR reader", () => {
  const vocab = tinyVocabulary();
  it("compiles the intact sample", () => {
    expect(compileGrammar(vocab, sample()).stateCount).toBeGreaterThan(1);
  });
  it.each(CORRUPTIONS)("%s is a GrammarError", (_name, make, message) => {
    const buf = make();
    let error: unknown;
    try {
      compileGrammar(vocab, buf);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GrammarError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/invalid grammar IR at (header|node \d+|rule \d+|bytes)/);
  });

  it("survives random truncations and byte flips (GrammarError or success, never a crash)", () => {
    const bases = [sample(), serializeGrammar(seedGrammar("required"))];
    const random = rng(7);
    let errors = 0;
    let ok = 0;
    for (let i = 0; i < 600; i++) {
      const base = bases[i % bases.length]!;
      let buf = base.slice();
      if (i % 5 === 0) {
        buf = buf.slice(0, Math.floor(random() * buf.length));
      } else {
        const flips = 1 + Math.floor(random() * 4);
        for (let k = 0; k < flips; k++) {
          const at = Math.floor(random() * buf.length);
          buf[at] = buf[at]! ^ (1 << Math.floor(random() * 8));
        }
      }
      try {
        compileGrammar(vocab, buf, { threads: 1 });
        ok++;
      } catch (e) {
        expect(e, String(e)).toBeInstanceOf(GrammarError);
        errors++;
      }
    }
    expect(errors).toBeGreaterThan(0);
    expect(ok + errors).toBe(600);
  });
});
