import { describe, expect, it } from "vitest";
import { GrammarBuilder, lit } from "../../lib/compile/ir.js";
import { BatchMatcher } from "../../lib/engine/batch.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { DeviceError, InvalidArgumentError } from "../../lib/errors.js";
import { applyTokenBitmask, maskedArgmax, maskedSample } from "../../lib/mask/cpu.js";
import { cuda } from "../../lib/mask/cuda.js";
import { runtime } from "../../lib/runtime.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { midGenerationMatchers, nestedBracketsGrammar, seedSetup } from "../batch/fixtures.js";
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

  it("uploading a grammar's masks", () => {
    const vocab = TokenizerInfo.fromTokens(["a", "b", "</s>"], { vocabType: "raw", specialTokens: ["</s>"] });
    const b = new GrammarBuilder();
    b.define("root", lit("ab"));
    const compiled = compileGrammar(vocab, b.build("root"));
    expect(() => compiled.uploadMasks()).toThrow(DeviceError);
    expect(() => compiled.uploadMasks(0, { stream: 0n })).toThrow(reason);
    expect(() => compiled.uploadMasks(-1)).toThrow(InvalidArgumentError);
    // The host side needs no device.
    expect(compiled.maskStore().count).toBeGreaterThan(0);
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

        // The candidate kernel for large batches (bench/gpu only) masks the same bits.
        logits.upload(host);
        logits.benchmark("apply-waves", bitmask, 1, rowsOpt);
        const waves = logits.download();
        expect(Buffer.from(waves.buffer, waves.byteOffset, waves.byteLength).equals(
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

  it("resident masks: kernels reading refs, the uploaded store and compact rows equal the CPU", () => {
    // Seed-grammar rows (stored refs), rows of another grammar and a terminated row (compact
    // rows, and the terminated row's stored ref), against the CPU reference through the same refs.
    const setup = seedSetup();
    const { matchers } = midGenerationMatchers(setup, 40);
    const other = compileGrammar(setup.vocab, nestedBracketsGrammar());
    const ended = new GrammarMatcher(setup.compiled);
    for (const id of setup.outputs[1]!) expect(ended.acceptToken(id)).toBe(true);
    const stop = setup.vocab.data.stopTokenIds[0]!;
    expect(ended.acceptToken(stop)).toBe(true);
    const all = [...matchers, new GrammarMatcher(other), ended, new GrammarMatcher(other)];
    const rows = all.length;
    const batch = new BatchMatcher(all);
    const vocab = batch.vocabSize;
    const refs = new Int32Array(rows);
    const pinned = cuda.allocatePinnedBitmask(rows, vocab);
    const { compactRows, errors } = batch.fillMaskRefs(refs, pinned.array, { grammar: setup.compiled });
    expect(errors).toEqual([]);
    expect(compactRows).toBeGreaterThanOrEqual(2);
    const hostStore = setup.compiled.maskStore();
    const stream = cuda.createStream();
    const store = setup.compiled.uploadMasks(0, { stream });
    expect(store.bytes).toBe(hostStore.words.byteLength);
    expect(setup.compiled.uploadMasks(0).pointer).toBe(store.pointer);  // once per device
    const compact = cuda.allocateBitmask(rows, vocab, { stream });
    compact.upload(pinned, { stream, rows: compactRows });
    const hostCompact = pinned.array.slice(0, compactRows * batch.maskWords);
    for (const dtype of ["float32", "bfloat16", "float16"] as Dtype[]) {
      const selections: Array<{ indices?: number[]; compactBitmask?: boolean }> = [
        {}, { indices: [rows - 1, 0, rows - 3, 7] }, { indices: [rows - 2, 5], compactBitmask: true },
      ];
      for (const rowsOpt of selections) {
        // With compactBitmask, ref k belongs to indices[k]; otherwise refs follow the logits rows.
        const refsFor = rowsOpt.compactBitmask ? Int32Array.from(rowsOpt.indices!.map((r) => refs[r]!)) : refs;
        const host = randomLogits(rows * vocab, dtype, rng(rows + dtype.length));
        const shape = { vocabSize: vocab, dtype, ...rowsOpt };
        const cpu = { ...shape, refs: refsFor, maskStore: hostStore };
        const gpu = { ...rowsOpt, refs: refsFor, maskStore: store };
        const logits = cuda.allocateLogits({ rows, vocabSize: vocab, dtype, stream });
        try {
          logits.upload(host);
          expect(Array.from(logits.argmax(compact, gpu))).toEqual(Array.from(maskedArgmax(host, hostCompact, cpu)));
          const sample = { temperature: 0.7, topK: 20, topP: 0.9, seed: 99n };
          expect(Array.from(logits.sample(compact, { ...gpu, ...sample }))).toEqual(Array.from(maskedSample(host, hostCompact, { ...cpu, ...sample })));
          logits.applyBitmask(compact, gpu);
          const expected = host.slice();
          applyTokenBitmask(expected, hostCompact, cpu);
          const got = logits.download();
          expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(Buffer.from(expected.buffer))).toBe(true);
        } finally {
          logits.free();
        }
      }
    }
    const narrow = cuda.allocateLogits({ rows, vocabSize: vocab - 1 });
    expect(() => narrow.applyBitmask(compact, { refs, maskStore: store })).toThrow(/the bitmask covers/);
    narrow.free();
    const logits = cuda.allocateLogits({ rows, vocabSize: vocab });
    expect(() => logits.applyBitmask(compact, { refs })).toThrow(/options.refs and options.maskStore go together/);
    expect(() => logits.applyBitmask(compact, { refs, maskStore: hostStore as never })).toThrow(/must be a DeviceMaskStore/);
    expect(() => logits.applyBitmask(compact, { refs: Int32Array.from(refs, (r) => (r < 0 ? ~rows : r)), maskStore: store }))
      .toThrow(/names compact row/);
    logits.free();
    store.free();
    expect(store.bytes).toBe(0);
    expect(setup.compiled.uploadMasks(0).bytes).toBe(hostStore.words.byteLength);  // uploaded again
    compact.free();
    pinned.free();
    stream.destroy();
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
