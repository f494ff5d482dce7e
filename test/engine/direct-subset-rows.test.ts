/**
 * Subsets of one NFA state are built straight from that state's ranges (native/core/dfa_builder.cpp,
 * DirectRow) when the ranges are disjoint and in segment order; other states take the general
 * subset construction. Grammars whose single states carry several ranges (character classes,
 * negated classes, classes beside literals that split them into segments) are checked against
 * the oracle at every step on a tiny vocabulary.
 */
import { describe, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { seededWalksFromStart } from "./walk.js";

const schemas: Array<[string, unknown]> = [
  ["classes with several ranges", { type: "string", pattern: "^[a-cx-z0-3]{2}[^b\"]q$" }],
  ["a class split by literals of other branches", { enum: ["ab", "xq", "b1", "zz"] }],
  ["classes beside an enum in an object", {
    type: "object",
    properties: { k: { type: "string", pattern: "^[b-y]+[0-9]?$" }, e: { enum: ["a", "ab", "c"] } },
    required: ["k", "e"],
    additionalProperties: false,
  }],
];

describe("subset rows built straight from one NFA state: exact masks on a tiny vocabulary", () => {
  const vocab = tinyVocabulary();
  for (const [name, schema] of schemas) {
    it(name, () => {
      const { grammar } = compileJsonSchema(schema as never);
      seededWalksFromStart(grammar, compileGrammar(vocab, grammar, { threads: 1 }), vocab.data);
    });
  }
});
