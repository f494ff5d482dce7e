/**
 * Token equivalence past what tokens hold (docs/engine.md, "The mask cache"): states that the
 * refinement tells apart only by strings no token contains — the word counts of an unrolled
 * `(word spaces){0,N} word`, which differ on strings with more word/space alternations than any
 * token has — are merged after a product walk over the token tries, so they share one walk.
 * States that some token does tell apart must stay apart: the vocabularies hold tokens of up to
 * four words, so the last four word counts before the bound keep walks of their own, and every
 * token's acceptToken is checked against the recognizer at and around the bound (a wrong merge
 * gives a state near the bound the mask of one far from it). The engine runs the merge only in
 * automata where many states walk dear (over a thousand, and a quarter of all), so the bounds
 * here are in the hundreds.
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
    const n = 1200;
    const grammar = ebnf(`root ::= "x" ([a-z]+ " "+){0,${n}} [a-z]+ "."`);
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const stats = compiled.stats();
    // n + 1 copies of the word and space states; without the merge each is walked.
    expect(stats.states).toBeGreaterThan(2 * n);
    expect(stats.walkedStates).toBeLessThan(stats.states / 2);
    const prefixes = ["x", "xa", "x" + words(3), "x" + words(n - 9), "x" + words(n - 5), "x" + words(n - 4) + "ab", "x" + words(n - 3), "x" + words(n - 2) + " ", "x" + words(n - 1), "x" + words(n), "x" + words(n) + "ab"];
    walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 3, 6);
  });

  it("a JSON string with a word-count pattern and a length bound", () => {
    const n = 700;
    const grammar = compileJsonSchema(
      { type: "object", properties: { t: { type: "string", pattern: `^(?:\\S+\\s+){0,${n}}\\S+$`, maxLength: 3 * n + 30 } }, required: ["t"], additionalProperties: false },
      { whitespace: "compact" },
    ).grammar;
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const stats = compiled.stats();
    expect(stats.walkedStates).toBeLessThan(stats.states / 2);
    const open = '{"t":"';
    const prefixes = [open, open + words(4), open + words(n - 3), open + words(n - 2) + "ab", open + words(n - 1), open + words(n), open + words(n) + "abab", open + "ab ".repeat(n) + "abab".repeat(6), open + words(2) + "ab".repeat((3 * n + 24) / 2)];
    walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 3, 6);
  });
});
