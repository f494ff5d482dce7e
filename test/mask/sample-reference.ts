/**
 * An independent TypeScript model of masked sampling, written from the definition in
 * docs/masking.md rather than from the native code: sorting instead of radix selection, JS
 * doubles rounded to float32 (Math.fround) for each float operation, BigInt for the 64-bit
 * draw. The native CPU sampler (and the CUDA kernel) must pick exactly the same token.
 */
import { type Dtype, valueAt, workRows, type RefShape, bitAllowed } from "./reference.js";

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const fr = Math.fround;

export function orderedKey(x: number): number {
  f32[0] = x === 0 ? 0 : x; // -0 is the number 0
  const u = u32[0]!;
  if ((u & 0x7fffffff) > 0x7f800000) return 0;
  return u & 0x80000000 ? ~u >>> 0 : (u | 0x80000000) >>> 0;
}

function exp2NonPositive(t: number): number {
  if (!(t > -126)) return 0;
  if (t >= 0) return 1;
  const n = Math.floor(t);
  const f = fr(t - n);
  let p = fr(1.876232913e-3);
  for (const c of [8.992584422e-3, 5.582360551e-2, 2.401545346e-1, 6.931529641e-1, 9.999999404e-1]) {
    p = fr(fr(p * f) + fr(c));
  }
  return fr(p * 2 ** n);
}

function weight(x: number, max: number, invT: number): number {
  const z = fr(fr(fr(x - max) * invT) * fr(1.44269504));
  return Math.trunc(fr(exp2NonPositive(z) * 4294967296));
}

const M64 = (1n << 64n) - 1n;
function mix64(z: bigint): bigint {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}

export function rowDraw(seed: bigint, row: number): bigint {
  return mix64((seed + 0x9e3779b97f4a7c15n * BigInt(row + 1)) & M64);
}

export interface RefSample {
  temperature: number;
  topK: number;
  topP: number;
  seed: bigint;
}

export function referenceSampleRow(
  logits: Float32Array | Uint16Array,
  dtype: Dtype,
  bitmask: Int32Array,
  s: RefShape,
  row: number,
  maskRow: number,
  p: RefSample,
): number {
  const words = Math.ceil(s.vocab / 32);
  const ids: number[] = [];
  for (let i = 0; i < s.vocab; i++) if (bitAllowed(bitmask, maskRow, words, s.vocab, i)) ids.push(i);
  if (ids.length === 0) return -1;
  const x = (i: number) => fr(valueAt(logits, dtype, row * s.stride + i));
  let argmax = ids[0]!;
  for (const i of ids) if (orderedKey(x(i)) > orderedKey(x(argmax))) argmax = i;
  if (p.temperature === 0) return argmax;
  const maxKey = orderedKey(x(argmax));
  const max = x(argmax);
  if (maxKey === 0 || !Number.isFinite(max)) return argmax;

  let floor = 0;
  if (p.topK > 0 && p.topK < ids.length) {
    const keys = ids.map((i) => orderedKey(x(i))).sort((a, b) => b - a);
    floor = keys[p.topK - 1]!;
  }
  const invT = fr(1 / fr(p.temperature));
  const q = new Map<number, number>();
  let total = 0;
  for (const i of ids) {
    const w = orderedKey(x(i)) >= floor ? weight(x(i), max, invT) : 0;
    q.set(i, w);
    total += w;
  }
  if (fr(p.topP) < 1) {
    let target = Math.ceil(fr(p.topP) * total);
    if (target < 1) target = 1;
    if (target > total) target = total;
    const byKey = ids.filter((i) => orderedKey(x(i)) >= floor).sort((a, b) => orderedKey(x(b)) - orderedKey(x(a)));
    let mass = 0;
    let tau = floor;
    for (let k = 0; k < byKey.length; k++) {
      const key = orderedKey(x(byKey[k]!));
      mass += q.get(byKey[k]!)!;
      const nextKey = k + 1 < byKey.length ? orderedKey(x(byKey[k + 1]!)) : -1;
      if (nextKey !== key && mass >= target) {
        tau = key;
        break;
      }
    }
    if (tau > floor) {
      floor = tau;
      total = 0;
      for (const i of ids) if (orderedKey(x(i)) >= floor) total += q.get(i)!;
    }
  }
  const r = (rowDraw(p.seed, row) * BigInt(total)) >> 64n;
  let acc = 0n;
  for (const i of ids) {
    if (orderedKey(x(i)) < floor) continue;
    acc += BigInt(q.get(i)!);
    if (acc > r) return i;
  }
  return argmax;
}

export function referenceSample(
  logits: Float32Array | Uint16Array,
  dtype: Dtype,
  bitmask: Int32Array,
  s: RefShape,
  params: (k: number) => RefSample,
): number[] {
  return workRows(s).map(([row, maskRow], k) => referenceSampleRow(logits, dtype, bitmask, s, row, maskRow, params(k)));
}
