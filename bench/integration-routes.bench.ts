/**
 * What each masking route adds to a node-llama-cpp generation step, with the tiny model (Llama 3
 * vocabulary, 128,260 tokens, one thread): per-step wall time with prepared masks allowing 1%,
 * 50% and 99% of the vocabulary, against unconstrained steps in the same run. The mask itself is
 * prepared outside the timed region; only the route's work (bias arrays, node-llama-cpp's
 * sampler config) and sampling are in it.
 */
import { getLlama, LlamaLogLevel, type Token } from "node-llama-cpp";
import { ensureTinyModel } from "../lib/integrations/node-llama-cpp/tiny-model.js";
import { BiasBuilder, biasObjectOption, installSamplerArrays, maskAllows, type StepBiases } from "../lib/integrations/node-llama-cpp/routes.js";
import { printRows, saveReport, type BenchRow } from "./harness.js";

const STEPS = Number(process.env.TAGMASK_BENCH_STEPS ?? 150);
const llama = await getLlama({ gpu: false, build: "never", maxThreads: 1, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: ensureTinyModel().path });
const vocab = model.fileInfo.metadata.tokenizer.ggml.tokens.length;
const context = await model.createContext({ contextSize: STEPS + 32, sequences: 1 });
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

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function run(route: "none" | "sampler-arrays" | "bias-object", fraction: number): Promise<BenchRow> {
  await sequence.clearHistory();
  const masks = Array.from({ length: 8 }, (_, i) => randomMask(fraction, i + 1));
  const builder = new BiasBuilder(vocab);
  let mask = masks[0]!;
  let biases: StepBiases | undefined = route === "none" ? undefined : builder.build(mask);
  let restore = (): void => {};
  let tokenBias;
  if (route === "sampler-arrays") restore = installSamplerArrays(sequence, () => biases);
  if (route === "bias-object") tokenBias = biasObjectOption(model.tokenizer, () => biases);
  const gen = sequence.evaluate(model.tokenize("Hello") as Token[], { temperature: 0.8, seed: 1, yieldEogToken: true, tokenBias: tokenBias as never });
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
      if (route !== "none") biases = builder.build(mask);
      t = performance.now();
      res = await gen.next();
    }
  } finally {
    restore();
    await gen.return(undefined as never);
  }
  if (violations) throw new Error(`${route}: ${violations} sampled tokens outside the mask`);
  times.sort((a, b) => a - b);
  return { suite: "routes", task: `${route} ${fraction * 100}%`, medianUs: quantile(times, 0.5), p99Us: quantile(times, 0.99), samples: times.length };
}

const rows: BenchRow[] = [];
for (const fraction of [0.01, 0.5, 0.99]) {
  const base = await run("none", fraction);
  rows.push(base);
  for (const route of ["sampler-arrays", "bias-object"] as const) {
    const row = await run(route, fraction);
    row.peer = base.task;
    row.speedupVsPeer = base.medianUs / row.medianUs;
    rows.push(row);
  }
}
printRows("masking routes: wall time per generation step (tiny model, 128,260 tokens, 1 thread)", rows);
console.log(saveReport("integration-routes", rows));
await context.dispose();
await model.dispose();
await llama.dispose();
