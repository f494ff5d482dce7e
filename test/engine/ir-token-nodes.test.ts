/**
 * Token nodes in the binary IR (docs/ir.md, "Token nodes"): the TypeScript writer and reader
 * round-trip them, the TypeScript validator and the native reader refuse each malformed field
 * with a GrammarError naming it, and random corruptions of a grammar with token nodes never
 * crash the process.
 */
import { describe, expect, it } from "vitest";
import { GrammarError } from "../../lib/errors.js";
import {
  anyTokens, deserializeGrammar, excludeToken, GrammarBuilder, lit, printGrammar, seq, serializeGrammar, token, validateGrammar, type IrExpr, type IrGrammar,
} from "../../lib/compile/ir.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { rng } from "../helpers/random.js";

const vocab = TokenizerInfo.fromTokens(["<s>", "</s>", "<tool>", "<end>", "a", "b", "ab"], { vocabType: "raw" });

function grammarOf(body: IrExpr): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", body);
  return g.build("root");
}

const sample = () => grammarOf(seq(token(2, "<tool>"), lit("a"), excludeToken([3, "b"]), anyTokens(["<end>"], 4), anyTokens([]), token("<end>")));

/** Word offsets of the node table and extra pool of a buffer. */
function layout(buf: Uint8Array) {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const word = (i: number) => v.getUint32(i * 4, true);
  const nodesAt = 8 + 3 * word(2);
  const extraAt = nodesAt + 4 * word(4);
  const kinds = Array.from({ length: word(4) }, (_, i) => word(nodesAt + 4 * i));
  return { v, word, nodesAt, extraAt, kinds };
}

function corrupt(fn: (l: ReturnType<typeof layout>, set: (word: number, value: number) => void) => void): Uint8Array {
  const buf = serializeGrammar(sample()).slice();
  const l = layout(buf);
  fn(l, (word, value) => l.v.setUint32(word * 4, value >>> 0, true));
  return buf;
}

describe("token nodes in the binary IR", () => {
  it("round-trip through serializeGrammar and deserializeGrammar", () => {
    const g = sample();
    const back = deserializeGrammar(serializeGrammar(g));
    expect(printGrammar(back)).toBe(printGrammar(g));
    expect(printGrammar(g)).toBe('root ::= token(2, "<tool>") "a" any_token(excluding 3, "b") tokens(excluding "<end>"; max_tokens=4) tokens token("<end>")\n');
  });

  it("use the kind codes 16, 17, 18", () => {
    expect(layout(serializeGrammar(sample())).kinds.filter((k) => k >= 16)).toEqual([16, 17, 18, 18, 16]);
  });

  it.each([
    ["a token node without tokens", token(), "a token node needs at least one token"],
    ["a negative id", token(-1), "a token id must be an integer in [0, 2147483647]"],
    ["an id beyond 2^31-1", excludeToken([2 ** 31]), "a token id must be an integer"],
    ["an empty text", anyTokens([""]), "a token text must be a non-empty string"],
    ["a fractional budget", anyTokens([], 1.5), "maxTokens must be an integer"],
  ])("are checked in TypeScript: %s", (_name, node, words) => {
    expect(() => validateGrammar(grammarOf(node))).toThrow(GrammarError);
    expect(() => validateGrammar(grammarOf(node))).toThrow(words);
  });

  const nodeWord = (l: ReturnType<typeof layout>, code: number, field: number) => l.nodesAt + 4 * l.kinds.indexOf(code) + field;
  const CORRUPTIONS: Array<[string, () => Uint8Array, RegExp]> = [
    ["a reserved token kind code", () => corrupt((l, set) => set(nodeWord(l, 16, 0), 19)), /unknown kind code 19 \(codes 16-18 are token nodes/],
    ["a token node with no entries", () => corrupt((l, set) => set(nodeWord(l, 16, 2), 0)), /needs at least one token/],
    ["entries outside the extra pool", () => corrupt((l, set) => set(nodeWord(l, 16, 1), 1 << 20)), /token entries lie outside the extra pool/],
    ["an unknown entry tag", () => corrupt((l, set) => set(l.extraAt + l.word(nodeWord(l, 16, 1)), 7)), /unknown tag 7/],
    ["an id above 2^31-1", () => corrupt((l, set) => set(l.extraAt + l.word(nodeWord(l, 16, 1)) + 1, 0x80000000)), /above the largest token id/],
    ["an id entry with a third word", () => corrupt((l, set) => set(l.extraAt + l.word(nodeWord(l, 16, 1)) + 2, 1)), /third word must be 0/],
    ["an empty text", () => corrupt((l, set) => set(l.extraAt + l.word(nodeWord(l, 16, 1)) + 5, 0)), /is an empty text/],
    ["a text outside the byte pool", () => corrupt((l, set) => set(l.extraAt + l.word(nodeWord(l, 16, 1)) + 4, 1 << 20)), /lies outside the byte pool/],
    ["field c of an excludeToken node", () => corrupt((l, set) => set(nodeWord(l, 17, 3), 5)), /field c must be 0/],
  ];
  it.each(CORRUPTIONS)("are checked by the native reader: %s", (_name, make, message) => {
    const buf = make();
    expect(() => compileGrammar(vocab, buf)).toThrow(GrammarError);
    expect(() => compileGrammar(vocab, buf)).toThrow(message);
  });

  it("never crash the process under random corruption", () => {
    const clean = serializeGrammar(sample());
    const random = rng(7);
    let refused = 0;
    for (let i = 0; i < 300; i++) {
      const buf = clean.slice();
      const flips = 1 + Math.floor(random() * 3);
      for (let k = 0; k < flips; k++) buf[Math.floor(random() * buf.length)] = Math.floor(random() * 256);
      try {
        compileGrammar(vocab, buf);
      } catch (e) {
        expect(e).toBeInstanceOf(GrammarError);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
  });
});
