/**
 * Resident masks on the CPU side (`npm run bench -- mask-refs`): batches of 1, 64, 256 and 1024
 * sequences stepping along real outputs (bench/resident-walk.ts) of the seed grammar and two
 * JSON Schema grammars, Llama 3 + the K3 markers. Per step:
 *   - bytes that cross PCIe for the masks: the dense bitmask (rows × ceil(V/32) × 4) against
 *     the refs (4 bytes a row) plus the compact rows fillMaskRefs wrote — mean and worst step;
 *   - the CPU time of the fill: BatchMatcher.fillMaskRefs against fillNextTokenBitmasks (the
 *     peer) on the same states, median and p99 over the steps.
 * The GPU side (upload, kernels, end-to-end step) is in bench/gpu/kernels.bench.ts.
 */
import { performance } from "node:perf_hooks";
import { threadPoolSize } from "../lib/engine/batch-pool.js";
import { quantile, saveReport, type BenchRow } from "./harness.js";
import { RealWalk, stepBytes, walkGrammars } from "./resident-walk.js";

const quick = process.argv.includes("--quick");
const STEPS = quick ? 40 : 160;
const batches = [1, 64, 256, 1024];

const grammars = walkGrammars();
const rows: BenchRow[] = [];
const bytesTable: Array<Record<string, string | number>> = [];
const timeTable: Array<Record<string, string | number>> = [];
console.log(`thread pool: ${threadPoolSize()} threads; ${STEPS} steps per batch`);
for (const g of grammars) {
  const store = g.compiled.maskStore();
  console.log(`${g.name}: mask store ${store.count} rows, ${(store.words.byteLength / 2 ** 20).toFixed(1)} MiB`);
  for (const n of batches) {
    const walk = new RealWalk(g, n);
    const words = walk.batch.maskWords;
    const dense = new Int32Array(n * words);
    const refs = new Int32Array(n);
    const compact = new Int32Array(n * words);
    const denseUs: number[] = [];
    const refsUs: number[] = [];
    let refBytes = 0;
    let worstRefBytes = 0;
    let compactTotal = 0;
    for (let step = 0; step < STEPS; step++) {
      // Alternate which fill runs first so neither always finds the caches warm.
      const order = step % 2 === 0;
      let compactRows = 0;
      for (const first of [order, !order]) {
        const t0 = performance.now();
        if (first) compactRows = walk.batch.fillMaskRefs(refs, compact).compactRows;
        else walk.batch.fillNextTokenBitmasks(dense);
        (first ? refsUs : denseUs).push((performance.now() - t0) * 1000);
      }
      const b = stepBytes(n, words, compactRows);
      refBytes += b.refs;
      worstRefBytes = Math.max(worstRefBytes, b.refs);
      compactTotal += compactRows;
      walk.step();
    }
    const denseBytes = stepBytes(n, words, 0).dense;
    bytesTable.push({
      grammar: g.name,
      batch: n,
      "dense bytes/step": denseBytes,
      "refs+compact bytes/step (mean)": Math.round(refBytes / STEPS),
      "worst step": worstRefBytes,
      "compact rows/step (mean)": Math.round((compactTotal / STEPS) * 100) / 100,
      "dense / refs": Math.round((denseBytes / (refBytes / STEPS)) * 10) / 10,
    });
    denseUs.sort((a, b) => a - b);
    refsUs.sort((a, b) => a - b);
    const med = (xs: number[]) => Math.round(quantile(xs, 0.5) * 10) / 10;
    const p99 = (xs: number[]) => Math.round(quantile(xs, 0.99) * 10) / 10;
    timeTable.push({
      grammar: g.name,
      batch: n,
      "fillMaskRefs median / p99 µs": `${med(refsUs)} / ${p99(refsUs)}`,
      "fillNextTokenBitmasks median / p99 µs": `${med(denseUs)} / ${p99(denseUs)}`,
      speedup: Math.round((quantile(denseUs, 0.5) / quantile(refsUs, 0.5)) * 10) / 10,
    });
    rows.push({
      suite: `mask refs ${g.name}`, task: `fillMaskRefs ${n}`, medianUs: quantile(refsUs, 0.5), p99Us: quantile(refsUs, 0.99), samples: STEPS,
      peer: `fillNextTokenBitmasks ${n}`, speedupVsPeer: quantile(denseUs, 0.5) / quantile(refsUs, 0.5),
    });
    rows.push({ suite: `mask refs ${g.name}`, task: `fillNextTokenBitmasks ${n}`, medianUs: quantile(denseUs, 0.5), p99Us: quantile(denseUs, 0.99), samples: STEPS });
  }
}
console.log("\n## bytes crossing PCIe per step for the masks");
console.table(bytesTable);
console.log("\n## CPU fill per step (same states)");
console.table(timeTable);
console.log(`report: ${saveReport("mask-refs", rows, { steps: STEPS, threads: threadPoolSize(), bytesTable, timeTable })}`);
