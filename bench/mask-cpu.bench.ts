/**
 * CPU masking throughput: applyTokenBitmask on a 128k-vocabulary (Llama 3: 128,256) float32
 * batch, in GB/s of logits covered (rows × vocab × 4 bytes per call), for three kinds of mask:
 *   - structural: a handful of allowed tokens (almost every word allows nothing → pure stores),
 *   - free text: almost everything allowed (most words skipped, a few mixed),
 *   - random: every word mixed, half the bits set (the worst case: every element touched).
 * The peer is a plain JavaScript loop over the bits, the obvious code without the addon.
 * Also: bfloat16 at batch 16, and each instruction set at batch 16 (random masks).
 */
import { applyMaskIsa, applyTokenBitmask } from "../lib/mask/cpu.js";
import { bitmaskWords } from "../lib/mask/types.js";
import { runSuite, saveReport, type BenchRow } from "./harness.js";

const V = 128256;
const W = bitmaskWords(V);

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

type Kind = "structural" | "free-text" | "random";

function makeMask(rows: number, kind: Kind): Int32Array {
  const next = lcg(rows * 7 + kind.length);
  const mask = new Int32Array(rows * W);
  for (let r = 0; r < rows; r++) {
    const row = mask.subarray(r * W, (r + 1) * W);
    if (kind === "structural") {
      for (let k = 0; k < 12; k++) {
        const t = next() % V;
        row[t >> 5]! |= 1 << (t & 31);
      }
    } else if (kind === "free-text") {
      row.fill(-1);
      for (let k = 0; k < 300; k++) {
        const t = next() % V;
        row[t >> 5]! &= ~(1 << (t & 31));
      }
    } else {
      for (let w = 0; w < W; w++) row[w] = next() | 0;
    }
  }
  return mask;
}

function jsLoop(logits: Float32Array, mask: Int32Array, rows: number): void {
  for (let r = 0; r < rows; r++) {
    const base = r * V;
    const mbase = r * W;
    for (let i = 0; i < V; i++) {
      if (((mask[mbase + (i >> 5)]! >>> (i & 31)) & 1) === 0) logits[base + i] = -Infinity;
    }
  }
}

const rows: BenchRow[] = [];
const gbps: Record<string, number> = {};
for (const batch of [1, 16, 64]) {
  for (const kind of ["structural", "free-text", "random"] as Kind[]) {
    const logits = new Float32Array(batch * V).fill(0.5);
    const mask = makeMask(batch, kind);
    const name = `fp32 batch ${batch} ${kind}`;
    const res = await runSuite(`mask-cpu ${name}`, [
      { name: `native ${name}`, fn: () => applyTokenBitmask(logits, mask, { vocabSize: V }), peer: `js loop ${name}` },
      { name: `js loop ${name}`, fn: () => jsLoop(logits, mask, batch) },
    ], { timeMs: 400 });
    rows.push(...res);
    const bytes = batch * V * 4;
    for (const r of res) gbps[r.task] = bytes / (r.medianUs * 1e-6) / 1e9;
  }
}

{
  const batch = 16;
  const logits = new Uint16Array(batch * V).fill(0x3f00);
  const mask = makeMask(batch, "random");
  const res = await runSuite("mask-cpu bf16 batch 16 random", [
    { name: "native bf16 batch 16 random", fn: () => applyTokenBitmask(logits, mask, { vocabSize: V }) },
  ], { timeMs: 400 });
  rows.push(...res);
  for (const r of res) gbps[r.task] = (batch * V * 2) / (r.medianUs * 1e-6) / 1e9;
}

for (const isa of ["scalar", "avx2", "avx512"] as const) {
  try {
    applyMaskIsa(isa);
  } catch {
    continue;
  }
  const batch = 16;
  const logits = new Float32Array(batch * V).fill(0.5);
  const mask = makeMask(batch, "random");
  const res = await runSuite(`mask-cpu isa ${isa}`, [
    { name: `native ${isa} fp32 batch 16 random`, fn: () => applyTokenBitmask(logits, mask, { vocabSize: V }) },
  ], { timeMs: 300 });
  rows.push(...res);
  for (const r of res) gbps[r.task] = (batch * V * 4) / (r.medianUs * 1e-6) / 1e9;
}
applyMaskIsa("auto");

console.log("\nGB/s of logits covered (median):");
console.table(Object.entries(gbps).map(([task, g]) => ({ task, "GB/s": Math.round(g * 100) / 100 })));
console.log(`report: ${saveReport("mask-cpu", rows, { gbps, isa: applyMaskIsa() })}`);
