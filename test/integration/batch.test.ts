/**
 * Four sequences of one context generating at once, each with its own grammar and matcher, masks
 * filled together: no cross-talk (every output valid for its own grammar). The Kimi K3 version
 * of this test is in tool-calls.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConstrainedLlama, loadTinyModel } from "./tiny-llama.js";

type Context = Awaited<ReturnType<Awaited<ReturnType<typeof loadTinyModel>>["model"]["createContext"]>>;
let context: Context;
let pool: ReturnType<Context["getSequence"]>[];
beforeAll(async () => {
  const { model } = await loadTinyModel();
  context = await model.createContext({ contextSize: 2048, sequences: 4 });
  pool = Array.from({ length: 4 }, () => context.getSequence());
});
afterAll(async () => {
  await context.dispose();
});

/** The first n sequences of the context, emptied (node-llama-cpp frees disposed sequence ids lazily, so they are reused). */
async function sequences(n: number): Promise<ReturnType<Context["getSequence"]>[]> {
  const list = pool.slice(0, n);
  await Promise.all(list.map((s) => s.clearHistory()));
  return list;
}

describe("batched generation", () => {
  it("keeps four different regex grammars apart, round after round", async () => {
    const session = await loadConstrainedLlama();
    const patterns = ["[a-z]{2,6}( [a-z]{2,6}){0,3}", "[0-9]{1,4}(\\.[0-9]{1,2})?", "(red|green|blue)(, (red|green|blue)){0,3}", "[A-Z][a-z]{1,8}: (yes|no)"];
    const grammars = await Promise.all(patterns.map((pattern) => session.grammar({ type: "structural_tag", format: { type: "regex", pattern } })));
    for (let round = 0; round < 3; round++) {
      const seqs = await sequences(4);
      const { results, masks } = await session.generateBatch(seqs.map((sequence, i) => ({
        sequence, input: "Go:", grammar: grammars[i]!, options: { seed: round * 4 + i + 1, temperature: 1.3, maxTokens: 64 },
      })));
      results.forEach((r, i) => {
        expect(r.text, `round ${round}, sequence ${i}`).toMatch(new RegExp(`^(?:${patterns[i]})$`, "u"));
        expect(["grammar-end", "stop-token"]).toContain(r.stopReason);
      });
      // Masks of sequences waiting together are filled together.
      expect(masks.rows).toBeGreaterThan(masks.fills);
      expect(masks.fillMicros.length).toBe(masks.fills);
    }
  });

  it("reports bad batches", async () => {
    const session = await loadConstrainedLlama();
    const [a] = await sequences(1);
    await expect(session.generateBatch([])).rejects.toThrow("jobs: expected a non-empty array");
    await expect(session.generateBatch([{ sequence: a!, input: "x", grammar: null }, { sequence: a!, input: "y", grammar: null }])).rejects.toThrow("each job needs its own sequence");
  });
});
