/**
 * Token equivalence past what tokens hold (docs/engine.md, "The mask cache"): states that the
 * refinement tells apart only by strings no token contains — the word counts of an unrolled
 * `(word spaces){0,N} word`, which differ on strings with more word/space alternations than any
 * token has — are merged after a product walk over the token tries, so they share one walk.
 * States that some token does tell apart must stay apart: the vocabularies hold tokens of up to
 * four words, so the last four word counts before the bound keep walks of their own, and every
 * token's acceptToken is checked against the recognizer at and around the bound (a wrong merge
 * gives a state near the bound the mask of one far from it).
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

/** Words, spaces, and tokens of two to four words (at most seven word/space alternations). */
const vocab = tinyVocabulary(["ab", "abab", "a b", " a", "a ", "  ", "a b c", " a b", "a b c d", "a  b c d ", "abababababababab", "b.", " b."]);

/** `n` one-letter words, each followed by a space. */
const words = (n: number): string => "a ".repeat(n);

describe("token equivalence past the tokens' alternations", () => {
  it("an unrolled word count: far word counts share walks, the last ones before the bound do not", () => {
    const grammar = ebnf(`root ::= "x" ([a-z]+ " "+){0,24} [a-z]+ "."`);
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const stats = compiled.stats();
    // ~25 copies of the word and space states; without the merge each is walked.
    expect(stats.states).toBeGreaterThan(40);
    expect(stats.walkedStates).toBeLessThan(stats.states / 2);
    const prefixes = ["x", "xa", "x" + words(3), "x" + words(15), "x" + words(19), "x" + words(20) + "ab", "x" + words(21), "x" + words(22) + " ", "x" + words(23), "x" + words(24), "x" + words(24) + "ab"];
    walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 3, 6);
  });

  it("a JSON string with a word-count pattern and a length bound", () => {
    const grammar = compileJsonSchema(
      { type: "object", properties: { t: { type: "string", pattern: "^(?:\\S+\\s+){0,11}\\S+$", maxLength: 60 } }, required: ["t"], additionalProperties: false },
      { whitespace: "compact" },
    ).grammar;
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const stats = compiled.stats();
    expect(stats.walkedStates).toBeLessThan(stats.states / 2);
    const open = '{"t":"';
    const prefixes = [open, open + words(4), open + words(8), open + words(9) + "ab", open + words(10), open + words(11), open + words(11) + "abab", open + "ab ".repeat(11) + "abab".repeat(6), open + words(2) + "ab".repeat(24)];
    walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 3, 6);
  });
});
