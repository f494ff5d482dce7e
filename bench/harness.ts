/**
 * Shared helpers for the benchmarks: run a tinybench suite, print median / p99 per task and the
 * ratio against a peer measured in the same run, and append the figures to a JSON report in
 * bench/results/ (ignored by git) so docs can quote the exact run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Bench } from "tinybench";
import { packageRoot } from "../lib/package-root.js";

export interface BenchRow {
  suite: string;
  task: string;
  /** Median latency per operation, microseconds. */
  medianUs: number;
  /** 99th percentile latency per operation, microseconds. */
  p99Us: number;
  samples: number;
  /** Name of the peer task this one is compared with, and median(peer) / median(this). */
  peer?: string;
  speedupVsPeer?: number;
}

export interface TaskSpec {
  name: string;
  fn: () => unknown;
  /** Operations done by one call of fn (the figures are divided by it). Default 1. */
  opsPerCall?: number;
  /** Name of a task in the same suite to compare against. */
  peer?: string;
}

/** Runs the tasks (each for about `timeMs`), prints a table, returns the rows. */
export async function runSuite(suite: string, tasks: TaskSpec[], options: { timeMs?: number; warmupMs?: number } = {}): Promise<BenchRow[]> {
  const bench = new Bench({ name: suite, time: options.timeMs ?? 500, warmupTime: options.warmupMs ?? 100 });
  for (const t of tasks) bench.add(t.name, t.fn);
  await bench.run();
  const rows: BenchRow[] = [];
  for (const t of tasks) {
    const task = bench.getTask(t.name);
    const result = task?.result as { latency?: { p50?: number; p99?: number; samplesCount?: number }; state?: string; error?: unknown } | undefined;
    if (!result?.latency || result.latency.p50 === undefined) {
      throw new Error(`benchmark ${suite} / ${t.name} produced no result: ${String(result?.error ?? result?.state)}`);
    }
    const per = t.opsPerCall ?? 1;
    rows.push({
      suite,
      task: t.name,
      medianUs: (result.latency.p50 * 1000) / per,
      p99Us: ((result.latency.p99 ?? result.latency.p50) * 1000) / per,
      samples: result.latency.samplesCount ?? 0,
    });
  }
  for (const t of tasks) {
    if (!t.peer) continue;
    const row = rows.find((r) => r.task === t.name)!;
    const peer = rows.find((r) => r.task === t.peer);
    if (!peer) throw new Error(`benchmark ${suite} / ${t.name}: peer task ${t.peer} is not in the suite`);
    row.peer = peer.task;
    row.speedupVsPeer = peer.medianUs / row.medianUs;
  }
  printRows(suite, rows);
  return rows;
}

export function printRows(suite: string, rows: BenchRow[]): void {
  console.log(`\n## ${suite}`);
  console.table(
    rows.map((r) => ({
      task: r.task,
      "median µs": round(r.medianUs),
      "p99 µs": round(r.p99Us),
      samples: r.samples,
      "vs peer": r.speedupVsPeer === undefined ? "" : `${round(r.speedupVsPeer)}× (${r.peer})`,
    })),
  );
}

function round(x: number): number {
  return x >= 100 ? Math.round(x) : Math.round(x * 1000) / 1000;
}

/** The q-quantile (0..1) of ascending values: the value at rank floor(q·n), capped at the last; NaN when empty. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Writes rows to bench/results/NAME.json (source tree, not dist). */
export function saveReport(name: string, rows: BenchRow[], extra: Record<string, unknown> = {}): string {
  const file = join(packageRoot(), "bench", "results", `${name}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), rows, ...extra }, null, 2));
  return file;
}
