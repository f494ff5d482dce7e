import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../lib/errors.js";
import { maskedArgmax, maskedSample } from "../../lib/mask/cpu.js";
import { allocateTokenBitmask, bitmaskWords } from "../../lib/mask/types.js";
import { rng } from "../helpers/random.js";
import { type Dtype, randomBitmask, randomLogits, referenceArgmax, type RefShape } from "./reference.js";
import { referenceSample, type RefSample } from "./sample-reference.js";

const shapes: Array<{ name: string; shape: RefShape }> = [
  { name: "32001 x 3", shape: { vocab: 32001, columns: 32001, stride: 32001, rows: 3 } },
  { name: "151669 in 151936 columns x 2", shape: { vocab: 151669, columns: 151936, stride: 151936, rows: 2 } },
  { name: "1000 in stride 1100, indices", shape: { vocab: 1000, columns: 1000, stride: 1100, rows: 6, indices: [5, 0, 3] } },
  { name: "1000, compact indices", shape: { vocab: 1000, columns: 1000, stride: 1000, rows: 4, indices: [2, 3], compact: true } },
];
const dtypes: Dtype[] = ["float32", "bfloat16", "float16"];

function maskRows(s: RefShape): number {
  if (!s.indices) return s.rows;
  return s.compact ? s.indices.length : Math.max(...s.indices) + 1;
}

function options(s: RefShape, dtype: Dtype) {
  return {
    vocabSize: s.vocab,
    columns: s.columns,
    stride: s.stride,
    rows: s.rows,
    dtype,
    ...(s.indices ? { indices: s.indices, compactBitmask: s.compact ?? false } : {}),
  };
}

describe.each(dtypes)("maskedArgmax (%s)", (dtype) => {
  it.each(shapes)("$name equals the reference", ({ shape }) => {
    const next = rng(shape.vocab + 7);
    const logits = randomLogits((shape.rows - 1) * shape.stride + shape.columns, dtype, next);
    // Sparse masks (a few allowed tokens) and dense ones, so both paths of the scan matter.
    for (const density of [0.001, 0.5]) {
      const bitmask = randomBitmask(maskRows(shape), shape.vocab, next, density);
      const before = logits.slice();
      const got = maskedArgmax(logits, bitmask, options(shape, dtype));
      expect(Array.from(got)).toEqual(referenceArgmax(logits, dtype, bitmask, shape));
      expect(logits).toEqual(before);
    }
  });
});

describe("maskedArgmax edge cases", () => {
  const table: Array<[string, number[], number[], number]> = [
    ["ties pick the lowest id", [1, 3, 3, 2], [0, 1, 2, 3], 1],
    ["disallowed maximum is ignored", [9, 3, 1, 2], [1, 2, 3], 1],
    ["NaN ranks below numbers", [Number.NaN, -5, Number.NaN, -7], [0, 1, 2, 3], 1],
    ["-Infinity still counts as allowed", [-Infinity, -Infinity, 5, 1], [0, 1], 0],
    ["all NaN: the first allowed", [Number.NaN, Number.NaN, Number.NaN, 1], [1, 2], 1],
    ["nothing allowed → -1", [1, 2, 3, 4], [], -1],
    ["+Infinity wins", [1, Infinity, 3, Infinity], [0, 1, 2, 3], 1],
    ["-0 equals +0: the lower id", [-1, -0, 0, -2], [0, 1, 2, 3], 1],
    ["+0 equals -0: the lower id", [-1, 0, -0, -2], [0, 1, 2, 3], 1],
  ];
  it.each(table)("%s", (_name, values, allowed, want) => {
    const bitmask = new Int32Array(1);
    for (const t of allowed) bitmask[0]! |= 1 << t;
    expect(maskedArgmax(Float32Array.from(values), bitmask, { vocabSize: 4 })[0]).toBe(want);
  });
});

describe.each(dtypes)("maskedSample (%s) equals the independent reference", (dtype) => {
  const paramSets: Array<[string, (k: number) => RefSample]> = [
    ["temperature 1", (k) => ({ temperature: 1, topK: 0, topP: 1, seed: BigInt(11 + k) })],
    ["temperature 0.3, top-k 40", (k) => ({ temperature: 0.3, topK: 40, topP: 1, seed: BigInt(5 * k + 1) })],
    ["top-p 0.9", (k) => ({ temperature: 0.8, topK: 0, topP: 0.9, seed: 123456789n + BigInt(k) })],
    ["top-k 50 and top-p 0.5", (k) => ({ temperature: 1.7, topK: 50, topP: 0.5, seed: 2n ** 63n + BigInt(k) })],
    ["greedy", () => ({ temperature: 0, topK: 0, topP: 1, seed: 0n })],
  ];
  for (const { name, shape } of shapes.slice(0, dtype === "float32" ? 4 : 1).concat(dtype === "float32" ? [] : [shapes[2]!])) {
    it.each(paramSets)(`${name}, %s`, (_p, params) => {
      const next = rng(shape.rows * 101 + shape.vocab);
      const logits = randomLogits((shape.rows - 1) * shape.stride + shape.columns, dtype, next);
      const bitmask = randomBitmask(maskRows(shape), shape.vocab, next, 0.3);
      const work = shape.indices ? shape.indices.length : shape.rows;
      const ps = Array.from({ length: work }, (_, k) => params(k));
      const got = maskedSample(logits, bitmask, {
        ...options(shape, dtype),
        temperature: Float32Array.from(ps.map((p) => p.temperature)),
        topK: Int32Array.from(ps.map((p) => p.topK)),
        topP: Float32Array.from(ps.map((p) => p.topP)),
        seed: BigUint64Array.from(ps.map((p) => p.seed)),
      });
      expect(Array.from(got)).toEqual(referenceSample(logits, dtype, bitmask, shape, params));
    });
  }
});

describe("maskedSample semantics", () => {
  it("follows the softmax of the allowed logits (20000 seeds)", () => {
    // Allowed: tokens 3, 10, 40 with logits 0, ln 2, ln 4 → probabilities 1/7, 2/7, 4/7.
    const vocab = 64;
    const logits = new Float32Array(vocab).fill(50); // disallowed tokens are far more likely if leaked
    logits[3] = 0;
    logits[10] = Math.log(2);
    logits[40] = Math.log(4);
    const bitmask = new Int32Array(bitmaskWords(vocab));
    for (const t of [3, 10, 40]) bitmask[t >> 5]! |= 1 << (t & 31);
    const counts = new Map<number, number>();
    const n = 20000;
    const batchLogits = new Float32Array(n * vocab);
    for (let r = 0; r < n; r++) batchLogits.set(logits, r * vocab);
    const batchMask = new Int32Array(n * bitmask.length);
    for (let r = 0; r < n; r++) batchMask.set(bitmask, r * bitmask.length);
    const got = maskedSample(batchLogits, batchMask, { vocabSize: vocab, seed: 7 });
    for (const t of got) counts.set(t, (counts.get(t) ?? 0) + 1);
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual([3, 10, 40]);
    expect(counts.get(3)! / n).toBeCloseTo(1 / 7, 1);
    expect(counts.get(10)! / n).toBeCloseTo(2 / 7, 1);
    expect(counts.get(40)! / n).toBeCloseTo(4 / 7, 1);
    // Temperature 0.25 sharpens: p ∝ (1, 16, 256).
    const sharp = maskedSample(batchLogits, batchMask, { vocabSize: vocab, seed: 7, temperature: 0.25 });
    expect(sharp.filter((t) => t === 40).length / n).toBeCloseTo(256 / 273, 1);
  });

  it("top-k 1 and temperature 0 give the argmax; top-p keeps the head", () => {
    const next = rng(99);
    const rows = 8;
    const logits = randomLogits(rows * 5000, "float32", next) as Float32Array;
    const bitmask = randomBitmask(rows, 5000, next, 0.2);
    const argmax = Array.from(maskedArgmax(logits, bitmask, { vocabSize: 5000 }));
    expect(Array.from(maskedSample(logits, bitmask, { vocabSize: 5000, topK: 1, seed: 3 }))).toEqual(argmax);
    expect(Array.from(maskedSample(logits, bitmask, { vocabSize: 5000, temperature: 0, seed: 3 }))).toEqual(argmax);
    expect(Array.from(maskedSample(logits, bitmask, { vocabSize: 5000, topP: 1e-9, seed: 3 }))).toEqual(argmax);
  });

  it("is deterministic per seed and per row, independent of the other rows", () => {
    const next = rng(5);
    const logits = randomLogits(4 * 3000, "float32", next) as Float32Array;
    const bitmask = randomBitmask(4, 3000, next, 0.5);
    const all = maskedSample(logits, bitmask, { vocabSize: 3000, seed: 42n });
    expect(maskedSample(logits, bitmask, { vocabSize: 3000, seed: 42n })).toEqual(all);
    const only2 = maskedSample(logits, bitmask, { vocabSize: 3000, seed: 42n, indices: [2] });
    expect(only2[0]).toBe(all[2]);
    const other = maskedSample(logits, bitmask, { vocabSize: 3000, seed: 43n });
    expect(other).not.toEqual(all);
  });

  it("returns -1 for rows that allow nothing and never a disallowed token", () => {
    const logits = new Float32Array(3 * 100).fill(1);
    const bitmask = allocateTokenBitmask(3, 100);
    bitmask.fill(0, 4, 8); // row 1 allows nothing
    bitmask.fill(0, 8, 12);
    bitmask[8] = 1 << 7; // row 2 allows token 7 only
    expect(Array.from(maskedSample(logits, bitmask, { vocabSize: 100, seed: 1 })).slice(1)).toEqual([-1, 7]);
    expect(Array.from(maskedArgmax(logits, bitmask, { vocabSize: 100 }))).toEqual([0, -1, 7]);
  });

  const logits = new Float32Array(64);
  const bitmask = new Int32Array(2).fill(-1);
  const bad: Array<[string, object, RegExp]> = [
    ["negative temperature", { temperature: -1 }, /row 0: temperature must be a finite number >= 0/],
    ["NaN temperature", { temperature: Number.NaN }, /temperature must be a finite number >= 0/],
    ["top-p 0", { topP: 0 }, /topP must be in \(0, 1\]/],
    ["top-p above 1", { topP: 1.5 }, /topP must be in \(0, 1\]/],
    ["negative top-k", { topK: -2 }, /topK must be an integer >= 0/],
    ["fractional top-k", { topK: 2.5 }, /topK must be an integer >= 0/],
    ["negative seed", { seed: -1 }, /seed must be a non-negative safe integer or a bigint/],
    ["per-row array of the wrong length", { temperature: new Float32Array(2) }, /temperature must be a number or a Float32Array of 1 entries \(one per row\), got a typed array of 2/],
    ["per-row array of the wrong type", { topK: new Float32Array(1) }, /topK must be a number or a Int32Array of 1 entries/],
    ["bad per-row value", { topP: Float32Array.of(2) }, /row 0: topP must be in \(0, 1\]/],
  ];
  it.each(bad)("%s → InvalidArgumentError", (_n, extra, message) => {
    const call = () => maskedSample(logits, bitmask, { vocabSize: 64, ...extra });
    expect(call).toThrow(InvalidArgumentError);
    expect(call).toThrow(message);
  });
});

describe("16-bit logits decode exactly (subnormals, infinities, signed zeros)", () => {
  // Every row holds two raw 16-bit patterns; the argmax must agree with the TypeScript decoding.
  it.each(["float16", "bfloat16"] as const)("%s: 20000 random pairs, a third of them subnormal, NaNs and signed zeros", (dtype) => {
    const next = rng(dtype === "float16" ? 16 : 17);
    const rows = 20000;
    const logits = new Uint16Array(rows * 2);
    const exponentMask = dtype === "float16" ? 0x7c00 : 0x7f80;
    for (let i = 0; i < logits.length; i++) {
      let h = Math.floor(next() * 65536);
      if (next() < 0.33) h &= ~exponentMask; // a subnormal (or a zero)
      logits[i] = h;
    }
    // Some rows compare -0 with +0 (equal: the lower id wins) and NaN with numbers.
    for (let r = 0; r < 200; r++) {
      logits[2 * r] = r % 2 ? 0x8000 : 0x0000;
      logits[2 * r + 1] = r % 2 ? 0x0000 : 0x8000;
    }
    logits[401] = exponentMask | 1; // NaN after a number
    const bitmask = new Int32Array(rows).fill(3);
    const got = maskedArgmax(logits, bitmask, { vocabSize: 2, dtype });
    const expected = referenceArgmax(logits, dtype, bitmask, { vocab: 2, columns: 2, stride: 2, rows });
    expect(Array.from(got)).toEqual(expected);
  });
});
