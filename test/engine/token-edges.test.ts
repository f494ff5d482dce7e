/**
 * Token-level formats in the engine: token edges taken by acceptToken as a unit, the masks they
 * fill, rollback across them, jump-forward stopping at them, the end-token detection of tags,
 * any_tokens budgets, and the compile-time errors of token references. The vocabulary is a
 * token list like xgrammar's own token-edge tests use: plain text tokens, "</s>" the stop token.
 */
import { describe, expect, it } from "vitest";
import { GrammarBuilder, anyTokens, excludeToken, lit, seq, star, token, type IrExpr, type IrGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { BatchMatcher } from "../../lib/engine/batch.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { GrammarError } from "../../lib/errors.js";
import type { Format } from "../../lib/format/types.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { maskIds } from "./oracle.js";

const VOCAB = ["<s>", "</s>", "<tool>", "<code>", "<end>", "<think>", "<think_end>", "hello", "world", "{", "}", "fn(", ")", "x", "y", ",", "<bad>"];
const STOP = 1;
const ALL = VOCAB.map((_, i) => i);
const vocab = TokenizerInfo.fromTokens(VOCAB, { vocabType: "raw" });
const idOf = (t: string): number => VOCAB.indexOf(t);

function matcherOf(source: Format | IrExpr): GrammarMatcher {
  let grammar: IrGrammar;
  if ("type" in source) grammar = lowerFormat(source);
  else {
    const b = new GrammarBuilder();
    b.define("root", source);
    grammar = b.build("root");
  }
  return new GrammarMatcher(compileGrammar(vocab, grammar));
}
const allowed = (m: GrammarMatcher): number[] => maskIds(m.nextTokenBitmask(), vocab.vocabSize);
const except = (...ids: number[]): number[] => ALL.filter((i) => !ids.includes(i));
const tok = (t: string | number): Format => ({ type: "token", token: t });
const tagOf = (begin: string | Format, content: Format, end: string | Format): Format =>
  ({ type: "tag", begin, content, end } as unknown as Format);

/** Accepts each token in turn, failing with the token's name. */
function acceptAll(m: GrammarMatcher, tokens: Array<string | number>): void {
  for (const t of tokens) {
    const id = typeof t === "number" ? t : idOf(t);
    expect(m.acceptToken(id), `accept ${VOCAB[id] ?? id}`).toBe(true);
  }
}

describe("token nodes in the IR", () => {
  it("a token set matches its ids only, through the edge, not their bytes elsewhere", () => {
    const m = matcherOf(token(2, 4));
    expect(allowed(m)).toEqual([2, 4]);
    expect(m.acceptToken(3)).toBe(false);
    acceptAll(m, [4]);
    expect(allowed(m)).toEqual([STOP]);
  });

  it("a token or its text: both ways accepted", () => {
    const m = matcherOf({ kind: "choice", items: [token(2), lit("bb"), lit("<tool>x")] } as IrExpr);
    // "<tool>" itself is accepted through the edge and as the text's first token.
    expect(allowed(m)).toEqual([2]);
    acceptAll(m, ["<tool>"]);
    expect(allowed(m)).toEqual([STOP, idOf("x")]);
    expect(m.stackCount).toBe(2);
  });

  it("a token edge only at a token boundary: text then a token", () => {
    const m = matcherOf(seq(lit("fn("), token(13, 14), lit(")")));
    expect(allowed(m)).toEqual([idOf("fn(")]);
    acceptAll(m, ["fn("]);
    expect(allowed(m)).toEqual([13, 14]);
    acceptAll(m, [14, ")"]);
    expect(m.canTerminate()).toBe(true);
  });

  it("excludeToken takes any free token but the excluded, never the stop token", () => {
    const m = matcherOf(seq(excludeToken([16, 4]), lit(")")));
    expect(allowed(m)).toEqual(except(STOP, 16, 4));
    expect(m.acceptToken(16)).toBe(false);
    acceptAll(m, ["<s>"]);
    expect(allowed(m)).toEqual([idOf(")")]);
  });

  it("anyTokens loops, and ends where the grammar may", () => {
    const m = matcherOf(seq(lit("{"), anyTokens([10]), lit("}")));
    acceptAll(m, ["{"]);
    expect(allowed(m)).toEqual(except(STOP));
    acceptAll(m, ["hello", "{", "<think>", "}"]);
    expect(allowed(m)).toEqual([STOP]);
  });

  it("anyTokens with a budget: at most maxTokens, then only what follows", () => {
    const m = matcherOf(seq(anyTokens([], 2), lit("}")));
    acceptAll(m, ["x", "y"]);
    expect(allowed(m)).toEqual([idOf("}")]);
    expect(m.acceptToken(idOf("x"))).toBe(false);
    m.rollback(1);
    expect(allowed(m)).toEqual(except(STOP));
  });

  it("a zero budget matches nothing", () => {
    const m = matcherOf(seq(anyTokens([], 0), lit("}")));
    expect(allowed(m)).toEqual([idOf("}")]);
  });

  it("rolls back across token edges exactly", () => {
    const m = matcherOf(star(seq(token(11), token(13, 14), lit(")"))));
    const masks = [m.nextTokenBitmask()];
    for (const t of ["fn(", "x", ")", "fn(", "y"]) {
      acceptAll(m, [t]);
      masks.push(m.nextTokenBitmask());
    }
    for (let k = 5; k > 0; k--) {
      m.rollback(1);
      expect(m.nextTokenBitmask()).toEqual(masks[k - 1]);
    }
    acceptAll(m, ["fn(", "y", ")"]);
    expect(m.nextTokenBitmask()).toEqual(masks[3]);
  });

  it("jump-forward stops where a token edge could be taken", () => {
    const m = matcherOf(seq(lit("fn("), token(13), lit(")")));
    expect(m.findJumpForwardString()).toBe("fn(");
    acceptAll(m, ["fn("]);
    expect(m.findJumpForwardString()).toBe("");
    acceptAll(m, ["x"]);
    expect(m.findJumpForwardString()).toBe(")");
  });

  it("the batch matcher fills and accepts through token edges like single matchers", async () => {
    const grammar = (() => {
      const b = new GrammarBuilder();
      b.define("root", seq(token(2), anyTokens([4, 16]), token(4)));
      return b.build("root");
    })();
    const compiled = compileGrammar(vocab, grammar);
    const rows = [new GrammarMatcher(compiled), new GrammarMatcher(compiled)];
    const batch = new BatchMatcher(rows);
    expect(batch.acceptTokens([2, 2]).accepted).toEqual(Uint8Array.from([1, 1]));
    expect(batch.acceptTokens([idOf("hello"), 16]).accepted).toEqual(Uint8Array.from([1, 0]));
    const { bitmask } = await batch.fillNextTokenBitmasksAsync();
    const words = batch.maskWords;
    expect(maskIds(bitmask.subarray(0, words), vocab.vocabSize)).toEqual(except(STOP, 16));
    expect(maskIds(bitmask.subarray(words, 2 * words), vocab.vocabSize)).toEqual(except(STOP, 16));
    expect(batch.acceptTokens([4, 4]).accepted).toEqual(Uint8Array.from([1, 1]));
    expect(rows.map((m) => m.canTerminate())).toEqual([true, true]);
  });

  it("a fork keeps its own stacks through token edges", () => {
    const m = matcherOf(seq(token(2), anyTokens([4]), token(4)));
    acceptAll(m, ["<tool>", "hello"]);
    const f = m.fork();
    acceptAll(f, ["<end>"]);
    expect(allowed(f)).toEqual([STOP]);
    expect(allowed(m)).toEqual(except(STOP));
  });
});

describe("token-level formats", () => {
  it("a tag with token begin and end (xgrammar's token_begin_end)", () => {
    const m = matcherOf(tagOf(tok("<tool>"), { type: "const_string", value: "hello" }, tok("<end>")));
    acceptAll(m, ["<tool>", "hello", "<end>"]);
    expect(m.acceptToken(STOP)).toBe(true);
  });

  it("exclude_token inside a token tag excludes the end token too", () => {
    const m = matcherOf(tagOf(tok("<tool>"), { type: "exclude_token", exclude_tokens: [16] }, tok("<end>")));
    acceptAll(m, ["<tool>"]);
    expect(m.acceptToken(16)).toBe(false);
    expect(m.acceptToken(4)).toBe(false);
    acceptAll(m, ["hello", "<end>"]);
    expect(allowed(m)).toEqual([STOP]);
  });

  it("any_tokens until the end token", () => {
    const m = matcherOf(tagOf(tok("<think>"), { type: "any_tokens", exclude_tokens: [16] }, tok("<think_end>")));
    acceptAll(m, ["<think>", "hello", "world", "x", "{", "<s>", "<code>", "<tool>"]);
    expect(m.acceptToken(16)).toBe(false);
    expect(allowed(m)).toEqual(except(STOP, 16));
    acceptAll(m, ["<think_end>"]);
    expect(allowed(m)).toEqual([STOP]);
  });

  it("token_triggered_tags: free tokens, triggers start tags", () => {
    const tags = [
      tagOf(tok("<tool>"), { type: "const_string", value: "hello" }, tok("<end>")),
      tagOf(tok("<code>"), { type: "const_string", value: "world" }, tok("<end>")),
    ];
    const m = matcherOf({ type: "token_triggered_tags", trigger_tokens: ["<tool>", "<code>"], tags, exclude_tokens: [16] } as unknown as Format);
    expect(m.acceptToken(16)).toBe(false);
    acceptAll(m, ["hello", "world", "<tool>", "hello", "<end>", "x", "y", "<code>", "world", "<end>"]);
    expect(m.acceptToken(STOP)).toBe(true);
  });

  it("token_triggered_tags with at_least_one and stop_after_first: exactly one tag", () => {
    const m = matcherOf({ type: "token_triggered_tags", trigger_tokens: ["<tool>"], tags: [tagOf(tok("<tool>"), { type: "const_string", value: "x" }, tok("<end>"))], at_least_one: true, stop_after_first: true } as unknown as Format);
    expect(allowed(m)).toEqual([idOf("<tool>")]);
    acceptAll(m, ["<tool>", "x", "<end>"]);
    expect(allowed(m)).toEqual([STOP]);
  });

  it("token_dispatch: after a rule's token, its format; loop", () => {
    const m = matcherOf({ type: "token_dispatch", rules: [[2, { type: "const_string", value: "x" }], ["<code>", tok(14)]], exclude_tokens: [16] } as unknown as Format);
    expect(allowed(m)).toEqual(except(16));
    acceptAll(m, ["hello", "<tool>"]);
    expect(allowed(m)).toEqual([idOf("x")]);
    acceptAll(m, ["x", "<code>", "y", "world"]);
    expect(m.acceptToken(STOP)).toBe(true);
  });

  it("token_dispatch without loop: at most one dispatch", () => {
    const m = matcherOf({ type: "token_dispatch", rules: [[2, { type: "const_string", value: "x" }]], loop: false } as unknown as Format);
    acceptAll(m, ["hello", "<tool>", "x"]);
    expect(allowed(m)).toEqual([STOP]);
  });

  it("a string-level tag around token-level content (xgrammar's complex multi dispatch)", () => {
    const inner = {
      type: "token_triggered_tags",
      trigger_tokens: ["<code>", "<think>"],
      tags: [
        tagOf(tok("<code>"), { type: "any_tokens" }, tok("<end>")),
        tagOf(tok("<think>"), { type: "any_tokens", exclude_tokens: [16] }, tok("<think_end>")),
      ],
    };
    const m = matcherOf({ type: "triggered_tags", triggers: ["<tool>"], tags: [tagOf("<tool>", inner as unknown as Format, "<end>")] } as unknown as Format);
    acceptAll(m, ["hello", "world", "<tool>", "x", "y", "<code>", "hello", "world", "{", "}", "<end>", "hello", "<think>", "x", "y", "hello"]);
    expect(m.acceptToken(16)).toBe(false);
    acceptAll(m, ["<think_end>", "<end>", "world"]);
    expect(m.acceptToken(STOP)).toBe(true);
  });
});

describe("token references at compile time", () => {
  const compile = (e: IrExpr) => () => matcherOf(e);
  it.each([
    ["a text that is not a token", token("<nope>"), 'token "<nope>" is not a token of the vocabulary'],
    ["a text that is two tokens", token("helloworld"), "no token has exactly these bytes"],
    ["an id out of range", token(17), "token id 17 is out of range: the vocabulary has 17 tokens"],
    ["the stop token", token(1), 'token 1 "</s>" is a stop token of this vocabulary'],
    ["the stop token by text", token("</s>"), "is a stop token"],
    ["an excluded id out of range", excludeToken([99]), "token id 99 is out of range"],
  ])("refuses %s", (_name, e, words) => {
    expect(compile(e)).toThrow(GrammarError);
    expect(compile(e)).toThrow(words);
  });

  it("accepts the stop token among the excluded (it is never a free token anyway)", () => {
    expect(allowed(matcherOf(excludeToken([1])))).toEqual(except(STOP));
  });
});
