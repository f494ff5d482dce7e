/**
 * Tokens per second with the tiny model (Llama 3 vocabulary, 128,260 tokens, one thread):
 * constrained by the Kimi K3 grammar of the seed tools (tool_choice required) against
 * unconstrained generation, for one sequence and for four sequences sharing one context.
 * Target: constrained ≤ 10% slower per sampled token.
 *
 * Constrained runs are measured with jump-forward off (every token sampled, so the figure is the
 * per-step cost of masking) and on (output tokens per second, forced tokens included).
 */
import { getLlama, LlamaLogLevel, type LlamaContextSequence, type Token } from "node-llama-cpp";
import { ConstrainedLlama } from "../lib/integrations/node-llama-cpp/constrained-llama.js";
import { ensureTinyModel } from "../lib/integrations/node-llama-cpp/tiny-model.js";
import { DEMO_TOOLS } from "../lib/cli/demo.js";
import { printRows, saveReport, type BenchRow } from "./harness.js";

const ROUNDS = Number(process.env.TAGMASK_BENCH_ROUNDS ?? 8);

const llama = await getLlama({ gpu: false, build: "never", maxThreads: 1, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: ensureTinyModel().path });
const session = await ConstrainedLlama.create(model);
const context = await model.createContext({ contextSize: 4096, sequences: 4 });
const pool = Array.from({ length: 4 }, () => context.getSequence());
const grammar = (await session.toolCallingGrammar({ family: "kimi-k3", tools: DEMO_TOOLS, tool_choice: "required" }, { maxFreeTextTokens: 8, maxWhitespace: 4 }))!;
const prompt = model.tokenize("<|open|>user<|sep|>Weather in Paris?<|close|>user<|sep|>", true) as Token[];

/** Unconstrained: `count` sampled tokens, end-of-generation tokens ignored. */
async function unconstrained(sequence: LlamaContextSequence, seed: number, count: number): Promise<number> {
  const gen = sequence.evaluate(prompt, { temperature: 1, seed, yieldEogToken: true });
  let n = 0;
  try {
    for (let res = await gen.next(); !res.done && ++n < count; res = await gen.next());
  } finally {
    await gen.return(undefined as never);
  }
  return n;
}

interface Measure {
  tokens: number;
  sampled: number;
  ms: number;
}

type Run = (round: number) => Promise<{ tokens: number; sampled: number }>;

/** tagmask's own time per step (GenerationStats.loopMicros), and the engine's fill time, of the constrained runs. */
const loopMicros: Record<string, number[]> = { one: [], four: [] };
const fillMicros: Record<string, number[]> = { one: [], four: [] };

/**
 * Runs every configuration once per round, interleaved, so that a busy machine slows them all
 * alike; round 0 warms up and is not counted.
 */
async function measureAll(runs: Record<string, Run>): Promise<Record<string, Measure>> {
  const out: Record<string, Measure> = {};
  for (const name of Object.keys(runs)) out[name] = { tokens: 0, sampled: 0, ms: 0 };
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, run] of Object.entries(runs)) {
      await Promise.all(pool.map((s) => s.clearHistory()));
      const t0 = performance.now();
      const r = await run(round);
      if (round === 0) continue;
      out[name]!.ms += performance.now() - t0;
      out[name]!.tokens += r.tokens;
      out[name]!.sampled += r.sampled;
    }
  }
  return out;
}

/**
 * Sampled tokens of each constrained (jump-forward off) generation, by round and sequence: the
 * unconstrained runs of the same round sample exactly as many, so that both do the same decode
 * work (the same context lengths, the same tail when sequences of a batch finish early).
 */
const lengths = new Map<string, number>();

const one = await measureAll({
  noJump: async (round) => {
    const r = await session.generate(pool[0]!, prompt, grammar, { seed: round + 1, temperature: 1, maxTokens: 600, jumpForward: false });
    lengths.set(`one:${round}`, r.stats.sampledTokens);
    if (round > 0) {
      loopMicros.one!.push(...r.stats.loopMicros);
      fillMicros.one!.push(...r.stats.maskMicros);
    }
    return { tokens: r.tokens.length, sampled: r.stats.sampledTokens };
  },
  unconstrained: async (round) => {
    const n = await unconstrained(pool[0]!, round + 1, lengths.get(`one:${round}`)!);
    return { tokens: n, sampled: n };
  },
  jump: async (round) => {
    const r = await session.generate(pool[0]!, prompt, grammar, { seed: round + 1, temperature: 1, maxTokens: 600 });
    return { tokens: r.tokens.length, sampled: r.stats.sampledTokens };
  },
});

const four = await measureAll({
  noJump: async (round) => {
    const { results, masks } = await session.generateBatch(pool.map((sequence, i) => ({ sequence, input: prompt, grammar, options: { seed: round * 4 + i + 1, temperature: 1, maxTokens: 600, jumpForward: false } })));
    results.forEach((r, i) => lengths.set(`four:${round}:${i}`, r.stats.sampledTokens));
    if (round > 0) {
      for (const r of results) loopMicros.four!.push(...r.stats.loopMicros);
      fillMicros.four!.push(...masks.fillMicros);
    }
    return { tokens: results.reduce((a, r) => a + r.tokens.length, 0), sampled: results.reduce((a, r) => a + r.stats.sampledTokens, 0) };
  },
  unconstrained: async (round) => {
    const counts = await Promise.all(pool.map((s, i) => unconstrained(s, round * 4 + i + 1, lengths.get(`four:${round}:${i}`)!)));
    const n = counts.reduce((a, b) => a + b, 0);
    return { tokens: n, sampled: n };
  },
  jump: async (round) => {
    const { results } = await session.generateBatch(pool.map((sequence, i) => ({ sequence, input: prompt, grammar, options: { seed: round * 4 + i + 1, temperature: 1, maxTokens: 600 } })));
    return { tokens: results.reduce((a, r) => a + r.tokens.length, 0), sampled: results.reduce((a, r) => a + r.stats.sampledTokens, 0) };
  },
});

const rows: BenchRow[] = [];
const row = (suite: string, task: string, m: Measure, per: "sampled" | "tokens", peer?: BenchRow): BenchRow => {
  const count = per === "sampled" ? m.sampled : m.tokens;
  const us = (m.ms * 1000) / count;
  const r: BenchRow = { suite, task: `${task} (${(count / (m.ms / 1000)).toFixed(0)} tok/s)`, medianUs: us, p99Us: us, samples: count };
  if (peer) {
    r.peer = peer.task;
    r.speedupVsPeer = peer.medianUs / us;
  }
  rows.push(r);
  return r;
};
for (const [name, set] of [["1 sequence", one], ["4 sequences", four]] as const) {
  const base = row(name, "unconstrained, per sampled token", set.unconstrained!, "sampled");
  row(name, `K3 grammar, jump-forward off, per sampled token (route ${session.route})`, set.noJump!, "sampled", base);
  row(name, "K3 grammar, jump-forward on, per output token", set.jump!, "tokens", base);
}
printRows("generation speed (tiny model; µs per token = wall time / tokens; 'vs peer' < 1 means slower than unconstrained)", rows);
for (const [name, set] of [["1 sequence", one], ["4 sequences", four]] as const) {
  const overhead = ((set.noJump!.ms / set.noJump!.sampled) / (set.unconstrained!.ms / set.unconstrained!.sampled) - 1) * 100;
  console.log(`${name}: masking overhead per sampled token ${overhead.toFixed(1)}% (target ≤ 10%)`);
}
const q = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.floor(p * (values.length - 1))] ?? Number.NaN;
for (const [name, key] of [["1 sequence", "one"], ["4 sequences", "four"]] as const) {
  const loop = loopMicros[key]!;
  const fill = fillMicros[key]!;
  console.log(`${name}: tagmask per step (accept + mask + route${key === "four" ? " + wait for the shared fill" : ""}) median ${q(loop, 0.5).toFixed(1)} µs, p99 ${q(loop, 0.99).toFixed(1)} µs; ` +
    `${key === "four" ? "batch fill (4 rows)" : "engine fill"} median ${q(fill, 0.5).toFixed(1)} µs, p99 ${q(fill, 0.99).toFixed(1)} µs`);
}
console.log(saveReport("integration-generate", rows, { loopMicros, fillMicros }));
await context.dispose();
await model.dispose();
await llama.dispose();
