/**
 * A minimal GGUF v3 writer: header, typed key/values, tensor infos and 32-byte aligned tensor
 * data (f32 or f16). Enough to write the small random-weight models tagmask uses for tests and
 * the demo; it does not read GGUF.
 *
 * Layout: "GGUF", u32 version 3, u64 tensor count, u64 key/value count, the key/values (key as a
 * u64-length string, u32 value type, value), the tensor infos (name, u32 dimension count, u64
 * dimensions innermost first, u32 ggml type, u64 offset into the data section), padding to the
 * alignment, then the tensors, each starting at an aligned offset.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { InvalidArgumentError } from "../../errors.js";

const ALIGNMENT = 32;

/** GGUF metadata value types. */
const ValueType = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 } as const;

/** A typed metadata value. */
export type GgufValue =
  | { type: "u32" | "i32" | "f32" | "u64"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "array"; itemType: "string"; value: readonly string[] }
  | { type: "array"; itemType: "i32" | "f32"; value: ArrayLike<number> };

/** A tensor: dimensions innermost first (ggml `ne`), data as f32 values stored as f32 or f16. */
export interface GgufTensor {
  name: string;
  dims: readonly number[];
  type: "f32" | "f16";
  data: Float32Array;
}

const GGML_TYPE = { f32: 0, f16: 1 } as const;

/** Converts one float to IEEE half precision bits (round to nearest even). */
export function toHalf(value: number): number {
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  f32[0] = value;
  return halfFromBits(u32[0]!);
}

function halfFromBits(x: number): number {
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1))) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  // Rounding may carry into the exponent, up to infinity: that is the correctly rounded result.
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half++;
  return sign | half;
}

/** Sequential little-endian writer into a growing list of chunks. */
class ByteSink {
  private chunks: Buffer[] = [];
  private current = Buffer.alloc(1 << 20);
  private used = 0;
  length = 0;

  private room(n: number): void {
    if (this.used + n <= this.current.length) return;
    this.chunks.push(this.current.subarray(0, this.used));
    this.current = Buffer.alloc(Math.max(1 << 20, n));
    this.used = 0;
  }

  u32(v: number): void {
    this.room(4);
    this.current.writeUInt32LE(v, this.used);
    this.used += 4;
    this.length += 4;
  }
  i32(v: number): void {
    this.room(4);
    this.current.writeInt32LE(v, this.used);
    this.used += 4;
    this.length += 4;
  }
  f32(v: number): void {
    this.room(4);
    this.current.writeFloatLE(v, this.used);
    this.used += 4;
    this.length += 4;
  }
  u64(v: number): void {
    this.room(8);
    this.current.writeBigUInt64LE(BigInt(v), this.used);
    this.used += 8;
    this.length += 8;
  }
  u8(v: number): void {
    this.room(1);
    this.current[this.used++] = v;
    this.length += 1;
  }
  string(s: string): void {
    const n = Buffer.byteLength(s, "utf8");
    this.u64(n);
    this.room(n);
    this.current.write(s, this.used, "utf8");
    this.used += n;
    this.length += n;
  }
  bytes(b: Uint8Array): void {
    this.chunks.push(this.current.subarray(0, this.used));
    this.chunks.push(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    this.current = Buffer.alloc(1 << 20);
    this.used = 0;
    this.length += b.byteLength;
  }
  pad(): void {
    const n = (ALIGNMENT - (this.length % ALIGNMENT)) % ALIGNMENT;
    for (let i = 0; i < n; i++) this.u8(0);
  }
  finish(): Buffer[] {
    this.chunks.push(this.current.subarray(0, this.used));
    return this.chunks;
  }
}

function writeValue(sink: ByteSink, v: GgufValue, key: string): void {
  switch (v.type) {
    case "u32": sink.u32(ValueType.u32); sink.u32(v.value); return;
    case "i32": sink.u32(ValueType.i32); sink.i32(v.value); return;
    case "f32": sink.u32(ValueType.f32); sink.f32(v.value); return;
    case "u64": sink.u32(ValueType.u64); sink.u64(v.value); return;
    case "bool": sink.u32(ValueType.bool); sink.u8(v.value ? 1 : 0); return;
    case "string": sink.u32(ValueType.string); sink.string(v.value); return;
    case "array":
      sink.u32(ValueType.array);
      if (v.itemType === "string") {
        sink.u32(ValueType.string);
        sink.u64(v.value.length);
        for (const s of v.value) sink.string(s);
      } else {
        sink.u32(ValueType[v.itemType]);
        sink.u64(v.value.length);
        for (let i = 0; i < v.value.length; i++) (v.itemType === "i32" ? sink.i32(v.value[i]!) : sink.f32(v.value[i]!));
      }
      return;
    default:
      throw new InvalidArgumentError(`gguf metadata ${key}: unsupported value type`);
  }
}

function tensorBytes(t: GgufTensor): Uint8Array {
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (t.data.length !== count) throw new InvalidArgumentError(`gguf tensor ${t.name}: ${t.data.length} values for dimensions [${t.dims.join(", ")}] (expected ${count})`);
  if (t.type === "f32") return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const half = new Uint16Array(count);
  const bits = new Uint32Array(t.data.buffer, t.data.byteOffset, count);
  for (let i = 0; i < count; i++) half[i] = halfFromBits(bits[i]!);
  return new Uint8Array(half.buffer);
}

/**
 * Writes a GGUF v3 file; returns its size in bytes. `onWrite(written, total)` is called after each
 * chunk reaches the file (progress for large files).
 */
export function writeGguf(
  file: string,
  metadata: ReadonlyMap<string, GgufValue>,
  tensors: readonly GgufTensor[],
  onWrite?: (written: number, total: number) => void,
): number {
  const sink = new ByteSink();
  sink.bytes(Buffer.from("GGUF", "latin1"));
  sink.u32(3);
  sink.u64(tensors.length);
  sink.u64(metadata.size);
  for (const [key, value] of metadata) {
    sink.string(key);
    writeValue(sink, value, key);
  }
  const payloads = tensors.map(tensorBytes);
  let offset = 0;
  tensors.forEach((t, i) => {
    sink.string(t.name);
    sink.u32(t.dims.length);
    for (const d of t.dims) sink.u64(d);
    sink.u32(GGML_TYPE[t.type]);
    sink.u64(offset);
    offset += payloads[i]!.byteLength;
    offset += (ALIGNMENT - (offset % ALIGNMENT)) % ALIGNMENT;
  });
  sink.pad();
  for (const p of payloads) {
    sink.bytes(p);
    sink.pad();
  }
  const fd = openSync(file, "w");
  try {
    let written = 0;
    for (const chunk of sink.finish()) {
      writeSync(fd, chunk);
      written += chunk.length;
      onWrite?.(written, sink.length);
    }
  } finally {
    closeSync(fd);
  }
  return sink.length;
}
