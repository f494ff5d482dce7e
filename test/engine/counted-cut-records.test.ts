/**
 * Counted cuts kept whole until the regimes are built (docs/engine.md, "Counted repetition"): a
 * state inside a length-limited string whose count the walk does not know records each cut
 * subtree as one record, spelled out one span per token only when that state's regimes are built
 * (states with equal records share them). The shape is JSONSchemaBench's Github_easy/o35866:
 * optional members, an enum beside free strings with maxLength, whose states each cut most of the
 * vocabulary this way. The walks put the count at the limit, one below and one above, with tokens
 * of one to four characters, multi-byte ones and ones that end inside a character, so a record
 * spelled out with a wrong limit (or left out) shows as a token accepted or refused against the
 * recognizer.
 */
import { describe, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import type { JsonSchema } from "../../lib/format/types.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { walkAlong, walksAfterPrefixes } from "./walk.js";

/** Like o35866's address: optional members, an enum beside free strings with length limits. */
function addressSchema(limit: number): JsonSchema {
  return {
    type: "object",
    properties: {
      country: { enum: ["CAN", "MEX"] },
      state: { type: "string", maxLength: limit },
      street: { type: "string", minLength: 1, maxLength: limit + 4 },
    },
    additionalProperties: false,
  };
}

/** Tokens that add one to four characters below one another, some cut inside a character. */
const EXTRA_TOKENS: Array<string | Uint8Array> = [
  "aa", "aab", "abab", "abba", "baab", "bb", "bbbb", "ab€", "a€", "€€", "a😀", "😀b", "abé", Uint8Array.of(0x61, 0xe2, 0x82), Uint8Array.of(0x61, 0x62, 0xf0, 0x9f),
];

describe("counted cuts kept whole on a tiny vocabulary: limited strings beside an enum (o35866's shape)", () => {
  const vocab = tinyVocabulary(EXTRA_TOKENS);
  const limit = 40;
  for (const [key, max] of [["state", limit], ["street", limit + 4]] as const) {
    it(`${key}: every token exact at and around its limit of ${max}`, () => {
      const { grammar } = compileJsonSchema(addressSchema(limit), { whitespace: "compact" });
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      const head = `{"country":"CAN","${key}":"`;
      const prefixes = [head, head + "ab", head + "abb", head + "a€", head + "ab".repeat(18), head + "a".repeat(max - 2), head + "é".repeat(max - 1), head + "b".repeat(max), head + "€".repeat(max - 3)];
      walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 4, 6);
    });
  }
});

describe("counted cuts kept whole on Llama 3: masks at the limit", () => {
  const vocab = loadTestVocabulary("llama3");
  it("free strings with maxLength 40 and 44 beside an enum: 39 to 45 characters", () => {
    const { grammar } = compileJsonSchema(addressSchema(40), { whitespace: "compact" });
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const text = "Größe café — naïve 😀 crème brûlée, the quick brown fox jumps over";
    for (const [key, n] of [["state", 39], ["state", 40], ["state", 41], ["street", 43], ["street", 44], ["street", 45]] as const) {
      const value = [...text].slice(0, n).join("");
      const doc = `{"country":"MEX","${key}":${JSON.stringify(value)}}`;
      walkAlong(grammar, compiled, vocab.data, encodeForTest("llama3", doc), `${key} of ${n} characters`, 6);
    }
  });
});
