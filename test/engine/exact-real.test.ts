/**
 * Exactness on real vocabularies (Llama 3 with 128,256 ids, Qwen3 with 151,669 tokens padded to
 * 151,936), Kimi K3 markers added as special tokens: the engine's mask equals the brute-force
 * mask of the reference recognizer along realistic outputs (every step) and along seeded random
 * walks of 1000 steps (sampled steps; TAGMASK_EXHAUSTIVE=1 compares every step).
 */
import { describe, expect, it } from "vitest";
import type { IrGrammar } from "../../lib/compile/ir.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { encodeForTest, loadTestVocabulary, type TestVocabularyName } from "../helpers/vocab.js";
import { k3Grammar, SCHEMAS, SEED_OUTPUTS, seedGrammar, TOOL_SETS } from "./grammars.js";
import { randomWalk, walkTokens } from "./walk.js";

const EXHAUSTIVE = process.env.TAGMASK_EXHAUSTIVE === "1";
const WALK_STEPS = 1000;
const SAMPLE_EVERY = EXHAUSTIVE ? 1 : 40;

interface Case {
  name: string;
  grammar: () => IrGrammar;
  output: string;
}

const CASES: Case[] = [
  ...(["auto", "required", "named"] as const).map((c) => ({ name: `seed ${c}`, grammar: () => seedGrammar(c), output: SEED_OUTPUTS[c] })),
  ...TOOL_SETS.map((t) => ({ name: `tools: ${t.name}`, grammar: () => k3Grammar(t.tools, "required"), output: t.output })),
  ...SCHEMAS.map((s) => ({ name: `schema: ${s.name}`, grammar: () => compileJsonSchema(s.schema).grammar, output: s.document })),
  // xgrammar's strict reading: the order's objects (nested ones too) end after their declared members.
  { name: "schema: order, undeclared forbidden", grammar: () => compileJsonSchema(SCHEMAS[0]!.schema, { undeclared: "forbid" }).grammar, output: SCHEMAS[0]!.document },
];

for (const vocabName of ["llama3", "qwen3"] as TestVocabularyName[]) {
  describe(`exact masks, ${vocabName}`, () => {
    const vocab = loadTestVocabulary(vocabName, { kimiMarkers: true });
    for (const c of CASES) {
      describe(c.name, () => {
        const grammar = c.grammar();
        const compiled = compileGrammar(vocab, grammar);
        // The oracle checks every token of the vocabulary at every step: ~15 s for the longest
        // output with Qwen3 on a 2-core CI machine, several times that on a shared one.
        it("along a realistic output, every step", () => {
          const tokens = encodeForTest(vocabName, c.output);
          expect(walkTokens(grammar, compiled, vocab.data, tokens, 1)).toBe(tokens.length + 1);
        }, 180_000);
        it(`along seeded random walks of ${WALK_STEPS} steps in all`, () => {
          // Walks that reach the end of the grammar are continued by walks of the next seeds.
          let steps = 0;
          let compared = 0;
          for (let seed = vocabName === "llama3" ? 1 : 1001; steps < WALK_STEPS; seed++) {
            const r = randomWalk(grammar, compiled, vocab.data, { steps: WALK_STEPS - steps, seed, every: SAMPLE_EVERY, structural: 0.5 });
            steps += Math.max(r.steps, 1);
            compared += r.compared;
          }
          expect(compared).toBeGreaterThanOrEqual(WALK_STEPS / SAMPLE_EVERY);
        });
      });
    }
  });
}
