/**
 * Exactness on tiny hand-made vocabularies: tokens that split multi-byte UTF-8 characters, tokens
 * that span grammar boundaries (`"}`, `<|close|>call<|sep|><|open|>`), special text tokens,
 * control tokens, padding ids; the engine's masks and accepts are compared with the oracle at
 * every step of seeded random walks, and acceptToken is checked for every token.
 */
import { describe, expect, it } from "vitest";
import { charClass, choice, GrammarBuilder, lit, optional, plus, repeat, seq, star, text, type IrGrammar } from "../../lib/compile/ir.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { randomWalk } from "./walk.js";

function grammars(): Array<[string, IrGrammar]> {
  const out: Array<[string, IrGrammar]> = [];
  const one = (name: string, body: Parameters<GrammarBuilder["define"]>[1]) => {
    const g = new GrammarBuilder();
    g.define("root", body);
    out.push([name, g.build("root")]);
  };
  one("object with choices", seq(lit("{\"a\":"), choice(lit("1"), lit("22"), lit("\"ab\"")), lit("}")));
  one("free text then marker", seq(text(["<|close|>"]), lit("<|close|>")));
  one("K3 call sequence", seq(lit("<|open|>call<|sep|>"), star(charClass([[0x61, 0x7a]])), lit("<|close|>call<|sep|>"),
    optional(seq(lit("<|open|>"), text(["<|close|>"]), lit("<|close|>")))));
  one("multi-byte class", seq(plus(charClass([[0xe9, 0xe9], [0x20ac, 0x20ac], [0x1f600, 0x1f64f]])), optional(lit("x"))));
  one("negated class and escapes", seq(lit("\""), star(choice(charClass([0x22, 0x5c, [0, 0x1f]], true), seq(lit("\\"), choice(lit("n"), seq(lit("u"), repeat(charClass([[0x30, 0x39], [0x61, 0x66]]), 4, 4)))))), lit("\"")));
  one("bounded repeat", seq(repeat(lit("ab"), 1, 3), lit("x")));
  one("text with max chars", seq(lit("["), text(["]"], { maxChars: 3 }), lit("]")));
  one("nullable everything", seq(optional(lit("a")), star(lit("b")), optional(lit("<|sep|>"))));
  {
    // A state machine written as rules: every reference between them is in tail position.
    const g = new GrammarBuilder();
    g.define("root", seq(lit("["), g.ruleRef("s1")));
    g.define("s1", choice(seq(lit("a"), g.ruleRef("s2")), seq(lit("b"), g.ruleRef("s1")), lit("]")));
    g.define("s2", choice(seq(lit("b"), g.ruleRef("s1")), seq(lit("a"), g.ruleRef("s3"))));
    g.define("s3", choice(lit("]"), seq(lit("x"), g.ruleRef("s1")), seq(charClass([0xe9, 0x20ac]), g.ruleRef("s2"))));
    out.push(["right-linear rules", g.build("root")]);
  }
  {
    // Shared sub-rules reached along many paths, in and out of tail position.
    const g = new GrammarBuilder();
    g.define("root", seq(choice(g.ruleRef("p"), g.ruleRef("q")), optional(seq(lit(","), g.ruleRef("p")))));
    g.define("p", choice(seq(lit("a"), g.ruleRef("tail")), seq(lit("b"), g.ruleRef("tail")), seq(g.ruleRef("tail"), lit(":"))));
    g.define("q", seq(lit("x"), choice(g.ruleRef("tail"), seq(lit("y"), g.ruleRef("tail")))));
    g.define("tail", seq(star(charClass([[0x61, 0x62]])), lit("1")));
    out.push(["shared tail rules", g.build("root")]);
  }
  {
    const g = new GrammarBuilder();
    g.define("root", g.ruleRef("array"));
    g.define("array", seq(lit("["), optional(seq(g.ruleRef("value"), star(seq(lit(","), g.ruleRef("value"))))), lit("]")));
    g.define("value", choice(g.ruleRef("array"), plus(charClass([[0x30, 0x39]]))));
    out.push(["recursive arrays", g.build("root")]);
  }
  {
    const g = new GrammarBuilder();
    g.define("root", seq(g.ruleRef("v"), optional(lit("\n"))));
    g.define("v", choice(seq(lit("{"), optional(seq(g.ruleRef("kv"), star(seq(lit(", "), g.ruleRef("kv"))))), lit("}")), lit("1"), seq(lit("["), optional(g.ruleRef("v")), lit("]"))));
    g.define("kv", seq(lit("\"a\":"), g.ruleRef("v")));
    out.push(["recursive objects", g.build("root")]);
  }
  return out;
}

describe("exact masks on a tiny vocabulary", () => {
  const vocab = tinyVocabulary();
  for (const [name, grammar] of grammars()) {
    it(name, () => {
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      let steps = 0;
      for (let seed = 1; seed <= 12; seed++) {
        const r = randomWalk(grammar, compiled, vocab.data, { steps: 40, seed, checkAllAccepts: true });
        steps += r.steps;
      }
      expect(steps).toBeGreaterThan(0);
    });
  }
});
