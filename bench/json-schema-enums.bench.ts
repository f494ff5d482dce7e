/**
 * String enums at scale (issue 12), `npm run bench -- json-schema-enums`: a `{"type": "string",
 * "enum": [...]}` of 411, 10,000 and 100,000 distinct values of about 20 characters. The front
 * end (schema → IR, one thread) with its memory: heap kept by the grammar and the peak resident
 * growth while compiling; then the whole pipeline (schema → IR → engine, Llama 3 vocabulary, one
 * thread) for the sizes the engine takes, with @mlc-ai/web-xgrammar compileJSONSchema on the
 * same schema in the same run; then fill times along random walks through the 10,000 values.
 */
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import { compileGrammar } from "../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../lib/engine/matcher.js";
import { loadVocabulary, loadWebXgrammar, peerTokenList, type XgrCompiler } from "./engine-fixtures.js";
import { quantile, saveReport } from "./harness.js";

/** Distinct values of 15–24 characters from a fixed generator. */
function enumValues(n: number, seed = 88172645): string[] {
  let x = seed;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
  const out = new Set<string>();
  while (out.size < n) {
    let s = "";
    const len = 15 + Math.floor(next() * 10);
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(next() * alphabet.length)]!;
    out.add(s);
  }
  return [...out];
}

const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => {});
const ms = (t0: number): number => performance.now() - t0;

interface FrontRow {
  values: number;
  chars: number;
  medianMs: number;
  maxMs: number;
  runs: number;
  retainedMb: number;
  peakRssGrowthMb: number;
}

const front: FrontRow[] = [];
/** Grammars held while their memory is measured. */
const kept: unknown[] = [];
// The largest first, so the peak-RSS growth is its own.
for (const [n, runs] of [[100_000, 3], [10_000, 7], [411, 25]] as const) {
  const values = enumValues(n);
  const schema = { type: "string", enum: values };
  const used = (): number => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  gc();
  const rss0 = process.resourceUsage().maxRSS;
  const used0 = used();
  kept.push(compileJsonSchema(schema).grammar);
  gc();
  const retainedMb = (used() - used0) / 1e6;
  const peakRssGrowthMb = (process.resourceUsage().maxRSS - rss0) / 1e3;
  kept.length = 0;
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    gc();
    const t0 = performance.now();
    compileJsonSchema(schema);
    times.push(ms(t0));
  }
  times.sort((a, b) => a - b);
  const row = { values: n, chars: values.reduce((a, v) => a + v.length, 0), medianMs: quantile(times, 0.5), maxMs: times[times.length - 1]!, runs, retainedMb, peakRssGrowthMb };
  front.push(row);
  console.log(`front end, ${n} values (${row.chars} characters): median ${row.medianMs.toFixed(1)} ms, max ${row.maxMs.toFixed(1)} ms over ${runs} runs; the grammar holds ${retainedMb.toFixed(1)} MB, peak RSS grew ${peakRssGrowthMb.toFixed(1)} MB`);
}

// ---- whole pipeline vs the peer --------------------------------------------------------------

const vocab = loadVocabulary();
vocab.native();
const xgr = loadWebXgrammar();
const peerList = peerTokenList();
const peerInfo = await xgr.TokenizerInfo.createTokenizerInfo(peerList.tokens, "byte_level", false, undefined, peerList.stops);
const peer: XgrCompiler = await xgr.GrammarCompiler.createGrammarCompiler(peerInfo, false);

interface PipelineRow {
  values: number;
  tagmaskMs: number;
  tagmaskStates: number | null;
  tagmaskError: string | null;
  peerMs: number | null;
}
const pipeline: PipelineRow[] = [];
for (const n of [411, 2_000, 10_000]) {
  const schema = { type: "string", enum: enumValues(n) };
  let t0 = performance.now();
  let states: number | null = null;
  let error: string | null = null;
  try {
    states = compileGrammar(vocab, compileJsonSchema(schema).grammar, { threads: 1 }).stats().states;
  } catch (err) {
    error = (err as Error).message.slice(0, 120);
  }
  const tagmaskMs = ms(t0);
  t0 = performance.now();
  let peerMs: number | null = null;
  try {
    (await peer.compileJSONSchema(JSON.stringify(schema), true)).dispose();
    peerMs = ms(t0);
  } catch {
    // The peer refused the schema.
  }
  pipeline.push({ values: n, tagmaskMs, tagmaskStates: states, tagmaskError: error, peerMs });
  console.log(`pipeline, ${n} values: tagmask ${tagmaskMs.toFixed(1)} ms (${error ?? `${states} automaton states`}); web-xgrammar ${peerMs === null ? "refused" : `${peerMs.toFixed(1)} ms`}`);
}
peer.dispose();

// ---- fills along the values ------------------------------------------------------------------
// Random walks through the 10,000-value enum (allowed tokens picked at random until the closing
// quote is taken), timing the JS call at every step: 25 fills per step, their mean. The same
// grammar compiled with every state walked and stored (TAGMASK_CHAIN_MASKS=off) is filled at the
// same steps, alternately.

interface FillRow {
  values: number;
  mode: string;
  steps: number;
  chainStates: number;
  medianUs: number;
  p99Us: number;
  maxUs: number;
}
const fills: FillRow[] = [];
{
  const n = 10_000;
  const { grammar } = compileJsonSchema({ type: "string", enum: enumValues(n) });
  const chained = compileGrammar(vocab, grammar, { threads: 1 });
  process.env.TAGMASK_CHAIN_MASKS = "off";
  const walked = compileGrammar(vocab, grammar, { threads: 1 });
  delete process.env.TAGMASK_CHAIN_MASKS;
  const mask = new Int32Array(Math.ceil(vocab.data.vocabSize / 32));
  const times: [number[], number[]] = [[], []];
  let seed = 12345;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 4294967296;
  };
  const matchers = [new GrammarMatcher(chained), new GrammarMatcher(walked)];
  for (let walk = 0; walk < 300; walk++) {
    for (const m of matchers) m.reset();
    for (let step = 0; step < 64 && !matchers[0]!.isTerminated(); step++) {
      for (let k = 0; k < 2; k++) {
        const m = matchers[(walk + k) % 2]!;
        const t0 = performance.now();
        for (let r = 0; r < 25; r++) m.fillNextTokenBitmask(mask);
        times[(walk + k) % 2]!.push(((performance.now() - t0) * 1000) / 25);
      }
      const allowed: number[] = [];
      for (let w = 0; w < mask.length; w++) {
        for (let x = mask[w]! >>> 0; x !== 0; x &= x - 1) allowed.push(w * 32 + (31 - Math.clz32(x & -x)));
      }
      const id = allowed[Math.floor(random() * allowed.length)]!;
      for (const m of matchers) m.acceptToken(id);
    }
  }
  for (const [i, mode] of ["chain fills", "every state walked"].entries()) {
    const t = times[i]!.sort((a, b) => a - b);
    const row = { values: n, mode, steps: t.length, chainStates: (i === 0 ? chained : walked).stats().chainStates, medianUs: quantile(t, 0.5), p99Us: quantile(t, 0.99), maxUs: t[t.length - 1]! };
    fills.push(row);
    console.log(`fill (JS call), ${n} values, ${mode} (${row.chainStates} chain states): median ${row.medianUs.toFixed(2)} µs, p99 ${row.p99Us.toFixed(2)} µs, max ${row.maxUs.toFixed(2)} µs over ${row.steps} steps`);
  }
}
console.log(saveReport("json-schema-enums", [], { front, pipeline, fills }));
