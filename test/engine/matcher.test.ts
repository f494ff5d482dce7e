/**
 * Matcher semantics on the tiny vocabulary: rollback exactness, fork independence, reset,
 * termination, the error state, jump-forward strings, maxTokens, acceptString, and the typed
 * errors for bad arguments.
 */
import { describe, expect, it } from "vitest";
import { charClass, choice, GrammarBuilder, lit, optional, plus, seq, star, text, type IrExpr, type IrGrammar } from "../../lib/compile/ir.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { InvalidArgumentError, MatcherStateError } from "../../lib/errors.js";
import { maskIds } from "./oracle.js";
import { TINY_TOKENS, tinyVocabulary } from "./tiny-vocab.js";

const vocab = tinyVocabulary();
const id = (token: string): number => {
  const i = TINY_TOKENS.findIndex((t) => t === token);
  if (i < 0) throw new Error(`no token ${token}`);
  return i;
};
const EOS = id("<eos>");

function grammarOf(body: IrExpr): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", body);
  return g.build("root");
}

function arrays(): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", g.ruleRef("array"));
  g.define("array", seq(lit("["), optional(seq(g.ruleRef("value"), star(seq(lit(","), g.ruleRef("value"))))), lit("]")));
  g.define("value", choice(g.ruleRef("array"), plus(charClass([[0x30, 0x39]]))));
  return g.build("root");
}

const matcherFor = (grammar: IrGrammar, options = {}) => new GrammarMatcher(compileGrammar(vocab, grammar), options);
const allowed = (m: GrammarMatcher) => maskIds(m.nextTokenBitmask(), vocab.vocabSize).map((i) => TINY_TOKENS[i] ?? `#${i}`);

describe("GrammarMatcher", () => {
  it("rolls back exactly: the mask after rollback equals the mask before", () => {
    const m = matcherFor(arrays());
    const path = ["[[", "1", ",", "[]", "],[", "2", "]", "]"];
    const masks: Int32Array[] = [m.nextTokenBitmask()];
    for (const t of path) {
      expect(m.acceptToken(id(t)), t).toBe(true);
      masks.push(m.nextTokenBitmask());
    }
    expect(m.canTerminate()).toBe(true);
    for (let k = path.length; k > 0; k--) {
      m.rollback(1);
      expect(m.stepCount).toBe(k - 1);
      expect(m.nextTokenBitmask()).toEqual(masks[k - 1]);
    }
    // And forward again along another path.
    expect(m.acceptToken(id("[]"))).toBe(true);
    expect(m.canTerminate()).toBe(true);
    m.reset();
    for (const t of path.slice(0, 5)) m.acceptToken(id(t));
    m.rollback(3);
    expect(m.nextTokenBitmask()).toEqual(masks[2]);
  });

  it("forks independent copies", () => {
    const m = matcherFor(arrays());
    m.acceptToken(id("["));
    const before = m.nextTokenBitmask();
    const f = m.fork();
    expect(f.nextTokenBitmask()).toEqual(before);
    expect(f.acceptToken(id("[["))).toBe(true);
    expect(m.nextTokenBitmask()).toEqual(before);
    expect(m.acceptToken(id("1"))).toBe(true);
    expect(f.stepCount).toBe(2);
    expect(allowed(f)).toContain("]]");
    expect(allowed(m)).not.toContain("[");
  });

  it("resets to the initial state", () => {
    const m = matcherFor(arrays());
    const initial = m.nextTokenBitmask();
    for (const t of ["[", "1", ","]) m.acceptToken(id(t));
    m.reset();
    expect(m.stepCount).toBe(0);
    expect(m.nextTokenBitmask()).toEqual(initial);
  });

  it("terminates on a stop token only where the grammar can end", () => {
    const m = matcherFor(grammarOf(seq(lit("ab"), optional(lit("x")))));
    expect(m.acceptToken(EOS)).toBe(false);
    expect(m.acceptToken(id("ab"))).toBe(true);
    expect(m.canTerminate()).toBe(true);
    expect(allowed(m).sort()).toEqual(["<eos>", "x", "xy"].filter((t) => t !== "xy").sort());
    expect(m.acceptToken(EOS)).toBe(true);
    expect(m.isTerminated()).toBe(true);
    expect(allowed(m)).toEqual(["<eos>"]);
    expect(m.acceptToken(id("x"))).toBe(false);
    m.rollback(1);
    expect(m.isTerminated()).toBe(false);
    expect(m.acceptToken(id("x"))).toBe(true);
  });

  it("never allows control tokens or padding ids, and rejects them in acceptToken", () => {
    const m = matcherFor(grammarOf(text()));
    const ids = maskIds(m.nextTokenBitmask(), vocab.vocabSize);
    expect(ids).not.toContain(id("<bos>"));
    expect(ids.some((i) => i >= TINY_TOKENS.length)).toBe(false);
    expect(m.acceptToken(id("<bos>"))).toBe(false);
    expect(m.acceptToken(TINY_TOKENS.length + 2)).toBe(false);
    expect(m.stepCount).toBe(0);
  });

  it("enters an error state on an internal failure and reports it in every later call", () => {
    const m = matcherFor(arrays(), { maxStackDepth: 3 });
    expect(m.acceptToken(id("[["))).toBe(true);
    expect(() => m.acceptToken(id("[["))).toThrow(MatcherStateError);
    expect(m.inError).toBe(true);
    expect(m.errorMessage).toMatch(/maxStackDepth = 3/);
    const calls: Array<() => unknown> = [
      () => m.acceptToken(id("1")),
      () => m.nextTokenBitmask(),
      () => m.canTerminate(),
      () => m.rollback(1),
      () => m.fork(),
      () => m.findJumpForwardString(),
      () => m.acceptString("1"),
    ];
    for (const call of calls) expect(call).toThrow(/error state.*maxStackDepth = 3/);
    for (const call of calls) expect(call).toThrow(MatcherStateError);
    m.reset();
    expect(m.inError).toBe(false);
    expect(m.acceptToken(id("["))).toBe(true);
  });

  it("finds jump-forward strings of whole characters", () => {
    const m = matcherFor(grammarOf(seq(lit("<|open|>call"), choice(lit(" alpha"), lit(" alps")), lit("é!"), optional(lit("x")))));
    // " alpha" and " alps" share " alp".
    expect(m.findJumpForwardString()).toBe("<|open|>call alp");
    expect(m.acceptString("<|open|>call alp")).toBe(true);
    expect(m.findJumpForwardString()).toBe("");
    expect(m.acceptString("s")).toBe(true);
    expect(m.findJumpForwardString()).toBe("é!");
    // Inside the character: the forced bytes start with a continuation byte, so nothing.
    const lead = TINY_TOKENS.findIndex((t) => t instanceof Uint8Array && t.length === 1 && t[0] === 0xc3);
    expect(m.acceptToken(lead)).toBe(true);
    expect(m.findJumpForwardString()).toBe("");
    expect(m.acceptString(Uint8Array.of(0xa9, 0x21))).toBe(true);
    // The grammar can end here: nothing is forced.
    expect(m.findJumpForwardString()).toBe("");
  });

  it("cuts a jump-forward string before a partial character", () => {
    const m = matcherFor(grammarOf(seq(lit("a€"), choice(lit("b"), lit("c")))));
    expect(m.findJumpForwardString()).toBe("a€");
    const g = matcherFor(grammarOf(seq(lit(Uint8Array.of(0x61, 0xe2, 0x82)), choice(lit(Uint8Array.of(0xac)), lit(Uint8Array.of(0xad))))));
    expect(g.findJumpForwardString()).toBe("a");
  });

  it("enforces maxTokens per occurrence of a text", () => {
    const item = seq(lit("["), text(["]"], { maxTokens: 2 }), lit("]"));
    const grammar = grammarOf(seq(item, star(seq(lit(","), item))));
    const m = matcherFor(grammar);
    expect(m.acceptToken(id("["))).toBe(true);
    expect(allowed(m)).toContain("a");
    expect(m.acceptToken(id("a"))).toBe(true);
    expect(m.acceptToken(id("b"))).toBe(true);
    // Two tokens consumed text: only a token that leaves it now.
    expect(allowed(m).sort()).toEqual(["<eos>", "]", "],["].filter((t) => t !== "<eos>").sort());
    expect(m.acceptToken(id("a"))).toBe(false);
    expect(m.acceptToken(id("],["))).toBe(true);
    // A new occurrence starts counting again; "],[" consumed none of its bytes.
    expect(m.acceptToken(id("ab"))).toBe(true);
    expect(m.acceptToken(id("x"))).toBe(true);
    expect(m.acceptToken(id("x"))).toBe(false);
    m.rollback(1);
    expect(m.acceptToken(id("xy"))).toBe(true);
    expect(allowed(m)).not.toContain("a");
    expect(m.acceptToken(id("]"))).toBe(true);
    expect(m.canTerminate()).toBe(true);
  });

  it("accepts strings as one step, and rejects a string that does not fit without changing state", () => {
    const m = matcherFor(arrays());
    expect(m.acceptString("[1,[2")).toBe(true);
    expect(m.stepCount).toBe(1);
    const before = m.nextTokenBitmask();
    expect(m.acceptString("]x")).toBe(false);
    expect(m.nextTokenBitmask()).toEqual(before);
    expect(m.acceptString("]]")).toBe(true);
    expect(m.canTerminate()).toBe(true);
    m.rollback(1);
    expect(m.nextTokenBitmask()).toEqual(before);
  });

  it("checks bitmask sizes, rows and token ids with typed errors", () => {
    const m = matcherFor(arrays());
    const words = Math.ceil(vocab.vocabSize / 32);
    expect(() => m.fillNextTokenBitmask(new Int32Array(words - 1))).toThrow(InvalidArgumentError);
    expect(() => m.fillNextTokenBitmask(new Int32Array(words * 2), 2)).toThrow(
      `bitmask must have at least (row+1)*ceil(V/32) = 3*${words} = ${3 * words} int32 words, got ${2 * words}`,
    );
    expect(() => m.fillNextTokenBitmask(new Float32Array(words) as unknown as Int32Array)).toThrow(/Int32Array/);
    expect(() => m.fillNextTokenBitmask(new Int32Array(words), -1)).toThrow(InvalidArgumentError);
    const rows = new Int32Array(words * 3);
    m.fillNextTokenBitmask(rows, 1);
    expect(rows.subarray(words, 2 * words)).toEqual(m.nextTokenBitmask());
    expect(rows.subarray(0, words).every((x) => x === 0)).toBe(true);
    expect(() => m.acceptToken(vocab.vocabSize)).toThrow(`token id ${vocab.vocabSize} is out of range`);
    expect(() => m.acceptToken(-1)).toThrow(InvalidArgumentError);
    expect(() => m.acceptToken(1.5)).toThrow(InvalidArgumentError);
    expect(() => m.rollback(5)).toThrow(/cannot roll back 5 steps: only 0/);
    expect(m.inError).toBe(false);
  });
});
