/**
 * Compiling at scale (issue 12): the Kimi K3 grammar of 10, 50 and 100 tools, lowered and
 * compiled against Llama 3 (+ the K3 markers), for the six-parameter tool shape
 * (test/helpers/many-tools.ts) and for tools whose parameters are JSONSchemaBench Glaiveai2K
 * schemas (../shared/data; those rows are left out where the data is absent). Per row:
 *
 * - lower: buildToolCallingFormat + lowerFormat with the lowering cache empty (the first
 *   request that brings these tools), and again with the cache warm (a repeated request);
 * - engine: compileGrammar of the IR (its serialization included), 1 thread and the pool;
 * - one tool changed: the next request with one of the tools changed (lowering cache warm);
 * - web-xgrammar: compileStructuralTag of the closest structural tag it accepts (see
 *   engine-fixtures.ts), where it finishes in reasonable time.
 *
 * Then the cold start (a fresh process: first lowering and compile against the warm ones; the
 * CLI start to exit) and the event loop's largest timer gap while 100 tools compile, async
 * against sync. Each figure is the median of a few runs, wall-clock and, for one-thread work,
 * CPU time of this process (steadier on a shared machine). Each row, the peer's compilations and the
 * event-loop measure run in a process of their own (the driver spawns this file again with
 * TAGMASK_SCALE_JOB set), so that no row pays for the heap another left behind.
 * Results in bench/results/compile-scale.json.
 *
 * `npm run bench -- compile-scale`; the machine should be otherwise idle.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { serializeGrammar } from "../lib/compile/ir.js";
import * as lowering from "../lib/compile/lower.js";
import { compileGrammar, compileGrammarAsync } from "../lib/engine/compiled-grammar.js";
import type { StructuralTag } from "../lib/format/types.js";
import { packageRoot } from "../lib/package-root.js";
import { buildToolCallingFormat, type FunctionTool, type ToolChoice } from "../lib/tools/index.js";
import { sixParameterTool, sixParameterTools } from "../test/helpers/many-tools.js";
import { loadVocabulary, loadWebXgrammar, peerStructuralTag, peerTokenList, type XgrCompiler } from "./engine-fixtures.js";
import { quantile, saveReport, type BenchRow } from "./harness.js";

const job = process.env.TAGMASK_SCALE_JOB;
const vocab = job !== undefined && !job.startsWith("peer") ? loadVocabulary() : undefined;
vocab?.native();
const clearCache = (): void => (lowering as { clearLoweringCache?: () => void }).clearLoweringCache?.();

/** A measured run: wall and process CPU milliseconds. */
interface Sample {
  wall: number;
  cpu: number;
}

function measure<T>(fn: () => T): [T, Sample] {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return [out, { wall, cpu: (c.user + c.system) / 1000 }];
}

const median = (xs: number[]): number => quantile([...xs].sort((a, b) => a - b), 0.5);
const ms = (x: number): string => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : "–");

// ---- tool sets ------------------------------------------------------------------------------

const glaiveDir = join(packageRoot(), "..", "shared", "data", "jsonschemabench", "Glaiveai2K");

/**
 * `count` Glaiveai2K tools, the `slice`-th `count` of the data set (each repetition of a row
 * lowers tools it has not seen: no cache of any kind, the lowering's or the JSON Schema
 * compiler's, holds them yet); with `changedVariant`, its first tool gets an extra parameter.
 */
function glaiveTools(count: number, slice: number, changedVariant = -1): FunctionTool[] | null {
  if (!existsSync(glaiveDir)) return null;
  const all = readdirSync(glaiveDir).filter((f) => f.endsWith(".json")).sort();
  const from = (slice * count) % Math.max(1, all.length - count + 1);
  const files = all.slice(from, from + count);
  if (files.length < count) return null;
  return files.map((f, i) => {
    const schema = JSON.parse(readFileSync(join(glaiveDir, f), "utf8")) as Record<string, unknown>;
    if (i === 0 && changedVariant >= 0) schema["description"] = `variant ${changedVariant}`;
    // A tool whose parameters change: an extra optional parameter.
    const parameters = i === 0 && changedVariant >= 0
      ? { ...schema, properties: { ...(schema["properties"] as object), [`extra_${changedVariant}`]: { type: "integer", maximum: changedVariant } } }
      : schema;
    return { type: "function", function: { name: f.replace(/\.json$/, "").replace(/[^A-Za-z0-9_]/g, "_"), parameters } };
  });
}

interface ToolSet {
  name: string;
  /** `count` tools; each `rep` gives tools no earlier rep gave (fresh bounds or other schemas). */
  tools: (count: number, rep: number) => FunctionTool[] | null;
  /** The tools of `rep` with one of them changed. */
  changed: (count: number, rep: number) => FunctionTool[] | null;
}

const sets: ToolSet[] = [
  {
    name: "six-parameter",
    tools: (n, rep) => sixParameterTools(n, { variant: rep + 1 }),
    changed: (n, rep) => {
      const tools = sixParameterTools(n, { variant: rep + 1 });
      tools[Math.floor(n / 2)] = sixParameterTool(Math.floor(n / 2), 1000 + rep);
      return tools;
    },
  },
  { name: "Glaiveai2K", tools: (n, rep) => glaiveTools(n, rep), changed: (n, rep) => glaiveTools(n, rep, rep + 2) },
];

const k3 = (tools: FunctionTool[], choice: ToolChoice): StructuralTag => {
  const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: choice });
  if (!tag) throw new Error("no format");
  return tag;
};

// ---- the peer -------------------------------------------------------------------------------

async function peerCompile(tag: StructuralTag): Promise<number> {
  const xgr = loadWebXgrammar();
  const peerList = peerTokenList();
  const peerInfo = await xgr.TokenizerInfo.createTokenizerInfo(peerList.tokens, "byte_level", false, undefined, peerList.stops);
  const peerCompiler: XgrCompiler = await xgr.GrammarCompiler.createGrammarCompiler(peerInfo, false);
  const t0 = performance.now();
  try {
    (await peerCompiler.compileStructuralTag(peerStructuralTag(tag))).dispose();
  } catch {
    return NaN;
  }
  return performance.now() - t0;
}

// ---- the scale rows -------------------------------------------------------------------------

interface ScaleRow {
  set: string;
  tools: number;
  choice: ToolChoice;
  states: number;
  irBytes: number;
  lowerFirstMs: Sample;
  lowerRepeatMs: Sample;
  engine1Ms: Sample;
  enginePoolMs: number;
  total1Ms: Sample;
  changedMs: Sample;
  peerMs: number;
}

/** One row, in its own process: `row:SET:COUNT:CHOICE`. */
function measureRow(setName: string, n: number, choice: ToolChoice): Omit<ScaleRow, "peerMs"> {
  const set = sets.find((x) => x.name === setName)!;
  const reps = n >= 50 ? 3 : 5;
  const first: Sample[] = [];
  const repeat: Sample[] = [];
  const engine1: Sample[] = [];
  const pool: number[] = [];
  const changed: Sample[] = [];
  let states = 0;
  let irBytes = 0;
  // One unmeasured run warms the JIT (the cold start is measured apart, in a fresh process), on
  // tools of its own: every measured repetition lowers tools no cache has seen.
  for (let r = -1; r < reps; r++) {
    clearCache();
    const rep = r < 0 ? reps : r;
    const tools = set.tools(n, rep)!;
    const [ir, lowerFirst] = measure(() => lowering.lowerFormat(k3(tools, choice)));
    const [, lowerRepeat] = measure(() => lowering.lowerFormat(k3(set.tools(n, rep)!, choice)));
    // The engine from the IR object, as a caller compiles it: its serialization included.
    const [compiled, e1] = measure(() => compileGrammar(vocab!, ir, { threads: 1 }));
    states = compiled.stateCount;
    irBytes = serializeGrammar(ir).length;
    const [, ep] = measure(() => compileGrammar(vocab!, ir));
    const [, ch] = measure(() => compileGrammar(vocab!, lowering.lowerFormat(k3(set.changed(n, rep)!, choice)), { threads: 1 }));
    if (r < 0) continue;
    first.push(lowerFirst);
    repeat.push(lowerRepeat);
    engine1.push(e1);
    pool.push(ep.wall);
    changed.push(ch);
  }
  const med = (xs: Sample[]): Sample => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) });
  const total = first.map((f, i) => ({ wall: f.wall + engine1[i]!.wall, cpu: f.cpu + engine1[i]!.cpu }));
  return {
    set: set.name, tools: n, choice, states, irBytes,
    lowerFirstMs: med(first), lowerRepeatMs: med(repeat), engine1Ms: med(engine1), enginePoolMs: median(pool), total1Ms: med(total), changedMs: med(changed),
  };
}

/**
 * Runs a job of this benchmark in a fresh process and returns what it printed last (JSON): this
 * checkout's, or with `root`, another checkout's built copy of this file (the baseline).
 */
function inChild<T>(jobName: string, root = packageRoot()): T | null {
  const script = join(root, "dist", "bench", "compile-scale.bench.js");
  const res = spawnSync(process.execPath, ["--expose-gc", script], {
    cwd: root, env: { ...process.env, TAGMASK_SCALE_JOB: jobName }, encoding: "utf8", maxBuffer: 1 << 26,
  });
  const last = res.stdout.trim().split("\n").at(-1);
  if (res.status !== 0 || !last) {
    console.error(`job ${jobName} in ${root} failed (${res.status}): ${res.stderr.slice(-2000)}`);
    return null;
  }
  return JSON.parse(last) as T;
}

// ---- the event loop while compiling -----------------------------------------------------------

async function timerGaps(work: () => Promise<unknown> | unknown): Promise<{ max: number; p99: number }> {
  const gaps: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 5);
  await work();
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(timer);
  gaps.sort((a, b) => a - b);
  return { max: gaps.at(-1) ?? 0, p99: quantile(gaps, 0.99) };
}

async function measureEventLoop(): Promise<{ async: { max: number; p99: number }; sync: { max: number; p99: number } }> {
  const hundred = k3(sixParameterTools(100), "auto");
  // Before issue 12 compileGrammarAsync took IR only: the lowering then ran on the main thread.
  const hasAsyncFormats = "clearLoweringCache" in lowering;
  compileGrammar(vocab!, lowering.lowerFormat(k3(sixParameterTools(3), "auto")), { threads: 1 }); // warms the code
  const asyncGaps = hasAsyncFormats
    ? await timerGaps(() => compileGrammarAsync(vocab!, hundred as never, { threads: 1, lowering: { cache: false } } as never))
    : await timerGaps(() => compileGrammarAsync(vocab!, lowering.lowerFormat(hundred), { threads: 1 }));
  const syncGaps = await timerGaps(() => compileGrammar(vocab!, lowering.lowerFormat(hundred, { cache: false } as never), { threads: 1 }));
  return { async: asyncGaps, sync: syncGaps };
}

if (job !== undefined) {
  const [kind, setName, count, choice] = job.split(":");
  let out: unknown;
  if (kind === "row") out = measureRow(setName!, Number(count), choice as ToolChoice);
  else if (kind === "peer") out = { ms: await peerCompile(k3(sets.find((x) => x.name === setName)!.tools(Number(count), 0)!, choice as ToolChoice)) };
  else out = await measureEventLoop();
  console.log(JSON.stringify(out));
  process.exit(0);
}

// TAGMASK_BENCH_BASELINE=/path/to/another/checkout (built: dist/ and the addon, this file copied
// into its bench/) measures that checkout too, each of its jobs right before the same job here,
// so that the machine's load falls on both alike: the "before" of a change, in the same run.
const baseline = process.env.TAGMASK_BENCH_BASELINE;
const sides: Array<{ name: string; root: string }> = [
  ...(baseline ? [{ name: "baseline", root: baseline }] : []),
  { name: "this", root: packageRoot() },
];

interface SideRow extends ScaleRow {
  side: string;
}
const scaleRows: SideRow[] = [];
const rows: BenchRow[] = [];
// TAGMASK_BENCH_COUNTS=10,50 runs fewer rows, TAGMASK_BENCH_SETS=Glaiveai2K one tool set.
const counts = (process.env.TAGMASK_BENCH_COUNTS ?? "10,50,100").split(",").map(Number);
const setFilter = process.env.TAGMASK_BENCH_SETS?.split(",");
for (const set of sets) {
  if (setFilter && !setFilter.includes(set.name)) continue;
  for (const n of counts) {
    if (set.tools(n, 0) === null) continue;
    for (const choice of ["auto", "required"] as ToolChoice[]) {
      // TAGMASK_BENCH_PEER=0 leaves web-xgrammar out.
      const peer = n <= 50 && process.env.TAGMASK_BENCH_PEER !== "0" ? inChild<{ ms: number | null }>(`peer:${set.name}:${n}:${choice}`)?.ms ?? NaN : NaN;
      for (const side of sides) {
        const measured = inChild<Omit<ScaleRow, "peerMs">>(`row:${set.name}:${n}:${choice}`, side.root);
        if (measured === null) continue;
        const row: SideRow = { ...measured, peerMs: peer ?? NaN, side: side.name };
        scaleRows.push(row);
        const task = `${set.name} ${choice} ×${n}${side.name === "this" ? "" : ` [${side.name}]`}`;
        const reps = n >= 50 ? 3 : 5;
        rows.push(
          { suite: "compile-scale", task: `${task}: lower (first) + engine, 1 thread`, medianUs: row.total1Ms.wall * 1000, p99Us: NaN, samples: reps },
          { suite: "compile-scale", task: `${task}: lower (first)`, medianUs: row.lowerFirstMs.wall * 1000, p99Us: NaN, samples: reps },
          { suite: "compile-scale", task: `${task}: lower (repeat)`, medianUs: row.lowerRepeatMs.wall * 1000, p99Us: NaN, samples: reps },
          { suite: "compile-scale", task: `${task}: engine, 1 thread`, medianUs: row.engine1Ms.wall * 1000, p99Us: NaN, samples: reps },
          { suite: "compile-scale", task: `${task}: engine, pool`, medianUs: row.enginePoolMs * 1000, p99Us: NaN, samples: reps },
          { suite: "compile-scale", task: `${task}: one tool changed, lower + engine`, medianUs: row.changedMs.wall * 1000, p99Us: NaN, samples: reps },
        );
        if (side.name === "this" && Number.isFinite(row.peerMs)) rows.push({ suite: "compile-scale", task: `${task}: web-xgrammar`, medianUs: row.peerMs * 1000, p99Us: NaN, samples: 1 });
        console.log(`${task}: ${row.states} states, IR ${(row.irBytes / 1024).toFixed(0)} KB; lower first ${ms(row.lowerFirstMs.wall)} (cpu ${ms(row.lowerFirstMs.cpu)}), repeat ${ms(row.lowerRepeatMs.wall)} (cpu ${ms(row.lowerRepeatMs.cpu)}); ` +
          `engine 1 thread ${ms(row.engine1Ms.wall)} (cpu ${ms(row.engine1Ms.cpu)}), pool ${ms(row.enginePoolMs)}; total ${ms(row.total1Ms.wall)} (cpu ${ms(row.total1Ms.cpu)}); ` +
          `one changed ${ms(row.changedMs.wall)} (cpu ${ms(row.changedMs.cpu)}); web-xgrammar ${ms(row.peerMs)} ms`);
      }
    }
  }
}

// ---- cold start -----------------------------------------------------------------------------

const cold: Record<string, Record<string, number[]>> = {};
for (let r = 0; r < 5; r++) {
  for (const side of sides) {
    const probe = join(side.root, "dist", "bench", "cold-start-probe.js");
    if (!existsSync(probe)) continue;
    const res = spawnSync(process.execPath, [probe], { cwd: side.root, encoding: "utf8" });
    const figures = JSON.parse(res.stdout.trim().split("\n").at(-1)!) as Record<string, number>;
    for (const [k, v] of Object.entries(figures)) ((cold[side.name] ??= {})[k] ??= []).push(v);
  }
}
const coldMedians = Object.fromEntries(Object.entries(cold).map(([side, figures]) => [side, Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)]))]));
console.log("cold start (fresh process, medians of 5):", coldMedians);

/** Medians of wall times, start to exit, of each command (runs interleaved: a, b, a, b, ...). */
function wallsOf(commands: Array<{ cwd: string; args: string[] }>, runs = 10): number[] {
  const times: number[][] = commands.map(() => []);
  for (let r = 0; r <= runs; r++) {
    commands.forEach((c, i) => {
      const t0 = performance.now();
      spawnSync(process.execPath, c.args, { cwd: c.cwd, stdio: "ignore" });
      if (r > 0) times[i]!.push(performance.now() - t0);
    });
  }
  return times.map(median);
}
const seedTools = join(packageRoot(), "test", "fixtures", "seeds", "tools.json");
const addParameters = join(mkdtempSync(join(tmpdir(), "tagmask-bench-")), "add-parameters.json");
writeFileSync(addParameters, JSON.stringify((JSON.parse(readFileSync(seedTools, "utf8")) as FunctionTool[])[1]!.function.parameters));
const cliCommands = (root: string): Array<{ cwd: string; args: string[] }> => {
  const cli = join(root, "dist", "lib", "cli.js");
  return [
    { cwd: root, args: [cli, "outline", "--family", "kimi-k3", "--tools", seedTools, "--tool-choice", "required"] },
    { cwd: root, args: [cli, "compile", "--schema", addParameters] },
  ];
};
const cliTimes = wallsOf([{ cwd: packageRoot(), args: ["-e", "0"] }, ...sides.flatMap((side) => cliCommands(side.root))]);
const cliRows: Record<string, number> = { nodeBaselineMs: cliTimes[0]! };
sides.forEach((side, i) => {
  cliRows[`${side.name}OutlineMs`] = cliTimes[1 + 2 * i]!;
  cliRows[`${side.name}CompileSchemaMs`] = cliTimes[2 + 2 * i]!;
});
console.log("CLI start to exit (medians of 10, wall ms):", cliRows);

const eventLoop: Record<string, unknown> = {};
for (const side of sides) {
  const gaps = inChild<{ async: { max: number; p99: number }; sync: { max: number; p99: number } }>("event-loop", side.root);
  eventLoop[side.name] = gaps;
  if (gaps) console.log(`event loop while 100 tools compile [${side.name}]: async max gap ${ms(gaps.async.max)} ms (p99 ${ms(gaps.async.p99)}), sync max gap ${ms(gaps.sync.max)} ms`);
}

saveReport("compile-scale", rows, { scale: scaleRows, coldStart: coldMedians, cli: cliRows, eventLoop, loadAverage: loadavg() });
process.exit(0);
