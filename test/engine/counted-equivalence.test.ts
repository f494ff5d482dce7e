/**
 * Token equivalence in rules with counted repetition (docs/engine.md, "The mask cache"): states
 * of such a rule that no token tells apart share one walk, as in other rules, but only when
 * they also agree on every counter operation a token can meet (the checks on entering a state
 * and on ending the rule, and each transition's operation). Two counted loops that differ only by
 * their bound must keep walks of their own: merged, one would get the other's masks at the bound.
 * Every token's acceptToken is checked against the recognizer at and around the bounds.
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

/** Tokens long enough to cross a bound, and to read into the tails below. */
const vocab = tinyVocabulary(["aaaa", "aaaaaaaa", "aaaaaaaaaaaaaaaa", "a.", "a.b", "bbbb", "bbbbbbbbbbbbbbbb", "b1", "b2"]);

/** Tails that differ only past the longest token (28 bytes): their states share walks. */
const TAIL = "b".repeat(40);

describe("token equivalence with counted repetition on a tiny vocabulary", () => {
  it("two loops that differ only by their bound keep walks of their own", () => {
    // After "x" and after "y" the loops read alike, and so do the tails after "." on every
    // string a token can hold: only the counter operations (at most 40 or 41 letters) differ.
    const grammar = ebnf(`root ::= "x" [a-z]{0,40} "." "${TAIL}1" | "y" [a-z]{0,41} "." "${TAIL}2"`);
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const stats = compiled.stats();
    // The tails' positions far from their ends share walks (the rule counts, which used to
    // give every state a walk of its own).
    expect(stats.walkedStates).toBeLessThan(stats.states - 20);
    const prefixes = ["x", "x" + "a".repeat(24), "x" + "a".repeat(39), "x" + "a".repeat(40), "y" + "a".repeat(40), "y" + "a".repeat(41), "x" + "a".repeat(40) + ".", "y" + "a".repeat(5) + "." + "b".repeat(30)];
    walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 4, 8);
  });

  it("JSON strings with length bounds in one object", () => {
    const grammar = compileJsonSchema(
      {
        type: "object",
        properties: { a: { type: "string", maxLength: 40 }, b: { type: "string", maxLength: 41 }, c: { type: "string", pattern: "^[a-z.]+$", minLength: 2, maxLength: 40 } },
        required: ["a", "b", "c"],
        additionalProperties: false,
      },
      { whitespace: "compact" },
    ).grammar;
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const prefixes = ['{"a":"' + "a".repeat(39), '{"a":"' + "a".repeat(40), '{"a":"","b":"' + "a".repeat(40), '{"a":"","b":"' + "a".repeat(41), '{"a":"","b":"","c":"' + "a".repeat(38), '{"a":"","b":"","c":"a'];
    walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 4, 8);
  });
});
