/**
 * Plain reference loops for the mask tests: one element at a time, written apart from the
 * native code, straight from the layout in DESIGN.md.
 */
import { fromBFloat16Bits, fromFloat16Bits, toHalfBits } from "../../lib/mask/dtype.js";

export type Dtype = "float32" | "bfloat16" | "float16";

export const NEG_INF_BITS = { bfloat16: 0xff80, float16: 0xfc00 } as const;

export function bitAllowed(bitmask: Int32Array, maskRow: number, words: number, vocab: number, i: number): boolean {
  if (i >= vocab) return false;
  return ((bitmask[maskRow * words + (i >> 5)]! >>> (i & 31)) & 1) === 1;
}

export interface RefShape {
  vocab: number;
  columns: number;
  stride: number;
  rows: number;
  indices?: number[];
  compact?: boolean;
}

/** Which (logits row, bitmask row) pairs are processed. */
export function workRows(s: RefShape): Array<[number, number]> {
  if (!s.indices) return Array.from({ length: s.rows }, (_, r) => [r, r] as [number, number]);
  return s.indices.map((r, k) => [r, s.compact ? k : r] as [number, number]);
}

/** Reference masking: disallowed → -inf bits, everything else untouched. */
export function referenceApply(logits: Float32Array | Uint16Array, dtype: Dtype, bitmask: Int32Array, s: RefShape): void {
  const words = Math.ceil(s.vocab / 32);
  for (const [row, maskRow] of workRows(s)) {
    for (let i = 0; i < s.columns; i++) {
      if (bitAllowed(bitmask, maskRow, words, s.vocab, i)) continue;
      if (dtype === "float32") logits[row * s.stride + i] = -Infinity;
      else logits[row * s.stride + i] = NEG_INF_BITS[dtype];
    }
  }
}

export function valueAt(logits: Float32Array | Uint16Array, dtype: Dtype, i: number): number {
  if (dtype === "float32") return logits[i]!;
  return dtype === "bfloat16" ? fromBFloat16Bits(logits[i]!) : fromFloat16Bits(logits[i]!);
}

/** Reference argmax: highest allowed value, lowest id among ties, NaN below every number, -1 if none. */
export function referenceArgmax(logits: Float32Array | Uint16Array, dtype: Dtype, bitmask: Int32Array, s: RefShape): number[] {
  const words = Math.ceil(s.vocab / 32);
  return workRows(s).map(([row, maskRow]) => {
    let best = -1;
    let bestValue = 0;
    for (let i = 0; i < s.vocab; i++) {
      if (!bitAllowed(bitmask, maskRow, words, s.vocab, i)) continue;
      const v = valueAt(logits, dtype, row * s.stride + i);
      if (best < 0 || (!Number.isNaN(v) && (Number.isNaN(bestValue) || v > bestValue))) {
        best = i;
        bestValue = v;
      }
    }
    return best;
  });
}

/** Random logits of a dtype: normal-ish values with a few exact ties. */
export function randomLogits(n: number, dtype: Dtype, next: () => number): Float32Array | Uint16Array {
  const values = new Float32Array(n);
  for (let i = 0; i < n; i++) values[i] = (next() + next() + next() - 1.5) * 8;
  return dtype === "float32" ? values : toHalfBits(values, dtype);
}

/**
 * A random bitmask mixing the word kinds the fast paths care about: all-allowed words,
 * all-disallowed words, and mixed words of varying density.
 */
export function randomBitmask(rows: number, vocab: number, next: () => number, density = 0.5): Int32Array {
  const words = Math.ceil(vocab / 32);
  const out = new Int32Array(rows * words);
  for (let w = 0; w < out.length; w++) {
    const kind = next();
    if (kind < 0.25) out[w] = -1;
    else if (kind < 0.5) out[w] = 0;
    else {
      let m = 0;
      for (let b = 0; b < 32; b++) if (next() < density) m |= 1 << b;
      out[w] = m;
    }
  }
  return out;
}
