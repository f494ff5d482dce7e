/**
 * Plain-depth cuts in rules that count (docs/engine.md, "Counted repetition", "Masks"): a walk in
 * the plain trie may accept a whole subtree at a state that plain characters keep alive, even in
 * a rule with counted repetition, when no path on plain bytes from that state meets a counter
 * check that can fail (a short unrolled string beside a counted one: only the closing quote, which
 * no plain token holds, leads on to the counted string). Where a plain byte does lead to such a
 * check (a comma before a counted loop), the walk must step the tokens. Every token's acceptToken
 * is checked against the recognizer at and around the bounds.
 */
import { describe, expect, it } from "vitest";
import { ebnfToIr } from "../../lib/compile/ebnf/index.js";
import { GrammarBuilder, type IrGrammar } from "../../lib/compile/ir.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { walksAfterPrefixes } from "./walk.js";

function ebnf(source: string): IrGrammar {
  const g = new GrammarBuilder();
  ebnfToIr(source, g);
  return g.build("root");
}

const A16 = "a".repeat(16);
/** Tokens that cross a comma into a counted loop and past its bound. */
const vocab = tinyVocabulary(["aaaa", A16, "a,", "," + A16, "," + "a".repeat(41), "a," + "a".repeat(40), "aa," + "a".repeat(39)]);

describe("plain-depth cuts in counted rules on a tiny vocabulary", () => {
  it("a short unrolled part before a comma and a counted loop", () => {
    const grammar = ebnf('root ::= "[" [a-z]{0,5} "," [a-z]{0,40} "]"');
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const prefixes = ["[", "[aa", "[aaaaa", "[a,", "[aa," + "a".repeat(24), "[," + "a".repeat(39), "[," + "a".repeat(40)];
    walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 4, 8);
  });

  it("JSON: short strings beside a counted one in one object", () => {
    const grammar = compileJsonSchema(
      {
        type: "object",
        properties: { s: { type: "string", maxLength: 6 }, t: { type: "string", maxLength: 40 }, u: { type: "string", maxLength: 3 } },
        required: ["s", "t", "u"],
        additionalProperties: false,
      },
      { whitespace: "compact" },
    ).grammar;
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const prefixes = ['{"s":"', '{"s":"aaaaa', '{"s":"","t":"' + "a".repeat(39), '{"s":"","t":"","u":"', '{"s":"","t":"","u":"aa'];
    walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 4, 8);
    expect(compiled.stats().states).toBeGreaterThan(10);
  });
});
