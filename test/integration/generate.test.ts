/**
 * The generation loop on the tiny model with grammars that need no JSON Schema: regexes,
 * literals and structural tags. Every masking route, jump-forward, the grammar's end, token
 * limits, aborts, unconstrained generation and bad arguments.
 */
import type { Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../lib/errors.js";
import { ConstrainedLlama, type ConstrainedGrammar } from "../../lib/integrations/node-llama-cpp/constrained-llama.js";
import type { StructuralTag } from "../../lib/format/types.js";
import { loadConstrainedLlama, loadTinyModel } from "./tiny-llama.js";

const ANSWER = "(yes|no|maybe)(, [0-9]{1,3}){1,4}\\.";
const answer: StructuralTag = { type: "structural_tag", format: { type: "regex", pattern: ANSWER } };
const tagged: StructuralTag = {
  type: "structural_tag",
  format: {
    type: "sequence",
    elements: [
      { type: "const_string", value: "<|open|>verdict<|sep|>" },
      { type: "regex", pattern: "(guilty|innocent)" },
      { type: "const_string", value: "<|close|>verdict<|sep|>" },
      { type: "optional", content: { type: "const_string", value: "!" } },
    ],
  },
};

let context: Awaited<ReturnType<Awaited<ReturnType<typeof loadTinyModel>>["model"]["createContext"]>>;
beforeAll(async () => {
  const { model } = await loadTinyModel();
  context = await model.createContext({ contextSize: 512, sequences: 1 });
});
afterAll(async () => {
  await context.dispose();
});

async function fresh(): Promise<ReturnType<typeof context.getSequence>> {
  const sequence = context.getSequence();
  await sequence.clearHistory();
  return sequence;
}

describe.each(["sampler-arrays", "bias-object", "gbnf"] as const)("route %s", (route) => {
  it("keeps 10 seeded generations inside a regex grammar", async () => {
    const session = await loadConstrainedLlama(route);
    expect(session.route).toBe(route);
    const grammar = await session.grammar(answer);
    const full = new RegExp(`^(?:${ANSWER})$`, "u");
    for (let seed = 1; seed <= 10; seed++) {
      const sequence = await fresh();
      try {
        const result = await session.generate(sequence, "Answer:", grammar, { seed, temperature: 1.2, maxTokens: 64 });
        expect(result.text, `seed ${seed}`).toMatch(full);
        expect(["grammar-end", "stop-token"]).toContain(result.stopReason);
        expect(result.route).toBe(route);
        if (route === "gbnf") expect(result.stats.maskMicros).toEqual([]);
        else expect(result.stats.maskMicros.length).toBeGreaterThan(0);
      } finally {
        sequence.dispose();
      }
    }
  });
});

describe("route gbnf and free-text token limits", () => {
  it("drops the limit the GBNF sampler cannot enforce, so that the matcher agrees with it", async () => {
    const session = await loadConstrainedLlama("gbnf");
    const grammar = await session.grammar({
      type: "structural_tag",
      format: { type: "tag", begin: "[", content: { type: "any_text", max_tokens: 1 }, end: "]" },
    });
    for (let seed = 1; seed <= 5; seed++) {
      const sequence = await fresh();
      try {
        const result = await session.generate(sequence, "List:", grammar, { seed, temperature: 1, maxTokens: 200 });
        expect(result.text).toMatch(/^\[[^\]]*\]$/s);
      } finally {
        sequence.dispose();
      }
    }
  });
});

describe("generation", () => {
  let session: ConstrainedLlama;
  let grammar: ConstrainedGrammar;
  beforeAll(async () => {
    session = await loadConstrainedLlama();
    grammar = await session.grammar(tagged);
  });

  it("forces what the grammar fixes and samples only the choices", async () => {
    const sequence = await fresh();
    try {
      const result = await session.generate(sequence, "Verdict:", grammar, { seed: 3, temperature: 1 });
      expect(result.text).toMatch(/^<\|open\|>verdict<\|sep\|>(guilty|innocent)<\|close\|>verdict<\|sep\|>!?$/);
      // The opening marker and name are forced before the first sample; the markers are single special tokens.
      const open = session.tokenizer.tokenId("<|open|>")!;
      expect(result.tokens[0]).toBe(open);
      expect(result.stats.forcedTokens).toBeGreaterThanOrEqual(3);
      expect(result.stats.sampledTokens).toBeLessThan(result.tokens.length);
    } finally {
      sequence.dispose();
    }
  });

  it("stops at maxTokens, at once for 0, and on an aborted signal", async () => {
    let sequence = await fresh();
    try {
      const limited = await session.generate(sequence, "x", await session.grammar(answer), { seed: 1, maxTokens: 1 });
      expect(limited.stopReason).toBe("max-tokens");
      expect(limited.tokens.length).toBe(1);
    } finally {
      sequence.dispose();
    }
    sequence = await fresh();
    try {
      const none = await session.generate(sequence, "x", grammar, { maxTokens: 0 });
      expect(none).toMatchObject({ text: "", tokens: [], stopReason: "max-tokens" });
      const controller = new AbortController();
      controller.abort();
      await sequence.clearHistory();
      const aborted = await session.generate(sequence, "x", await session.grammar(answer), { seed: 1, signal: controller.signal });
      expect(aborted.stopReason).toBe("aborted");
      expect(aborted.tokens.length).toBe(1);
    } finally {
      sequence.dispose();
    }
  });

  it("ends at the grammar's end without sampling a stop token when nothing else is allowed", async () => {
    const sequence = await fresh();
    try {
      const exact = await session.grammar({ type: "structural_tag", format: { type: "const_string", value: "done" } });
      const result = await session.generate(sequence, "x", exact, { seed: 1 });
      expect(result).toMatchObject({ text: "done", stopReason: "grammar-end" });
      expect(result.stats.sampledTokens).toBe(0);
    } finally {
      sequence.dispose();
    }
  });

  it("passes the same seed to the same output and streams the text", async () => {
    const runs: string[] = [];
    const streamed: string[] = [];
    for (let i = 0; i < 2; i++) {
      const sequence = await fresh();
      try {
        let chunks = "";
        const result = await session.generate(sequence, "x", await session.grammar(answer), { seed: 9, temperature: 1.5, onText: (t) => (chunks += t) });
        runs.push(result.text);
        streamed.push(chunks);
      } finally {
        sequence.dispose();
      }
    }
    expect(runs[1]).toBe(runs[0]);
    expect(streamed).toEqual(runs);
  });

  it("generates unconstrained with a null grammar", async () => {
    const sequence = await fresh();
    try {
      const result = await session.generate(sequence, "Hello", null, { seed: 1, maxTokens: 6 });
      expect(result.route).toBe("none");
      expect(result.tokens.length).toBeLessThanOrEqual(6);
      expect(result.stats.maskMicros).toEqual([]);
    } finally {
      sequence.dispose();
    }
  });

  it("rejects bad arguments with typed errors and leaves the sequence usable", async () => {
    const sequence = await fresh();
    try {
      const bad: [string, () => Promise<unknown>, string][] = [
        ["maxTokens", () => session.generate(sequence, "x", grammar, { maxTokens: -1 }), "options.maxTokens"],
        ["temperature", () => session.generate(sequence, "x", grammar, { temperature: Number.NaN }), "options.temperature"],
        ["token id", () => session.generate(sequence, [5, 200_000] as Token[], grammar), "input: token id 200000 is out of range"],
        ["empty input", () => session.generate(sequence, [], null), "at least one token"],
        ["grammar", () => session.generate(sequence, "x", {} as ConstrainedGrammar), "grammar: expected a ConstrainedGrammar"],
        ["sequence", () => session.generate({} as typeof sequence, "x", grammar), "sequence: expected a LlamaContextSequence"],
      ];
      for (const [name, call, message] of bad) {
        await expect(call(), name).rejects.toThrow(InvalidArgumentError);
        await expect(call(), name).rejects.toThrow(message);
      }
      const ok = await session.generate(sequence, "x", grammar, { seed: 2 });
      expect(ok.text).toMatch(/verdict/);
    } finally {
      sequence.dispose();
    }
  });

  it("refuses an unknown route, and a free-text or whitespace bound on grammar IR", async () => {
    const { model } = await loadTinyModel();
    await expect(ConstrainedLlama.create(model, { route: "fast" as "gbnf" })).rejects.toThrow(/options.route: expected "auto" or one of/);
    await expect(session.grammar(grammar.ir, { maxFreeTextTokens: 3 })).rejects.toThrow(InvalidArgumentError);
    await expect(session.grammar(grammar.ir, { maxWhitespace: 3 })).rejects.toThrow("options.maxWhitespace applies to structural tags and formats, not to grammar IR");
  });
});
