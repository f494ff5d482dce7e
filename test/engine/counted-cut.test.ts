/**
 * Cuts in length-limited loops whose count the mask walk does not know (docs/engine.md, "Counted
 * repetition"): a walk that starts inside a counted string, or in a state that enters one, takes
 * the tokens below an absorbing loop state without stepping them, each accepted for the counts
 * that leave room for its characters. The masks must stay exact at the limit: multi-byte and
 * cut-off characters, tokens crossing the limit, a loop that must still be followed by one more
 * unit, and limits that differ between the tokens of one subtree (the count range split inside
 * it). Prefixes put the tiny-vocabulary walks at the limit and one below it.
 */
import { describe, expect, it } from "vitest";
import { charClass, counted, GrammarBuilder, lit, seq, star, unit, type IrExpr, type IrGrammar } from "../../lib/compile/ir.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import type { JsonSchema } from "../../lib/format/types.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { walkAlong, walksAfterPrefixes } from "./walk.js";

/** An enum and a free string with a length limit in one automaton (their states share prefixes). */
const ENUM_OR_STRING: JsonSchema = {
  type: "object",
  properties: { state: { anyOf: [{ enum: ["aguascalientes", "baja-california", "campeche"] }, { type: "string", maxLength: 40 }] } },
  required: ["state"],
  additionalProperties: false,
};

/** A counted node whose loop must still be followed by one unit (a newline escape). */
const ENDS_IN_NEWLINE: JsonSchema = { type: "string", pattern: "^[\\s\\S]*\\n$", maxLength: 40 };

/** The loop entered after a fixed prefix: one subtree's tokens get different limits. */
const AFTER_PREFIX: JsonSchema = { type: "string", pattern: "^ab[\\s\\S]*$", minLength: 3, maxLength: 40 };

function rootOf(make: (g: GrammarBuilder) => IrExpr): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", make(g));
  return g.build("root");
}

/** The same as an IR counted node: letters and multi-byte characters as units, {34,38}. */
const COUNTED_TEXT = rootOf(() => seq(lit("<"), counted(star(unit(charClass([[0x61, 0x7a], 0xe9, 0x20ac, [0x1f600, 0x1f64f]]))), 34, 38), lit(">")));

describe("cuts with an unknown count on a tiny vocabulary: exact at every step, every token", () => {
  const vocab = tinyVocabulary();
  const cases: Array<[string, IrGrammar, string[]]> = [
    ["an enum or a string with maxLength 40", compileJsonSchema(ENUM_OR_STRING, { whitespace: "compact" }).grammar, ['{"state":"', '{"state":"' + "ab".repeat(18), '{"state":"' + "é€".repeat(19), '{"state":"' + "a".repeat(39), '{"state":"' + "é".repeat(40)]],
    ["a loop that must end in a newline, maxLength 40", compileJsonSchema(ENDS_IN_NEWLINE).grammar, ['"', '"' + "a".repeat(36), '"' + "€".repeat(37) + "\\n", '"' + "a".repeat(38), '"' + "é".repeat(39)]],
    ["the loop after a prefix, maxLength 40", compileJsonSchema(AFTER_PREFIX).grammar, ['"', '"a', '"ab' + "x".repeat(35), '"ab' + "x".repeat(37), '"ab' + "é".repeat(38)]],
    ["an IR counted node {34,38} of letters and multi-byte characters", COUNTED_TEXT, ["<", "<" + "ab".repeat(16), "<" + "é€😀".repeat(12), "<" + "a".repeat(37), "<" + "é".repeat(38)]],
  ];
  for (const [name, grammar, prefixes] of cases) {
    it(name, () => {
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 5, 10);
    });
  }
});

describe("cuts with an unknown count on Llama 3: masks at the limit", () => {
  const vocab = loadTestVocabulary("llama3");
  const filler = (n: number): string => {
    const text = "Größe café — naïve 😀 crème brûlée, the quick brown fox jumps over the lazy dog ".repeat(3);
    return [...text].slice(0, n).join("");
  };

  /** Walks `text`'s tokens and compares full masks at the last `last` steps (and the first). */
  function walkCompare(grammar: IrGrammar, text: string, last: number): void {
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    walkAlong(grammar, compiled, vocab.data, encodeForTest("llama3", text), `${JSON.stringify(text.slice(0, 24))}…`, last);
  }

  it("an enum or a string with maxLength 40: 40 and 41 characters", () => {
    const { grammar } = compileJsonSchema(ENUM_OR_STRING, { whitespace: "compact" });
    for (const n of [40, 41]) walkCompare(grammar, `{"state":${JSON.stringify(filler(n))}}`, 5);
    walkCompare(grammar, '{"state":"baja-california"}', 4);
  });

  it("a loop that must end in a newline: the last character must leave room for it", () => {
    const { grammar } = compileJsonSchema(ENDS_IN_NEWLINE);
    for (const n of [38, 39, 40]) walkCompare(grammar, JSON.stringify(filler(n) + "\n"), 5);
  });

  it("the loop after a prefix: tokens that enter it get limits by their length", () => {
    const { grammar } = compileJsonSchema(AFTER_PREFIX);
    for (const n of [37, 38, 39]) walkCompare(grammar, JSON.stringify("ab" + filler(n)), 5);
  });

  it("tokens that end inside a character, at the limit and just below it", () => {
    // Llama 3 has tokens such as " \xe2\x80" (a space and two bytes of "—"): the cut character
    // still counts, and the loop's check on it fails one count earlier than for whole ones.
    for (const schema of [{ type: "string", maxLength: 40 }, { type: "string", pattern: "^[\\s\\S]*$", maxLength: 40 }] as JsonSchema[]) {
      const { grammar } = compileJsonSchema(schema);
      for (const n of [38, 39, 40]) walkCompare(grammar, '"' + "x".repeat(n), 1);
    }
  });

  it("the walks of a string's loop do not step the whole token trie", () => {
    const compiled = compileGrammar(vocab, compileJsonSchema(ENUM_OR_STRING).grammar, { threads: 1 });
    const s = compiled.stats();
    // Every state of the enum-or-string value would otherwise step most of the ~260k-node trie.
    expect(s.trieNodesVisited).toBeLessThan(s.walkedStates * 20_000);
  });
});
