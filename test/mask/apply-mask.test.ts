import { afterAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../lib/errors.js";
import { applyMaskIsa, applyTokenBitmask } from "../../lib/mask/cpu.js";
import { allocateTokenBitmask, bitmaskWords } from "../../lib/mask/types.js";
import { rng } from "../helpers/random.js";
import { type Dtype, randomBitmask, randomLogits, referenceApply, type RefShape } from "./reference.js";

const best = applyMaskIsa();
const isas = (["scalar", "avx2", "avx512"] as const).filter((isa) => {
  try {
    applyMaskIsa(isa);
    return true;
  } catch {
    return false;
  } finally {
    applyMaskIsa("auto");
  }
});

afterAll(() => applyMaskIsa("auto"));

interface Case {
  name: string;
  shape: RefShape;
}

// Odd vocabulary sizes, padding columns, strides with gaps, and row indices in both conventions.
const cases: Case[] = [
  { name: "32000 x 3", shape: { vocab: 32000, columns: 32000, stride: 32000, rows: 3 } },
  { name: "32001 x 2 (partial last word)", shape: { vocab: 32001, columns: 32001, stride: 32001, rows: 2 } },
  { name: "128256 x 2", shape: { vocab: 128256, columns: 128256, stride: 128256, rows: 2 } },
  { name: "151936 x 1", shape: { vocab: 151936, columns: 151936, stride: 151936, rows: 1 } },
  { name: "151669 tokens in 151936 columns (padding)", shape: { vocab: 151669, columns: 151936, stride: 151936, rows: 2 } },
  { name: "32001 in stride 32064 (gap untouched)", shape: { vocab: 32001, columns: 32001, stride: 32064, rows: 3 } },
  { name: "100 tokens in 130 columns, stride 200", shape: { vocab: 100, columns: 130, stride: 200, rows: 4 } },
  { name: "vocab 1", shape: { vocab: 1, columns: 1, stride: 1, rows: 5 } },
  { name: "indices, same-row bitmask", shape: { vocab: 32001, columns: 32001, stride: 32001, rows: 5, indices: [4, 0, 2] } },
  { name: "indices, compact bitmask", shape: { vocab: 32001, columns: 32001, stride: 32001, rows: 5, indices: [3, 1], compact: true } },
  { name: "indices with a duplicate", shape: { vocab: 1000, columns: 1024, stride: 1024, rows: 3, indices: [1, 1] } },
  { name: "empty indices", shape: { vocab: 64, columns: 64, stride: 64, rows: 2, indices: [] } },
];

function maskRowsNeeded(s: RefShape): number {
  if (!s.indices) return s.rows;
  if (s.compact) return s.indices.length;
  return s.indices.length === 0 ? 0 : Math.max(...s.indices) + 1;
}

describe.each(isas)("applyTokenBitmask (%s)", (isa) => {
  const dtypes: Dtype[] = ["float32", "bfloat16", "float16"];
  describe.each(dtypes)("%s", (dtype) => {
    it.each(cases)("$name equals the reference loop", ({ shape }) => {
      applyMaskIsa(isa);
      const next = rng(shape.vocab * 31 + shape.rows);
      const length = (shape.rows - 1) * shape.stride + shape.columns;
      const logits = randomLogits(length, dtype, next);
      const expected = logits.slice();
      const bitmask = randomBitmask(Math.max(1, maskRowsNeeded(shape)), shape.vocab, next);
      referenceApply(expected, dtype, bitmask, shape);
      applyTokenBitmask(logits, bitmask, {
        vocabSize: shape.vocab,
        columns: shape.columns,
        stride: shape.stride,
        rows: shape.rows,
        ...(shape.indices ? { indices: Int32Array.from(shape.indices), compactBitmask: shape.compact ?? false } : {}),
        dtype,
      });
      // Compare raw bits: -0, NaN payloads and -inf must all be exactly what the reference wrote.
      const got = new Uint8Array(logits.buffer, logits.byteOffset, logits.byteLength);
      const want = new Uint8Array(expected.buffer, expected.byteOffset, expected.byteLength);
      let firstDiff = -1;
      for (let i = 0; i < got.length; i++) if (got[i] !== want[i]) { firstDiff = i; break; }
      expect(firstDiff).toBe(-1);
    });
  });
});

describe("applyTokenBitmask options and errors", () => {
  it("uses the best instruction set by default", () => {
    expect(["avx512", "avx2", "scalar"]).toContain(best);
    expect(isas).toContain(best);
  });

  it("infers rows from the logits length and stride, and accepts plain index arrays", () => {
    const vocab = 70;
    const logits = new Float32Array(3 * 80).fill(1);
    const bitmask = allocateTokenBitmask(3, vocab);
    bitmask[bitmaskWords(vocab) * 1] = 0b101; // row 1: tokens 0 and 2 of the first word
    bitmask[bitmaskWords(vocab) * 1 + 1] = 0;
    applyTokenBitmask(logits, bitmask, { vocabSize: vocab, columns: 80, indices: [1] });
    expect(Array.from(logits.subarray(0, 80)).every((x) => x === 1)).toBe(true);
    expect(Array.from(logits.subarray(80, 84))).toEqual([1, -Infinity, 1, -Infinity]);
    expect(logits[80 + 64]).toBe(1); // third word: all allowed
    expect(Array.from(logits.subarray(80 + 70, 160)).every((x) => x === -Infinity)).toBe(true);
    expect(Array.from(logits.subarray(160)).every((x) => x === 1)).toBe(true);
  });

  it("defaults a Uint16Array to bfloat16", () => {
    const logits = new Uint16Array(32).fill(0x3f80); // 1.0 in bfloat16
    const bitmask = new Int32Array([0x0000ffff]);
    applyTokenBitmask(logits, bitmask, { vocabSize: 32 });
    expect(logits[0]).toBe(0x3f80);
    expect(logits[16]).toBe(0xff80);
  });

  const logits = new Float32Array(2 * 100);
  const ok = new Int32Array(2 * 4);
  const bad: Array<[string, () => void, RegExp]> = [
    ["missing options", () => applyTokenBitmask(logits, ok, undefined as never), /options must be an object/],
    ["missing vocabSize", () => applyTokenBitmask(logits, ok, {} as never), /vocabSize is required/],
    ["zero vocabSize", () => applyTokenBitmask(logits, ok, { vocabSize: 0 }), /vocabSize must be a positive integer/],
    ["fractional stride", () => applyTokenBitmask(logits, ok, { vocabSize: 100, stride: 1.5 }), /options\.stride must be a non-negative integer, got 1\.5/],
    ["stride not dividing length", () => applyTokenBitmask(logits, ok, { vocabSize: 100, stride: 150 }), /logits has 200 values, not a positive multiple of the row stride 150/],
    ["columns below vocab", () => applyTokenBitmask(logits, ok, { vocabSize: 100, columns: 90 }), /columns \(90\) must be at least vocabSize \(100\)/],
    ["stride below columns", () => applyTokenBitmask(logits, ok, { vocabSize: 100, columns: 100, stride: 99 }), /stride \(99\) must be at least columns \(100\)/],
    ["too many rows", () => applyTokenBitmask(logits, ok, { vocabSize: 100, rows: 3 }), /logits must hold at least \(rows-1\)\*stride\+columns = \(3-1\)\*100\+100 = 300 values, got 200/],
    ["short bitmask", () => applyTokenBitmask(logits, new Int32Array(7), { vocabSize: 100 }), /bitmask must have at least 2\*4 = 8 int32 words \(2 rows of ceil\(100\/32\) = 4 words\), got 7/],
    ["short bitmask for an index", () => applyTokenBitmask(new Float32Array(300), ok, { vocabSize: 100, indices: [2] }), /bitmask must have at least 3\*4 = 12 int32 words/],
    ["index out of range", () => applyTokenBitmask(logits, ok, { vocabSize: 100, indices: [0, 2] }), /indices\[1\] = 2 is not a logits row \(expected 0 <= row < 2\)/],
    ["negative index", () => applyTokenBitmask(logits, ok, { vocabSize: 100, indices: Int32Array.of(-1) }), /indices\[0\] = -1 is not a logits row/],
    ["non-integer index", () => applyTokenBitmask(logits, ok, { vocabSize: 100, indices: [0.5] }), /indices\[0\] must be a non-negative integer/],
    ["wrong logits type", () => applyTokenBitmask(new Float64Array(200) as never, ok, { vocabSize: 100 }), /logits must be a Float32Array \(float32\) or a Uint16Array/],
    ["wrong bitmask type", () => applyTokenBitmask(logits, new Uint8Array(8) as never, { vocabSize: 100 }), /bitmask must be an Int32Array/],
    ["dtype mismatch", () => applyTokenBitmask(logits, ok, { vocabSize: 100, dtype: "bfloat16" }), /dtype is "bfloat16" but the logits array has 4-byte elements/],
    ["unknown dtype", () => applyTokenBitmask(logits, ok, { vocabSize: 100, dtype: "float64" as never }), /dtype must be "float32", "float16" or "bfloat16"/],
    ["bad compactBitmask", () => applyTokenBitmask(logits, ok, { vocabSize: 100, compactBitmask: 1 as never }), /compactBitmask must be a boolean/],
    ["unknown isa", () => applyMaskIsa("sse9" as never), /not available on this CPU/],
  ];
  it.each(bad)("%s → InvalidArgumentError naming the expected size", (_name, call, message) => {
    const before = logits.slice();
    expect(call).toThrow(InvalidArgumentError);
    expect(call).toThrow(message);
    expect(logits).toEqual(before); // a failed call writes nothing
  });
});
