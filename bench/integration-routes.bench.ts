/**
 * What each masking route adds to a node-llama-cpp generation step, with the tiny model (Llama 3
 * vocabulary, 128,260 tokens, one thread): per-step wall time with prepared masks allowing 1%,
 * 50% and 99% of the vocabulary, against unconstrained steps in the same run. The mask itself is
 * prepared outside the timed region; only the route's work (bias arrays, node-llama-cpp's
 * sampler config) and sampling are in it.
 */
import { getLlama, LlamaLogLevel, type Token } from "node-llama-cpp";
import { ensureTinyModel } from "../lib/integrations/node-llama-cpp/tiny-model.js";
import { ConstrainedLlama } from "../lib/integrations/node-llama-cpp/constrained-llama.js";
import { DEMO_TOOLS } from "../lib/cli/demo.js";
import { BiasBuilder, biasObjectOption, installSamplerArrays, maskAllows, type StepBiases } from "../lib/integrations/node-llama-cpp/routes.js";
import { printRows, quantile, saveReport, type BenchRow } from "./harness.js";

const STEPS = Number(process.env.TAGMASK_BENCH_STEPS ?? 150);
const llama = await getLlama({ gpu: false, build: "never", maxThreads: 1, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: ensureTinyModel().path });
const vocab = model.fileInfo.metadata.tokenizer.ggml.tokens.length;
const context = await model.createContext({ contextSize: STEPS + 64, sequences: 1 });
const sequence = context.getSequence();

function randomMask(fraction: number, seed: number): Int32Array {
  const mask = new Int32Array(Math.ceil(vocab / 32));
  let s = seed >>> 0;
  for (let t = 0; t < 128_000; t++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    if (s / 2 ** 32 < fraction) mask[t >>> 5]! |= 1 << (t & 31);
  }
  return mask;
}

/** Per-step wall times (µs) of one short generation with the given route and mask density. */
async function run(route: "none" | "sampler-arrays" | "bias-object", fraction: number, seed: number): Promise<number[]> {
  await sequence.clearHistory();
  const masks = Array.from({ length: 8 }, (_, i) => randomMask(fraction, seed * 10 + i + 1));
  const builder = new BiasBuilder(vocab);
  let mask = masks[0]!;
  let biases: StepBiases | undefined = route === "none" ? undefined : builder.build(mask);
  let restore = (): void => {};
  let tokenBias;
  if (route === "sampler-arrays") restore = installSamplerArrays(sequence, () => biases);
  if (route === "bias-object") tokenBias = biasObjectOption(model.tokenizer, () => biases);
  const gen = sequence.evaluate(model.tokenize("Hello") as Token[], { temperature: 0.8, seed, yieldEogToken: true, tokenBias: tokenBias as never });
  const times: number[] = [];
  let violations = 0;
  try {
    let t = performance.now();
    let res = await gen.next();
    for (let step = 1; !res.done && step < STEPS; step++) {
      const now = performance.now();
      times.push((now - t) * 1000);
      if (route !== "none" && !maskAllows(mask, Number(res.value))) violations++;
      mask = masks[step % masks.length]!;
      // The mask is prepared before the clock starts: only the route's work is timed.
      const prepared = route === "none" ? undefined : builder.build(mask);
      t = performance.now();
      biases = prepared;
      res = await gen.next();
    }
  } finally {
    restore();
    await gen.return(undefined as never);
  }
  if (violations) throw new Error(`${route}: ${violations} sampled tokens outside the mask`);
  return times;
}

const REPEATS = 3;
const routes = ["none", "sampler-arrays", "bias-object"] as const;
const fractions = [0.01, 0.5, 0.99];
const samples = new Map<string, number[]>();
// Interleaved repeats, so that a busy machine slows every configuration alike.
for (let r = 0; r < REPEATS; r++) {
  for (const fraction of fractions) {
    for (const route of routes) {
      const key = `${route} ${fraction * 100}%`;
      samples.set(key, [...(samples.get(key) ?? []), ...(await run(route, fraction, r + 1))]);
    }
  }
}
const rows: BenchRow[] = [];
for (const fraction of fractions) {
  let base: BenchRow | undefined;
  for (const route of routes) {
    const key = `${route} ${fraction * 100}%`;
    const times = samples.get(key)!.sort((a, b) => a - b);
    const row: BenchRow = { suite: "routes", task: key, medianUs: quantile(times, 0.5), p99Us: quantile(times, 0.99), samples: times.length };
    if (base) {
      row.peer = base.task;
      row.speedupVsPeer = base.medianUs / row.medianUs;
    } else {
      base = row;
    }
    rows.push(row);
  }
}
printRows("masking routes: wall time per generation step (tiny model, 128,260 tokens, 1 thread)", rows);

// The three routes on a real grammar: the Kimi K3 grammar of the seed tools, jump-forward off,
// wall time per sampled token (the gbnf route cannot bound free text, so runs stop at 150 tokens).
const sessions = {
  "sampler-arrays": await ConstrainedLlama.create(model, { route: "sampler-arrays" }),
  "bias-object": await ConstrainedLlama.create(model, { route: "bias-object" }),
  gbnf: await ConstrainedLlama.create(model, { route: "gbnf" }),
};
const request = { family: "kimi-k3", tools: DEMO_TOOLS, tool_choice: "required" as const };
const grammars = Object.fromEntries(await Promise.all(Object.entries(sessions).map(async ([name, session]) => [name, await session.toolCallingGrammar(request, { maxFreeTextTokens: 8, maxWhitespace: 4 })] as const)));
const k3 = new Map<string, { ms: number; sampled: number }>();
for (let r = 0; r <= REPEATS; r++) {
  for (const [name, session] of Object.entries(sessions)) {
    await sequence.clearHistory();
    const t0 = performance.now();
    const result = await session.generate(sequence, "Hi", grammars[name]!, { seed: r + 1, temperature: 1, maxTokens: 150, jumpForward: false });
    const ms = performance.now() - t0;
    if (r === 0) continue; // warm-up
    const acc = k3.get(name) ?? { ms: 0, sampled: 0 };
    k3.set(name, { ms: acc.ms + ms, sampled: acc.sampled + result.stats.sampledTokens });
  }
}
const k3Rows: BenchRow[] = [];
for (const [name, { ms, sampled }] of k3) {
  const us = (ms * 1000) / sampled;
  const row: BenchRow = { suite: "routes-k3", task: `${name} (${sampled} sampled tokens)`, medianUs: us, p99Us: us, samples: sampled };
  const base = k3Rows[0];
  if (base) {
    row.peer = base.task;
    row.speedupVsPeer = base.medianUs / us;
  }
  k3Rows.push(row);
}
printRows("routes on the Kimi K3 grammar: mean wall time per sampled token (jump-forward off)", k3Rows);
console.log(saveReport("integration-routes", [...rows, ...k3Rows]));
await context.dispose();
await model.dispose();
await llama.dispose();
