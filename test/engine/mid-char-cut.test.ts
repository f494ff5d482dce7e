/**
 * The cut inside multi-byte characters (docs/engine.md, "The mask cache"): a walk that reaches a
 * state inside a character of free text, whose every continuation byte leads on and ends the
 * character in a state no plain character can kill, accepts every plain token below without
 * stepping it. Where a character class or what follows the character does not allow that, the
 * walk must step the tokens. Tiny-vocabulary walks check every token's acceptToken against the
 * recognizer after prefixes that end inside a character; Llama 3 masks are compared with the
 * oracle along text full of multi-byte characters.
 */
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import type { IrGrammar } from "../../lib/compile/ir.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import type { JsonSchema } from "../../lib/format/types.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { walkAlong, walksAfterPrefixes } from "./walk.js";

const schema = (s: JsonSchema): IrGrammar => compileJsonSchema(s, { whitespace: "compact" }).grammar;

/** Free text: every character class state qualifies. */
const FREE = schema({ type: "object", properties: { s: { type: "string" } }, required: ["s"], additionalProperties: false });
/** One character missing from a block: the state after 0xE2 0x82 does not take every continuation. */
const NO_EURO = schema({ type: "string", pattern: "^[^€]*$" });
/** Two-byte characters that must be followed by "a": the character ends in a state "a" alone keeps alive. */
const THEN_A = schema({ type: "string", pattern: "^(?:[\\u0080-\\u07ff]a|x)*$" });
/** Three-byte characters only: a two-byte lead is not taken at all. */
const THREE_BYTE = schema({ type: "string", pattern: "^[\\u0800-\\uffff]*$" });

/** The tiny vocabulary plus tokens that go on after a multi-byte character. */
function tinyWithTails(): TokenizerInfo {
  return tinyVocabulary(["éx", "éa", "€x", "€€", "ééa", "😀x", Uint8Array.from([0xa9, 0x61]), Uint8Array.from([0x82, 0xac, 0x78])]);
}

describe("cuts inside characters on a tiny vocabulary: every token at every step", () => {
  const vocab = tinyWithTails();
  const cases: Array<[string, IrGrammar, string[]]> = [
    ["free text", FREE, ['{"s":"', '{"s":"é', '{"s":"€', '{"s":"a😀']],
    ["a block with one character left out", NO_EURO, ['"', '"é', '"x']],
    ["characters that must be followed by a", THEN_A, ['"', '"éa', '"x']],
    ["three-byte characters only", THREE_BYTE, ['"', '"€']],
  ];
  for (const [name, grammar, prefixes] of cases) {
    it(name, () => {
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 5, 8);
    });
  }
});

describe("cuts inside characters on Llama 3", () => {
  const vocab = loadTestVocabulary("llama3");

  /** Walks `text`'s tokens, comparing every mask with the oracle's. */
  function walkCompare(grammar: IrGrammar, text: string): void {
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    walkAlong(grammar, compiled, vocab.data, encodeForTest("llama3", text), `${JSON.stringify(text.slice(0, 24))}…`);
  }

  it("masks along text with two-, three- and four-byte characters", () => {
    walkCompare(FREE, '{"s":"Größe 東京 😀 — naïve"}');
    walkCompare(THREE_BYTE, '"東京タワー€"');
    walkCompare(NO_EURO, '"東京 — é"');
  });

  it("a free string's walks do not step each lead byte's subtree", () => {
    const s = compileGrammar(vocab, compileJsonSchema({ type: "string" }).grammar, { threads: 1 }).stats();
    // 16,432 nodes without the cut (each string state stepped the characters below every lead byte).
    expect(s.trieNodesVisited).toBeLessThan(14_000);
  });
});
