/**
 * Masking through refs on the CPU (docs/masking.md, "Resident masks"): applyTokenBitmask,
 * maskedArgmax and maskedSample with `refs` + `maskStore` (the bitmask argument holding only the
 * compact rows) equal the same calls on the dense rows the refs stand for — on random stores
 * with every dtype, shape and row convention, and on a real batch of the seed grammar — and bad
 * refs are refused with the expected sizes.
 */
import { describe, expect, it } from "vitest";
import { BatchMatcher } from "../../lib/engine/batch.js";
import { InvalidArgumentError } from "../../lib/errors.js";
import { applyTokenBitmask, maskedArgmax, maskedSample } from "../../lib/mask/cpu.js";
import { expandMaskRefs } from "../../lib/mask/refs.js";
import type { MaskShapeOptions, MaskStore } from "../../lib/mask/types.js";
import { midGenerationMatchers, seedSetup } from "../batch/fixtures.js";
import { rng } from "../helpers/random.js";
import { type Dtype, randomBitmask, randomLogits } from "./reference.js";

interface Case {
  name: string;
  vocab: number;
  columns?: number;
  stride?: number;
  rows: number;
  indices?: number[];
  compact?: boolean;
}

const CASES: Case[] = [
  { name: "32000 x 6", vocab: 32000, rows: 6 },
  { name: "32001 x 5 (partial last word)", vocab: 32001, rows: 5 },
  { name: "151669 tokens in 151936 columns x 3", vocab: 151669, columns: 151936, rows: 3 },
  { name: "100 tokens in 130 columns, stride 200 x 4", vocab: 100, columns: 130, stride: 200, rows: 4 },
  { name: "indices, refs per logits row", vocab: 32001, rows: 6, indices: [5, 0, 3] },
  { name: "indices, compact refs", vocab: 32001, rows: 6, indices: [4, 1], compact: true },
];

/** Refs for `n` rows over a random store: about a third of them name compact rows (~0, ~1, …). */
function randomRefs(n: number, storeRows: number, next: () => number): { refs: Int32Array; compactRows: number } {
  const refs = new Int32Array(n);
  let compactRows = 0;
  for (let r = 0; r < n; r++) refs[r] = next() < 0.35 ? ~compactRows++ : Math.floor(next() * storeRows);
  return { refs, compactRows };
}

function refRowsNeeded(c: Case): number {
  if (!c.indices) return c.rows;
  return c.compact ? c.indices.length : Math.max(...c.indices) + 1;
}

function sameBits(a: Float32Array | Uint16Array, b: Float32Array | Uint16Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

describe("CPU masking through refs equals masking with the dense rows", () => {
  const dtypes: Dtype[] = ["float32", "bfloat16", "float16"];
  describe.each(dtypes)("%s", (dtype) => {
    it.each(CASES)("$name", (c) => {
      const next = rng(c.vocab + 17 * c.rows + dtype.length);
      const columns = c.columns ?? c.vocab;
      const stride = c.stride ?? columns;
      const words = Math.ceil(c.vocab / 32);
      const storeRows = 5;
      const store: MaskStore = { count: storeRows, wordsPerMask: words, vocabSize: c.vocab, words: randomBitmask(storeRows, c.vocab, next, 0.3) };
      const { refs, compactRows } = randomRefs(refRowsNeeded(c), storeRows, next);
      const compact = randomBitmask(Math.max(compactRows, 1), c.vocab, next, 0.6);
      const dense = expandMaskRefs(refs, store, compact);
      const shape: MaskShapeOptions = {
        vocabSize: c.vocab, columns, stride, rows: c.rows, dtype,
        ...(c.indices ? { indices: c.indices, compactBitmask: c.compact ?? false } : {}),
      };
      const viaRefs = { ...shape, refs, maskStore: store };
      const logits = randomLogits((c.rows - 1) * stride + columns, dtype, next);

      expect(Array.from(maskedArgmax(logits, compact, viaRefs))).toEqual(Array.from(maskedArgmax(logits, dense, shape)));
      const sample = { temperature: 0.9, topK: 50, topP: 0.95, seed: 77n };
      expect(Array.from(maskedSample(logits, compact, { ...viaRefs, ...sample }))).toEqual(
        Array.from(maskedSample(logits, dense, { ...shape, ...sample })));
      const a = logits.slice();
      const b = logits.slice();
      applyTokenBitmask(a, compact, viaRefs);
      applyTokenBitmask(b, dense, shape);
      expect(sameBits(a, b)).toBe(true);
      expect(sameBits(a, logits)).toBe(false);  // something was masked
    });
  });

  it("a real batch: refs of the seed grammar mask as its dense bitmask does", () => {
    const setup = seedSetup();
    const { matchers } = midGenerationMatchers(setup, 24);
    const batch = new BatchMatcher(matchers);
    const vocabSize = batch.vocabSize;
    const words = batch.maskWords;
    const dense = new Int32Array(24 * words);
    batch.fillNextTokenBitmasks(dense);
    const refs = new Int32Array(24);
    const compact = new Int32Array(24 * words);
    batch.fillMaskRefs(refs, compact);
    const maskStore = setup.compiled.maskStore();
    const logits = randomLogits(24 * vocabSize, "bfloat16", rng(5)) as Uint16Array;
    expect(Array.from(maskedArgmax(logits, compact, { vocabSize, refs, maskStore }))).toEqual(Array.from(maskedArgmax(logits, dense, { vocabSize })));
    const a = logits.slice();
    const b = logits.slice();
    applyTokenBitmask(a, compact, { vocabSize, refs, maskStore });
    applyTokenBitmask(b, dense, { vocabSize });
    expect(sameBits(a, b)).toBe(true);
  });
});

describe("refs are checked before anything is touched", () => {
  const vocab = 64;
  const store: MaskStore = { count: 2, wordsPerMask: 2, vocabSize: vocab, words: new Int32Array(4).fill(-1) };
  const logits = new Float32Array(3 * vocab);
  const compact = new Int32Array(2 * 2);
  const rows: Array<[string, object, RegExp | string]> = [
    ["refs without a store", { refs: new Int32Array(3) }, "options.refs and options.maskStore go together"],
    ["a store without refs", { maskStore: store }, "got only options.maskStore"],
    ["refs that are not an Int32Array", { refs: [0, 0, 0], maskStore: store }, "options.refs must be an Int32Array"],
    ["a store that is not a mask store", { refs: new Int32Array(3), maskStore: new Int32Array(4) }, "options.maskStore must be a mask store"],
    ["too few refs", { refs: new Int32Array(2), maskStore: store }, "refs must have at least 3 entries (one per bitmask row the processed rows use), got 2"],
    ["a ref past the store", { refs: Int32Array.from([0, 2, 1]), maskStore: store }, "refs[1] = 2 is not a row of the mask store (expected 0 <= ref < 2"],
    ["a ref past the compact rows", { refs: Int32Array.from([0, ~2, 1]), maskStore: store }, "refs[1] = -3 names compact row 2 but the bitmask holds 2 compact rows of 2 words (4 words)"],
    ["a store of another vocabulary", { refs: new Int32Array(3), maskStore: { ...store, wordsPerMask: 3 } }, "options.maskStore has rows of 3 words but vocabSize 64 needs ceil(64/32) = 2"],
  ];
  it.each(rows)("%s", (_name, options, message) => {
    const before = logits.slice();
    expect(() => applyTokenBitmask(logits, compact, { vocabSize: vocab, ...options } as MaskShapeOptions)).toThrow(InvalidArgumentError);
    expect(() => applyTokenBitmask(logits, compact, { vocabSize: vocab, ...options } as MaskShapeOptions)).toThrow(message);
    expect(logits).toEqual(before);
  });

  it("checks only the refs the processed rows use", () => {
    const refs = Int32Array.from([0, 99, ~0]);
    expect(() => maskedArgmax(logits, compact, { vocabSize: vocab, refs, maskStore: store, indices: [0, 2] })).not.toThrow();
  });

  it("expandMaskRefs refuses refs outside the store or the compact rows", () => {
    expect(() => expandMaskRefs(Int32Array.from([2]), store, compact)).toThrow("is not a row of the store");
    expect(() => expandMaskRefs(Int32Array.from([~5]), store, compact)).toThrow("names compact row 5, but compact holds 2 rows");
    expect(() => expandMaskRefs(Int32Array.from([0]), store, compact, new Int32Array(1))).toThrow("out must have at least 1*2 = 2");
  });

  it("the mask store of a compiled grammar covers its vocabulary", () => {
    const setup = seedSetup();
    const s = setup.compiled.maskStore();
    expect(s.vocabSize).toBe(setup.compiled.vocabSize);
    expect(s.wordsPerMask).toBe(Math.ceil(s.vocabSize / 32));
    expect(s.words.length).toBe(s.count * s.wordsPerMask);
    // A fresh copy each call: writing into one leaves the grammar's rows alone.
    s.words.fill(0);
    expect(setup.compiled.maskStore().words.some((w) => w !== 0)).toBe(true);
    // Rows are distinct.
    const seen = new Set<string>();
    const again = setup.compiled.maskStore();
    for (let i = 0; i < again.count; i++) seen.add(Buffer.from(again.words.buffer, i * again.wordsPerMask * 4, again.wordsPerMask * 4).toString("base64"));
    expect(seen.size).toBe(again.count);
  });
});
