/**
 * Reuse across requests (issue 12): a server's second request for a Kimi K3 grammar of N
 * six-parameter tools (Llama 3 + the K3 markers): the same tools again, one tool changed, and
 * another tool_choice over the same tools, after a first request, on one thread and on the pool.
 * The IR is lowered before the clock starts, so the engine's compile is measured alone, and once
 * more through a `GrammarCompiler` (what the server uses), whose cache serves a repeated grammar.
 * Each repetition uses tools no earlier one used (a fresh variant), so "first" finds nothing the
 * vocabulary kept. Per cell: median and p99 (the largest of few samples) of wall milliseconds,
 * the median CPU milliseconds, and the automaton's states and walked states (which show what
 * the engine did again).
 *
 * `npm run bench -- compile-reuse`; TAGMASK_BENCH_COUNTS=10,50 (default 50), TAGMASK_BENCH_REPS
 * (default 5).
 */
import { serializeGrammar, type IrGrammar } from "../lib/compile/ir.js";
import { lowerFormat } from "../lib/compile/lower.js";
import { compileGrammar } from "../lib/engine/compiled-grammar.js";
import { GrammarCompiler } from "../lib/engine/grammar-compiler.js";
import { buildToolCallingFormat, type FunctionTool, type ToolChoice } from "../lib/tools/index.js";
import { sixParameterTool, sixParameterTools } from "../test/helpers/many-tools.js";
import { loadVocabulary } from "./engine-fixtures.js";
import { quantile, saveReport, type BenchRow } from "./harness.js";

const vocab = loadVocabulary();
vocab.native();

function k3(tools: FunctionTool[], choice: ToolChoice): Uint8Array {
  const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: choice });
  if (!tag) throw new Error("no format");
  return serializeGrammar(lowerFormat(tag) as IrGrammar);
}

interface Sample {
  wall: number;
  cpu: number;
  states: number;
  walked: number;
}

function timed(compile: () => ReturnType<typeof compileGrammar>): Sample {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const g = compile();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const s = g.stats();
  return { wall, cpu: (c.user + c.system) / 1000, states: s.states, walked: s.walkedStates };
}

const STEPS = ["first", "same again", "one changed", "tool_choice changed"] as const;
type Step = (typeof STEPS)[number];
const counts = (process.env.TAGMASK_BENCH_COUNTS ?? "50").split(",").map(Number);
const reps = Number(process.env.TAGMASK_BENCH_REPS ?? 5);
const rows: BenchRow[] = [];
const table: string[] = [];
const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
const f = (x: number): string => x.toFixed(1);

for (const n of counts) {
  for (const threads of [1, 0]) {
    const options = threads === 1 ? { threads: 1 } : {};
    const samples = new Map<string, Sample[]>();
    const add = (key: string, s: Sample): void => void samples.set(key, [...(samples.get(key) ?? []), s]);
    // Repetition -1 warms the code and is not counted; every repetition has tools of its own.
    for (let r = -1; r < reps; r++) {
      const variant = 100 * (n + 1) * (threads + 1) + r + 2;
      const tools = sixParameterTools(n, { variant });
      const changed = [...tools];
      changed[Math.floor(n / 2)] = sixParameterTool(Math.floor(n / 2), 100_000 + variant);
      const irs: Record<Step, Uint8Array> = {
        first: k3(tools, "auto"),
        "same again": k3(tools, "auto"),
        "one changed": k3(changed, "auto"),
        "tool_choice changed": k3(tools, "required"),
      };
      const engine = STEPS.map((step) => timed(() => compileGrammar(vocab, irs[step], options)));
      const compiler = new GrammarCompiler(options);
      const served = STEPS.map((step) => timed(() => compiler.compile(vocab, irs[step])));
      if (r < 0) continue;
      STEPS.forEach((step, i) => {
        add(`engine|${step}`, engine[i]!);
        add(`compiler|${step}`, served[i]!);
      });
    }
    const pool = threads === 1 ? "1 thread" : "pool";
    for (const step of STEPS) {
      const cells = (["engine", "compiler"] as const).map((how) => {
        const xs = samples.get(`${how}|${step}`)!;
        const wall = sorted(xs.map((x) => x.wall));
        rows.push({ suite: "compile-reuse", task: `${n} tools, ${pool}, ${step}, ${how}`, medianUs: quantile(wall, 0.5) * 1000, p99Us: quantile(wall, 0.99) * 1000, samples: wall.length });
        return `${f(quantile(wall, 0.5))} / ${f(quantile(wall, 0.99))} | ${f(quantile(sorted(xs.map((x) => x.cpu)), 0.5))}`;
      });
      const s = samples.get(`engine|${step}`)![0]!;
      table.push(`| ${n} | ${pool} | ${step} | ${cells[0]} | ${cells[1]} | ${s.states} / ${s.walked} |`);
    }
  }
}
console.log("| tools | threads | request | engine: wall median / p99 ms | CPU median ms | GrammarCompiler: wall median / p99 ms | CPU median ms | states / walked |");
console.log("|---|---|---|---|---|---|---|---|");
for (const line of table) console.log(line);
saveReport("compile-reuse", rows);
