import { describe, expect, it } from "vitest";
import { DeviceError, InvalidArgumentError } from "../../lib/errors.js";
import { applyTokenBitmask, maskedArgmax, maskedSample } from "../../lib/mask/cpu.js";
import { cuda } from "../../lib/mask/cuda.js";
import { runtime } from "../../lib/runtime.js";
import { rng } from "../helpers/random.js";
import { type Dtype, randomBitmask, randomLogits } from "../mask/reference.js";

const available = cuda.available();

describe("cuda.available()", () => {
  it("agrees with runtime()", () => {
    const info = runtime();
    expect(available).toBe(info.cuda.compiled && info.cuda.deviceCount > 0);
  });
});

describe.skipIf(available)("without a usable device every call throws DeviceError", () => {
  const reason = /no usable CUDA device|no CUDA device present|has no CUDA kernels/;
  const calls: Array<[string, () => unknown]> = [
    ["deviceInfo", () => cuda.deviceInfo()],
    ["createStream", () => cuda.createStream()],
    ["allocateLogits", () => cuda.allocateLogits({ rows: 2, vocabSize: 128256 })],
    ["wrapLogits", () => cuda.wrapLogits(0x7f0000000000n, { rows: 1, vocabSize: 32000, dtype: "bfloat16" })],
    ["allocateBitmask", () => cuda.allocateBitmask(4, 32000)],
    ["allocatePinnedBitmask", () => cuda.allocatePinnedBitmask(4, 32000)],
  ];
  it.each(calls)("%s", (_name, call) => {
    expect(call).toThrow(DeviceError);
    expect(call).toThrow(reason);
  });

  it("checks the pointer type before anything else", () => {
    expect(() => cuda.wrapLogits(123 as never, { rows: 1, vocabSize: 10 })).toThrow(InvalidArgumentError);
  });
});

// ---- with a device: every kernel against the CPU implementation (its reference) -------------

interface GpuCase {
  name: string;
  rows: number;
  vocab: number;
  columns?: number;
  stride?: number;
  indices?: number[];
  compact?: boolean;
}

const gpuCases: GpuCase[] = [
  { name: "32000 x 1", rows: 1, vocab: 32000 },
  { name: "32001 x 7 (odd stride: element path)", rows: 7, vocab: 32001 },
  { name: "128256 x 64", rows: 64, vocab: 128256 },
  { name: "151669 in 151936 columns x 3", rows: 3, vocab: 151669, columns: 151936 },
  { name: "32000 in stride 32064 x 5, indices", rows: 5, vocab: 32000, stride: 32064, indices: [4, 1, 3] },
  { name: "32001 x 6, compact indices", rows: 6, vocab: 32001, indices: [5, 0], compact: true },
  { name: "128256 x 300 (many blocks per launch)", rows: 300, vocab: 128256 },
];

function maskRows(c: GpuCase): number {
  if (!c.indices) return c.rows;
  return c.compact ? c.indices.length : Math.max(...c.indices) + 1;
}

describe.skipIf(!available)("CUDA kernels equal the CPU implementation", () => {
  const dtypes: Dtype[] = ["float32", "bfloat16", "float16"];
  describe.each(dtypes)("%s", (dtype) => {
    it.each(gpuCases)("$name", (c) => {
      const columns = c.columns ?? c.vocab;
      const stride = c.stride ?? columns;
      const next = rng(c.rows * 1000 + c.vocab);
      const host = randomLogits(c.rows * stride, dtype, next);
      const mask = randomBitmask(maskRows(c), c.vocab, next, 0.4);
      const shape = { vocabSize: c.vocab, columns, stride, rows: c.rows, dtype } as const;
      const rowsOpt = c.indices ? { indices: c.indices, compactBitmask: c.compact ?? false } : {};

      const stream = cuda.createStream();
      const logits = cuda.allocateLogits({ rows: c.rows, vocabSize: c.vocab, columns, stride, dtype, stream });
      const bitmask = cuda.allocateBitmask(maskRows(c), c.vocab, { stream });
      const pinned = cuda.allocatePinnedBitmask(maskRows(c), c.vocab);
      try {
        pinned.array.set(mask);
        expect(bitmask.upload(pinned, { stream })).toBe(true);
        logits.upload(host);

        // Fused argmax and sampling read the unmasked logits.
        expect(Array.from(logits.argmax(bitmask, rowsOpt))).toEqual(Array.from(maskedArgmax(host, mask, { ...shape, ...rowsOpt })));
        const sampleOpts = { temperature: 0.8, topK: 40, topP: 0.9, seed: 1234n, ...rowsOpt };
        expect(Array.from(logits.sample(bitmask, sampleOpts))).toEqual(Array.from(maskedSample(host, mask, { ...shape, ...sampleOpts })));
        expect(Array.from(logits.sample(bitmask, { temperature: 1.3, seed: 9, ...rowsOpt }))).toEqual(
          Array.from(maskedSample(host, mask, { ...shape, temperature: 1.3, seed: 9, ...rowsOpt })),
        );

        // In-place masking, bit for bit.
        logits.applyBitmask(bitmask, rowsOpt);
        const expected = host.slice();
        applyTokenBitmask(expected, mask, { ...shape, ...rowsOpt });
        const got = logits.download();
        const span = (c.rows - 1) * stride + columns;
        expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(
          Buffer.from(expected.buffer, expected.byteOffset, span * expected.BYTES_PER_ELEMENT),
        )).toBe(true);

        // Argmax with no mask over the masked logits equals the fused masked argmax.
        expect(Array.from(logits.argmax(null))).toEqual(Array.from(maskedArgmax(expected, new Int32Array(c.rows * Math.ceil(c.vocab / 32)).fill(-1), shape)));
      } finally {
        pinned.free();
        bitmask.free();
        logits.free();
        stream.destroy();
      }
    });
  });

  it("wraps an external pointer with its own shape and stream", () => {
    const vocab = 32000;
    const owner = cuda.allocateLogits({ rows: 4, vocabSize: vocab, dtype: "float32" });
    const next = rng(77);
    const host = randomLogits(4 * vocab, "float32", next) as Float32Array;
    owner.upload(host);
    // A view of rows 1 and 3 as a 2-row batch with a doubled stride; columns default to the
    // stride, which would reach past the owner's last row, so the view names them.
    const view = cuda.wrapLogits(owner.pointer + BigInt(vocab * 4), { rows: 2, vocabSize: vocab, columns: vocab, stride: 2 * vocab });
    const mask = randomBitmask(2, vocab, next, 0.3);
    const bitmask = cuda.allocateBitmask(2, vocab);
    bitmask.upload(mask);
    view.applyBitmask(bitmask);
    const expected = host.slice();
    applyTokenBitmask(expected.subarray(vocab), mask, { vocabSize: vocab, columns: vocab, stride: 2 * vocab, rows: 2 });
    expect(owner.download()).toEqual(expected);
    expect(view.shape.owned).toBe(false);
    view.free();
    bitmask.free();
    owner.free();
  });

  it("rejects mismatched shapes with InvalidArgumentError", () => {
    const logits = cuda.allocateLogits({ rows: 2, vocabSize: 1000 });
    const other = cuda.allocateBitmask(2, 999);
    const small = cuda.allocateBitmask(1, 1000);
    expect(() => logits.applyBitmask(other)).toThrow(/the bitmask covers 999 tokens but these logits have vocabSize 1000/);
    expect(() => logits.applyBitmask(small)).toThrow(/bitmask must have at least 2\*32 = 64 int32 words/);
    expect(() => logits.argmax(small, { indices: [2] })).toThrow(/indices\[0\] = 2 is not a logits row/);
    expect(() => logits.upload(new Float32Array(5))).toThrow(/expected rows\*stride = 2000/);
    expect(() => cuda.wrapLogits(1n, { rows: 1, vocabSize: 10 })).toThrow(InvalidArgumentError);
    other.free();
    small.free();
    logits.free();
  });
});
