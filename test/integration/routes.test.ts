import { readFileSync } from "node:fs";
import type { SequenceEvaluateOptions, Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { InternalError } from "../../lib/errors.js";
import { checkMaskRoute } from "../../lib/integrations/node-llama-cpp/route-check.js";
import {
  BiasBuilder,
  biasObjectOption,
  installSamplerArrays,
  maskAllows,
  nodeLlamaCppVersion,
  SAMPLER_ARRAYS_VERSIONS,
  type StepBiases,
} from "../../lib/integrations/node-llama-cpp/routes.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { loadTinyModel } from "./tiny-llama.js";

function maskOf(vocab: number, ids: Iterable<number>): Int32Array {
  const mask = new Int32Array(Math.ceil(vocab / 32));
  for (const t of ids) mask[t >>> 5]! |= 1 << (t & 31);
  return mask;
}

/** A seeded pseudo-random mask allowing about `fraction` of the ids below `limit`. */
function randomMask(vocab: number, limit: number, fraction: number, seed: number): Int32Array {
  let s = seed >>> 0;
  const ids: number[] = [];
  for (let t = 0; t < limit; t++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    if (s / 2 ** 32 < fraction) ids.push(t);
  }
  if (ids.length === 0) ids.push(seed % limit);
  return maskOf(vocab, ids);
}

describe("BiasBuilder", () => {
  it.each([33, 64, 100, 1000])("lifts the allowed side when few are allowed, bans the rest otherwise (vocab %i)", (vocab) => {
    const b = new BiasBuilder(vocab);
    const few = b.build(maskOf(vocab, [0, 31, vocab - 1]), { temperature: 0.5 });
    expect([...few.keys]).toEqual([0, 31, vocab - 1]);
    expect(new Set(few.values)).toEqual(new Set([1e4]));
    expect(few.allowed).toBe(3);
    const all = [...Array(vocab).keys()];
    const many = b.build(maskOf(vocab, all.filter((t) => t !== 5 && t !== vocab - 2)));
    expect([...many.keys]).toEqual([5, vocab - 2]);
    expect(new Set(many.values)).toEqual(new Set([-Infinity]));
    const banned = b.build(maskOf(vocab, [1]), { banOnly: true });
    expect(banned.keys.length).toBe(vocab - 1);
    expect(banned.keys.includes(1)).toBe(false);
    expect(b.countAllowed(maskOf(vocab, all))).toBe(vocab);
  });

  it("scales the lift with the temperature and ignores bits past the vocabulary", () => {
    const b = new BiasBuilder(40);
    const mask = maskOf(64, [3, 50, 63]);
    const step = b.build(mask, { temperature: 8 });
    expect([...step.keys]).toEqual([3]);
    expect(step.values[0]).toBe(8e4);
  });

  it("refuses a mask that allows nothing", () => {
    expect(() => new BiasBuilder(40).build(maskOf(40, [45]))).toThrow(InternalError);
  });
});

describe("masking routes on the tiny model", () => {
  it("knows the installed node-llama-cpp version", () => {
    // The devDependency, and a version whose internals sampler-arrays was checked against.
    expect(nodeLlamaCppVersion()).toBe(JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).devDependencies["node-llama-cpp"]);
    expect(SAMPLER_ARRAYS_VERSIONS).toContain(nodeLlamaCppVersion());
  });

  it.each(["sampler-arrays", "bias-object"] as const)("%s passes the start-up check", async (route) => {
    const { model } = await loadTinyModel();
    const check = await checkMaskRoute(model, TokenizerInfo.fromLlamaModel(model), route);
    expect(check).toEqual({ route, ok: true });
  });

  it.each(["sampler-arrays", "bias-object"] as const)("%s keeps every sampled token inside the mask", async (route) => {
    const { model } = await loadTinyModel();
    const vocab = TokenizerInfo.fromLlamaModel(model).vocabSize;
    const context = await model.createContext({ contextSize: 256, sequences: 1 });
    try {
      const sequence = context.getSequence();
      const builder = new BiasBuilder(vocab);
      for (const [fraction, options] of [[0.002, { temperature: 1.5, topK: 0, topP: 1 }], [0.5, { temperature: 1 }], [0.99, { temperature: 0.7 }], [0.01, { temperature: 1, repeatPenalty: { penalty: 1.3 } }]] as const) {
        await sequence.clearHistory();
        let mask = randomMask(vocab, 128_000, fraction, 1);
        let biases: StepBiases = builder.build(mask, { temperature: options.temperature, banOnly: "repeatPenalty" in options });
        let restore = (): void => {};
        let tokenBias;
        if (route === "sampler-arrays") restore = installSamplerArrays(sequence, () => biases);
        else tokenBias = biasObjectOption(model.tokenizer, () => biases);
        const evaluateOptions = { ...options, seed: 5, yieldEogToken: true, tokenBias } as SequenceEvaluateOptions;
        const gen = sequence.evaluate(model.tokenize("Hello") as Token[], evaluateOptions);
        let outside = 0;
        try {
          let res = await gen.next();
          for (let step = 1; !res.done && step <= 25; step++) {
            if (!maskAllows(mask, Number(res.value))) outside++;
            mask = randomMask(vocab, 128_000, fraction, step + 1);
            biases = builder.build(mask, { temperature: options.temperature, banOnly: "repeatPenalty" in options });
            res = await gen.next();
          }
        } finally {
          restore();
          await gen.return(undefined as never);
        }
        expect(outside, `${route} at ${fraction}`).toBe(0);
      }
    } finally {
      await context.dispose();
    }
  });

  it("installs sampler-arrays on one sequence at a time and removes it again", async () => {
    const { model } = await loadTinyModel();
    const context = await model.createContext({ contextSize: 64, sequences: 1 });
    try {
      const sequence = context.getSequence();
      const restore = installSamplerArrays(sequence, () => undefined);
      expect(() => installSamplerArrays(sequence, () => undefined)).toThrow(/already generating/);
      restore();
      expect(Object.prototype.hasOwnProperty.call(sequence, "_resolveSamplerConfig")).toBe(false);
    } finally {
      await context.dispose();
    }
  });
});
