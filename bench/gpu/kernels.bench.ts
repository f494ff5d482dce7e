/**
 * GPU masking kernels on one device (run with `node bench/gpu/run.mjs`):
 *   1. bitmask application at batch 1–4096 on a 128,256-token fp32 (and bf16) batch, for four
 *      masks: "dense" (every 32-byte chunk mixed: each is read and written), "mixed" (random
 *      32-bit words, none all-0 or all-1: nearly every chunk read and written), "sparse" (a
 *      dozen allowed tokens per row: chunks are written without being read) and
 *      "open" (almost everything allowed: chunks skipped). Reported: µs per launch (CUDA events,
 *      mean of many back-to-back launches), the bytes the kernel must move for that mask
 *      (reads of mixed chunks, writes of non-open chunks, the mask itself) as GB/s and as a
 *      percentage of the device's peak (4.8 TB/s on an H200), and the "naive" figure that
 *      counts a full read and write of every logit, the way mask-kernel bandwidth is usually
 *      quoted; from batch 16 on, next to the candidate kernel "apply-waves" (streaming cache
 *      hints, four chunks a thread, a grid of whole waves), which applyBitmask does not use
 *      until these figures show it faster;
 *   2. launch latency at batch 1: device time per launch, and host wall time per call;
 *   3. fused masked argmax against apply-then-argmax at batch 1, 64 and 256;
 *   4. fused masked sampling (temperature, top-k, top-p) wall time at batch 1 and 64;
 *   5. resident masks (docs/masking.md): batches of 1, 64, 256 and 1024 sequences stepping along
 *      real outputs (bench/resident-walk.ts) of the seed grammar and two JSON Schema grammars.
 *      Per step, the dense path (fillNextTokenBitmasks into pinned memory, upload every row,
 *      fused sampling) against the resident path (fillMaskRefs, upload the compact rows only,
 *      fused sampling through refs + the uploaded store): bytes crossing PCIe, end-to-end wall
 *      time of the step (median and p99), and the mask kernel alone on the same rows.
 */
import { performance } from "node:perf_hooks";
import { cuda, type DeviceBitmask, type DeviceLogits } from "../../lib/mask/cuda.js";
import { bitmaskWords } from "../../lib/mask/types.js";
import { quantile, saveReport, type BenchRow } from "../harness.js";
import { RealWalk, stepBytes, walkGrammars } from "../resident-walk.js";

const quick = process.argv.includes("--quick");
const V = 128256;
const W = bitmaskWords(V);
const H200_PEAK = 4.8e12;

if (!cuda.available()) {
  console.error("bench/gpu: no usable CUDA device (cuda.available() is false); nothing to measure");
  process.exit(2);
}
const info = cuda.deviceInfo(0);
const peak = info.name.includes("H200") ? H200_PEAK : info.memoryBandwidth || H200_PEAK;
console.log(`device: ${info.name} (compute ${info.computeCapability}, ${info.multiprocessors} SMs, peak ${(peak / 1e12).toFixed(2)} TB/s)`);

type Kind = "dense" | "mixed" | "sparse" | "open";

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0);
}

function makeMask(rows: number, kind: Kind): Int32Array {
  const next = lcg(rows + kind.length * 977);
  const mask = new Int32Array(rows * W);
  for (let r = 0; r < rows; r++) {
    const row = mask.subarray(r * W, (r + 1) * W);
    if (kind === "dense") {
      row.fill(0x55555555); // every 32-byte chunk mixed, for every dtype
    } else if (kind === "mixed") {
      for (let w = 0; w < W; w++) {
        let m = next() | 0;
        if (m === 0 || m === -1) m = 0x5555aaaa; // keep every word mixed
        row[w] = m;
      }
    } else if (kind === "sparse") {
      for (let k = 0; k < 12; k++) {
        const t = next() % V;
        row[t >> 5]! |= 1 << (t & 31);
      }
    } else {
      row.fill(-1);
      for (let k = 0; k < 64; k++) {
        const t = next() % V;
        row[t >> 5]! &= ~(1 << (t & 31));
      }
    }
  }
  return mask;
}

/** Bytes the kernel must move: per 32-byte chunk, read+write if mixed, write if all-disallowed. */
function requiredBytes(mask: Int32Array, rows: number, elementBytes: number): number {
  const perChunk = 32 / elementBytes;
  let bytes = rows * W * 4;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c * perChunk < V; c++) {
      const first = c * perChunk;
      const word = mask[r * W + (first >> 5)]!;
      const count = Math.min(perChunk, V - first);
      const bits = (word >>> (first & 31)) & (count >= 32 ? 0xffffffff : (1 << count) - 1);
      const all = count >= 32 ? 0xffffffff : (1 << count) - 1;
      if ((bits >>> 0) === (all >>> 0)) continue;
      bytes += bits === 0 ? 32 : 64;
    }
  }
  return bytes;
}

const rows: BenchRow[] = [];
const table: Array<Record<string, string | number>> = [];
const batches = quick ? [1, 64, 1024] : [1, 4, 16, 64, 256, 1024, 4096];
const stream = cuda.createStream();

function withBatch<T>(batch: number, dtype: "float32" | "bfloat16", fn: (l: DeviceLogits, b: (k: Kind) => DeviceBitmask) => T): T {
  const logits = cuda.allocateLogits({ rows: batch, vocabSize: V, dtype, stream });
  const host = dtype === "float32" ? new Float32Array(batch * V).fill(0.25) : new Uint16Array(batch * V).fill(0x3e80);
  logits.upload(host);
  const masks = new Map<Kind, DeviceBitmask>();
  const get = (k: Kind): DeviceBitmask => {
    let m = masks.get(k);
    if (!m) {
      m = cuda.allocateBitmask(batch, V, { stream });
      m.upload(makeMask(batch, k));
      masks.set(k, m);
    }
    return m;
  };
  try {
    return fn(logits, get);
  } finally {
    for (const m of masks.values()) m.free();
    logits.free();
  }
}

// 1. bandwidth
for (const dtype of ["float32", "bfloat16"] as const) {
  const elementBytes = dtype === "float32" ? 4 : 2;
  for (const batch of dtype === "bfloat16" ? batches.filter((b) => b >= 64) : batches) {
    withBatch(batch, dtype, (logits, mask) => {
      for (const kind of ["dense", "mixed", "sparse", "open"] as Kind[]) {
        const iterations = Math.max(20, Math.min(2000, Math.round(2e5 / batch)));
        logits.benchmark("apply", mask(kind), 5);
        const us = logits.benchmark("apply", mask(kind), iterations);
        const need = requiredBytes(makeMask(batch, kind), batch, elementBytes);
        const naive = batch * V * elementBytes * 2 + batch * W * 4;
        const gbps = need / (us * 1e-6) / 1e9;
        // The candidate kernel for batches past L2 (streaming hints, 4 chunks a thread, one wave).
        logits.benchmark("apply-waves", mask(kind), 5);
        const waves = batch >= 16 ? logits.benchmark("apply-waves", mask(kind), iterations) : NaN;
        table.push({
          kernel: `apply ${dtype}`,
          batch,
          mask: kind,
          "µs/launch": Math.round(us * 100) / 100,
          "required GB/s": Math.round(gbps),
          "% of peak": Math.round((need / (us * 1e-6) / peak) * 1000) / 10,
          "naive GB/s": Math.round(naive / (us * 1e-6) / 1e9),
          "waves µs/launch": Number.isNaN(waves) ? "" : Math.round(waves * 100) / 100,
          "waves % of peak": Number.isNaN(waves) ? "" : Math.round((need / (waves * 1e-6) / peak) * 1000) / 10,
        });
        rows.push({ suite: "gpu apply", task: `apply ${dtype} batch ${batch} ${kind}`, medianUs: us, p99Us: us, samples: iterations });
        if (!Number.isNaN(waves)) {
          rows.push({
            suite: "gpu apply", task: `apply-waves ${dtype} batch ${batch} ${kind}`, medianUs: waves, p99Us: waves, samples: iterations,
            peer: `apply ${dtype} batch ${batch} ${kind}`, speedupVsPeer: us / waves,
          });
        }
      }
    });
  }
}
console.log("\n## bitmask application (mean of back-to-back launches, CUDA events)");
console.table(table);

// 2. launch latency at batch 1
const latency: Record<string, number> = {};
withBatch(1, "float32", (logits, mask) => {
  const m = mask("sparse");
  latency["device µs per launch (events, batch 1)"] = logits.benchmark("apply", m, 2000);
  const n = 2000;
  logits.synchronize();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) logits.applyBitmask(m);
  const t1 = performance.now();
  logits.synchronize();
  const t2 = performance.now();
  latency["host µs per applyBitmask call (enqueue only)"] = ((t1 - t0) * 1000) / n;
  latency["wall µs per call incl. completion"] = ((t2 - t0) * 1000) / n;
  const t3 = performance.now();
  for (let i = 0; i < 200; i++) {
    logits.applyBitmask(m);
    logits.synchronize();
  }
  latency["wall µs per call + synchronize (round trip)"] = ((performance.now() - t3) * 1000) / 200;
});
console.log("\n## launch latency");
console.table(latency);

// 3. fused argmax vs apply-then-argmax
const argmaxTable: Array<Record<string, string | number>> = [];
for (const batch of quick ? [1, 256] : [1, 64, 256]) {
  withBatch(batch, "float32", (logits, mask) => {
    for (const kind of ["sparse", "mixed"] as Kind[]) {
      const iterations = Math.max(50, Math.round(1e5 / batch));
      const fused = logits.benchmark("argmax", mask(kind), iterations);
      const apply = logits.benchmark("apply", mask(kind), iterations);
      const plain = logits.benchmark("argmax", null, iterations);
      argmaxTable.push({
        batch,
        mask: kind,
        "fused masked argmax µs": Math.round(fused * 100) / 100,
        "apply + argmax µs": Math.round((apply + plain) * 100) / 100,
        speedup: Math.round(((apply + plain) / fused) * 100) / 100,
      });
      rows.push({ suite: "gpu argmax", task: `fused argmax batch ${batch} ${kind}`, medianUs: fused, p99Us: fused, samples: iterations, peer: `apply+argmax batch ${batch} ${kind}`, speedupVsPeer: (apply + plain) / fused });
    }
  });
}
console.log("\n## fused masked argmax vs mask-then-argmax (device µs per launch)");
console.table(argmaxTable);

// 4. sampling wall time, on flat logits (every key equal: the worst case for the histograms)
// and on varied ones (uniform in [-8, 8))
const sampleTable: Array<Record<string, string | number>> = [];
for (const [batch, logitsKind] of [[1, "flat"], [64, "flat"], [1, "varied"], [64, "varied"]] as const) {
  withBatch(batch, "float32", (logits, mask) => {
    if (logitsKind === "varied") {
      const next = lcg(batch + 4242);
      logits.upload(Float32Array.from({ length: batch * V }, () => (next() / 2 ** 32) * 16 - 8));
    }
    const m = mask("mixed");
    const opts = { temperature: 0.7, topK: 50, topP: 0.9, seed: 1n };
    logits.sample(m, opts);
    const n = batch === 1 ? 200 : 50;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) logits.sample(m, { ...opts, seed: BigInt(i) });
    sampleTable.push({ batch, logits: logitsKind, "wall µs per sample() call (incl. sync)": Math.round(((performance.now() - t0) * 1000) / n) });
  });
}
console.log("\n## fused masked sampling");
console.table(sampleTable);

// 5. resident masks along real outputs
const residentTable: Array<Record<string, string | number>> = [];
const steps = quick ? 20 : 100;
for (const g of walkGrammars()) {
  const vocab = g.compiled.vocabSize;
  const store = g.compiled.uploadMasks(0, { stream });
  for (const n of quick ? [1, 256] : [1, 64, 256, 1024]) {
    const walk = new RealWalk(g, n);
    const words = walk.batch.maskWords;
    const logits = cuda.allocateLogits({ rows: n, vocabSize: vocab, dtype: "bfloat16", stream });
    const next = lcg(n + 99);
    const host = new Uint16Array(n * vocab);
    for (let i = 0; i < host.length; i++) host[i] = 0x3f00 + (next() >>> 24);  // bf16 values in [0.5, 1)
    logits.upload(host);
    const densePinned = cuda.allocatePinnedBitmask(n, vocab);
    const compactPinned = cuda.allocatePinnedBitmask(n, vocab);
    const denseMask = cuda.allocateBitmask(n, vocab, { stream });
    const compactMask = cuda.allocateBitmask(n, vocab, { stream });
    const refs = new Int32Array(n);
    const resident = { refs, maskStore: store };
    const sample = { temperature: 0.7, topK: 50, topP: 0.9 };
    const denseUs: number[] = [];
    const refsUs: number[] = [];
    let denseKernel = 0;
    let refsKernel = 0;
    let refBytes = 0;
    try {
      for (let step = 0; step < steps; step++) {
        logits.synchronize();
        let t0 = performance.now();
        walk.batch.fillNextTokenBitmasks(densePinned.array);
        denseMask.upload(densePinned, { stream });
        logits.sample(denseMask, { ...sample, seed: BigInt(step) });
        denseUs.push((performance.now() - t0) * 1000);
        t0 = performance.now();
        const { compactRows } = walk.batch.fillMaskRefs(refs, compactPinned.array);
        compactMask.upload(compactPinned, { stream, rows: compactRows });
        logits.sample(compactMask, { ...resident, ...sample, seed: BigInt(step) });
        refsUs.push((performance.now() - t0) * 1000);
        refBytes += stepBytes(n, words, compactRows).refs;
        if (step % 10 === 0) {
          denseKernel += logits.benchmark("apply", denseMask, 10);
          refsKernel += logits.benchmark("apply", compactMask, 10, resident);
        }
        walk.step();
      }
    } finally {
      for (const m of [densePinned, compactPinned, denseMask, compactMask, logits]) m.free();
    }
    denseUs.sort((a, b) => a - b);
    refsUs.sort((a, b) => a - b);
    const kernelSamples = Math.ceil(steps / 10);
    const denseBytes = stepBytes(n, words, 0).dense;
    residentTable.push({
      grammar: g.name,
      batch: n,
      "PCIe bytes/step dense": denseBytes,
      "PCIe bytes/step refs+compact": Math.round(refBytes / steps),
      "step µs dense (median / p99)": `${Math.round(quantile(denseUs, 0.5))} / ${Math.round(quantile(denseUs, 0.99))}`,
      "step µs resident (median / p99)": `${Math.round(quantile(refsUs, 0.5))} / ${Math.round(quantile(refsUs, 0.99))}`,
      "step speedup": Math.round((quantile(denseUs, 0.5) / quantile(refsUs, 0.5)) * 100) / 100,
      "apply kernel µs dense / resident": `${Math.round((denseKernel / kernelSamples) * 10) / 10} / ${Math.round((refsKernel / kernelSamples) * 10) / 10}`,
    });
    rows.push({
      suite: "gpu resident masks", task: `resident step ${g.name} batch ${n}`, medianUs: quantile(refsUs, 0.5), p99Us: quantile(refsUs, 0.99), samples: steps,
      peer: `dense step ${g.name} batch ${n}`, speedupVsPeer: quantile(denseUs, 0.5) / quantile(refsUs, 0.5),
    });
  }
}
console.log("\n## resident masks: one decoding step (fill, upload, fused sampling) along real outputs, bf16 logits");
console.table(residentTable);

stream.destroy();
console.log(`report: ${saveReport("gpu-kernels", rows, { device: info, table, latency, argmaxTable, sampleTable, residentTable })}`);
