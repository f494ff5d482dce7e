/**
 * Conversions between float32 and the 16-bit logits formats (bfloat16, IEEE half), as raw bits
 * in a Uint16Array: what CPU masking takes for 16-bit logits and what the GPU path uploads.
 */
import { InvalidArgumentError } from "../errors.js";

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** bfloat16 bits of a number (round to nearest even; NaN stays NaN). */
export function toBFloat16Bits(x: number): number {
  f32[0] = x;
  const u = u32[0]!;
  if ((u & 0x7fffffff) > 0x7f800000) return ((u >>> 16) | 0x40) & 0xffff; // quiet NaN
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** The number a bfloat16 bit pattern stands for. */
export function fromBFloat16Bits(h: number): number {
  u32[0] = (h & 0xffff) << 16;
  return f32[0]!;
}

/** IEEE half bits of a number (round to nearest even; overflow to ±Infinity; NaN stays NaN). */
export function toFloat16Bits(x: number): number {
  f32[0] = x;
  const u = u32[0]!;
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  const mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    // Subnormal half: shift the mantissa (with its implicit 1) and round to nearest even.
    const m = mant | 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = m & ((1 << shift) - 1);
    let r = m >>> shift;
    if (rest > half || (rest === half && (r & 1))) r++;
    return sign | r;
  }
  let r = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (r & 1))) r++;
  return sign | r;
}

/** The number an IEEE half bit pattern stands for. */
export function fromFloat16Bits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0x1f) return mant ? Number.NaN : sign * Infinity;
  if (exp === 0) return sign * mant * 2 ** -24;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** The array conversions' arguments: any other dtype would silently be read as float16. */
function checkHalfArgs(what: string, values: unknown, type: Float32ArrayConstructor | Uint16ArrayConstructor, dtype: unknown): void {
  if (!(values instanceof type)) {
    const got = values === null ? "null" : ArrayBuffer.isView(values) ? values.constructor.name : typeof values;
    throw new InvalidArgumentError(`${what}: the first argument must be a ${type.name}, got ${got}`);
  }
  if (dtype !== "bfloat16" && dtype !== "float16") {
    const got = typeof dtype === "string" ? JSON.stringify(dtype.slice(0, 40)) : typeof dtype;
    throw new InvalidArgumentError(`${what}: dtype must be "bfloat16" or "float16", got ${got}`);
  }
}

/** Converts float32 logits to 16-bit bits of `dtype`. */
export function toHalfBits(values: Float32Array, dtype: "bfloat16" | "float16"): Uint16Array {
  checkHalfArgs("toHalfBits(values, dtype)", values, Float32Array, dtype);
  const out = new Uint16Array(values.length);
  const conv = dtype === "bfloat16" ? toBFloat16Bits : toFloat16Bits;
  for (let i = 0; i < values.length; i++) out[i] = conv(values[i]!);
  return out;
}

/** Converts 16-bit logits bits of `dtype` to float32. */
export function fromHalfBits(bits: Uint16Array, dtype: "bfloat16" | "float16"): Float32Array {
  checkHalfArgs("fromHalfBits(bits, dtype)", bits, Uint16Array, dtype);
  const out = new Float32Array(bits.length);
  const conv = dtype === "bfloat16" ? fromBFloat16Bits : fromFloat16Bits;
  for (let i = 0; i < bits.length; i++) out[i] = conv(bits[i]!);
  return out;
}
