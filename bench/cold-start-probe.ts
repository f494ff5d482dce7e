/**
 * Run by compile-scale.bench.ts in a fresh process: the first lowering and compile of a grammar in
 * the process against later ones (the lowering cache cleared; the six-parameter tool's bound new each time), and how
 * long the imports and the vocabulary took. Prints one JSON line of milliseconds (CPU time of
 * the process for the lowering and the compile, which the machine's load disturbs least).
 */
import { performance } from "node:perf_hooks";

const t0 = performance.now();
const lowering = await import("../lib/compile/lower.js");
const { compileGrammar } = await import("../lib/engine/compiled-grammar.js");
const { buildToolCallingFormat } = await import("../lib/tools/index.js");
const { seedTools } = await import("../test/helpers/seeds.js");
const { sixParameterTools } = await import("../test/helpers/many-tools.js");
const { loadVocabulary } = await import("./engine-fixtures.js");
const importMs = performance.now() - t0;
const t1 = performance.now();
const vocab = loadVocabulary();
vocab.native();
const vocabularyMs = performance.now() - t1;

const cpu = (fn: () => unknown): number => {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
const clear = (): void => (lowering as { clearLoweringCache?: () => void }).clearLoweringCache?.();

function firstAndWarm(tools: (i: number) => Parameters<typeof buildToolCallingFormat>[0]["tools"]): { lower: number[]; compile: number[] } {
  const lower: number[] = [];
  const compile: number[] = [];
  for (let i = 0; i < 3; i++) {
    clear();
    let ir: ReturnType<typeof lowering.lowerFormat> | undefined;
    lower.push(cpu(() => (ir = lowering.lowerFormat(buildToolCallingFormat({ family: "kimi-k3", tools: tools(i), tool_choice: "required" })!))));
    compile.push(cpu(() => compileGrammar(vocab, ir!, { threads: 1 })));
  }
  return { lower, compile };
}

const seed = firstAndWarm(() => seedTools());
// Another integer bound each time: the warm figure is a tool the process has not seen.
const six = firstAndWarm((i) => sixParameterTools(1, { variant: i }));
console.log(JSON.stringify({
  importMs,
  vocabularyMs,
  seedFirstLowerCpuMs: seed.lower[0],
  seedWarmLowerCpuMs: seed.lower[2],
  seedFirstCompileCpuMs: seed.compile[0],
  seedWarmCompileCpuMs: seed.compile[2],
  sixParameterFirstLowerCpuMs: six.lower[0],
  sixParameterWarmLowerCpuMs: six.lower[2],
  sixParameterFirstCompileCpuMs: six.compile[0],
  sixParameterWarmCompileCpuMs: six.compile[2],
}));
