/**
 * Masking on the GPU: logits that live in device memory (allocated here, or a pointer from
 * another native library wrapped with its shape, dtype and stream), bitmasks uploaded to the
 * device (asynchronously from pinned host memory), and the fused kernels: bitmask application
 * in place, masked argmax, and masked sampling that returns one token id per row without
 * copying logits to the host.
 *
 * On a machine without a usable CUDA device (or a build without the kernels) `cuda.available()`
 * is false and every other call throws a `DeviceError` saying why.
 *
 * @example
 * if (cuda.available()) {
 *   const logits = cuda.wrapLogits(tensorPointer, { rows: 8, vocabSize: 128256, dtype: "bfloat16", stream });
 *   const pinned = cuda.allocatePinnedBitmask(8, 128256);
 *   const mask = cuda.allocateBitmask(8, 128256);
 *   batch.fillNextTokenBitmasks(pinned.array);   // matchers write straight into pinned memory
 *   mask.upload(pinned, { stream });             // async copy on the stream
 *   const tokens = logits.sample(mask, { temperature: 0.7, topP: 0.9, seed: step });
 * }
 */
import { InvalidArgumentError } from "../errors.js";
import {
  native, type NativeCudaStream, type NativeDeviceBitmask, type NativeDeviceLogits, type NativeDeviceMaskStore, type NativePinnedBitmask,
} from "../native.js";
import type { LogitsDType } from "./types.js";

/** A CUDA stream: one tagmask created, or a raw handle (bigint) from another library. 0n is the legacy default stream. */
export type StreamLike = CudaStream | bigint;

/** Row selection and stream for a device call. */
export interface DeviceRowOptions {
  /** Only these logits rows; row r uses bitmask row r, or bitmask row k for indices[k] with `compactBitmask`. */
  indices?: Int32Array | readonly number[];
  compactBitmask?: boolean;
  /** Stream for this call (default: the logits' stream). */
  stream?: StreamLike;
  /**
   * Resident masks (docs/masking.md): one ref per bitmask row (host memory, from
   * `BatchMatcher.fillMaskRefs`; copied to the device with the call). A row's mask is row `ref`
   * of `maskStore` when `ref >= 0`, else row `~ref` of the bitmask argument, which then holds only
   * the compact rows. Give both `refs` and `maskStore`, or neither.
   */
  refs?: Int32Array;
  /** The grammar's rows on this device: `CompiledGrammar.uploadMasks(device)`. */
  maskStore?: DeviceMaskStore;
}

/** Masked sampling on the device: the same parameters and the same results as `maskedSample` on the CPU. */
export interface DeviceSampleOptions extends DeviceRowOptions {
  temperature?: number | Float32Array;
  topK?: number | Int32Array;
  topP?: number | Float32Array;
  seed?: number | bigint | BigUint64Array;
}

export interface DeviceLogitsOptions {
  rows: number;
  /** Tokens the bitmasks cover; columns at or past it are set to -inf by applyBitmask. */
  vocabSize: number;
  /** Logits per row (≥ vocabSize). Default: stride, else vocabSize. */
  columns?: number;
  /** Elements between rows (≥ columns). Default: columns. */
  stride?: number;
  /** Default float32. */
  dtype?: LogitsDType;
  /** CUDA device index, default 0. */
  device?: number;
  /** Stream the calls run on unless they name another (default: the legacy default stream). */
  stream?: StreamLike;
}

export interface CudaDeviceInfo {
  device: number;
  name: string;
  computeCapability: string;
  multiprocessors: number;
  totalMemory: number;
  /** Peak DRAM bandwidth in bytes/s from the memory clock and bus width. */
  memoryBandwidth: number;
}

/** Options as the addon takes them: `stream` as its raw handle (a bigint), left out when not given. */
function nativeOptions<T extends { stream?: StreamLike }>(options: T | undefined): Omit<T, "stream"> & { stream?: bigint } {
  if (!options) return {} as Omit<T, "stream">;
  const { stream, ...rest } = options;
  if (stream === undefined) return rest;
  return { ...rest, stream: typeof stream === "bigint" ? stream : stream.handle };
}

/** Row options as the addon takes them: also `maskStore` as its native handle. */
function nativeRowOptions<T extends DeviceRowOptions>(options: T | undefined): object {
  const out: Record<string, unknown> = nativeOptions(options);
  if (options?.maskStore !== undefined) {
    const store: unknown = options.maskStore;
    out.maskStore = store instanceof DeviceMaskStore ? store.nativeHandle : store;
  }
  return out;
}

/**
 * A compiled grammar's mask rows in device memory (`CompiledGrammar.uploadMasks`): what the
 * refs of `BatchMatcher.fillMaskRefs` name, read by the kernels in place of uploaded rows. The
 * memory is freed with the grammar, or now with {@link free}.
 */
export class DeviceMaskStore {
  readonly #native: NativeDeviceMaskStore;
  /** The grammar whose rows these are; held so the rows live as long as this object. */
  readonly grammar: object;
  /** @internal use `CompiledGrammar.uploadMasks`. */
  constructor(handle: NativeDeviceMaskStore, grammar: object) {
    this.#native = handle;
    this.grammar = grammar;
  }
  /** Device address of row 0. */
  get pointer(): bigint {
    return this.#native.pointer;
  }
  /** Rows in the store. */
  get count(): number {
    return this.#native.count;
  }
  /** Int32 words per row: ceil(vocabSize / 32). */
  get wordsPerMask(): number {
    return this.#native.wordsPerMask;
  }
  get vocabSize(): number {
    return this.#native.vocabSize;
  }
  /** Device memory the rows take (0 once freed). */
  get bytes(): number {
    return this.#native.bytes;
  }
  get device(): number {
    return this.#native.device;
  }
  /**
   * Frees the device memory now, for every holder of these rows (the grammar uploads them again
   * on its next `uploadMasks`). Only after the kernels that read them have run.
   */
  free(): void {
    this.#native.free();
  }
  /** @internal */
  get nativeHandle(): NativeDeviceMaskStore {
    return this.#native;
  }
}

/** A non-blocking CUDA stream owned by tagmask. */
export class CudaStream {
  readonly #native: NativeCudaStream;
  /** @internal use {@link cuda.createStream}. */
  constructor(device = 0) {
    this.#native = new (native().CudaStream)(device);
  }
  /** The cudaStream_t, for passing to other libraries. */
  get handle(): bigint {
    return this.#native.handle;
  }
  /** Waits until everything queued on the stream has run. */
  synchronize(): void {
    this.#native.synchronize();
  }
  /** Destroys the stream (work already queued still completes). */
  destroy(): void {
    this.#native.destroy();
  }
}

/** A bitmask in page-locked host memory: matchers fill `array`, `DeviceBitmask.upload` copies it asynchronously. */
export class PinnedBitmask {
  readonly #native: NativePinnedBitmask;
  /** @internal use {@link cuda.allocatePinnedBitmask}. */
  constructor(rows: number, vocabSize: number) {
    this.#native = new (native().PinnedBitmask)(rows, vocabSize);
  }
  /** The pinned words, shape [rows, ceil(vocabSize/32)]; empty after free(). */
  get array(): Int32Array {
    return this.#native.array ?? new Int32Array(0);
  }
  get rows(): number {
    return this.#native.rows;
  }
  get vocabSize(): number {
    return this.#native.vocabSize;
  }
  /** Releases the pinned memory now (the array becomes empty). */
  free(): void {
    this.#native.free();
  }
  /** @internal */
  get nativeHandle(): NativePinnedBitmask {
    return this.#native;
  }
}

/** Bitmask rows in device memory. */
export class DeviceBitmask {
  readonly #native: NativeDeviceBitmask;
  /** @internal use {@link cuda.allocateBitmask}. */
  constructor(rows: number, vocabSize: number, options: { device?: number; stream?: StreamLike } = {}) {
    this.#native = new (native().DeviceBitmask)(rows, vocabSize, nativeOptions({ device: options.device, stream: options.stream }));
  }
  /**
   * Copies rows to the device: from a {@link PinnedBitmask} asynchronously on the stream (do not
   * refill those rows until the stream has passed the copy), from an Int32Array before returning.
   * The source holds whole rows, at most this bitmask's; `rows` copies only its first rows (the
   * compact rows of `BatchMatcher.fillMaskRefs`). Returns whether the copy was asynchronous.
   */
  upload(source: Int32Array | PinnedBitmask, options: { stream?: StreamLike; rows?: number } = {}): boolean {
    const src = source instanceof PinnedBitmask ? source.nativeHandle : source;
    return this.#native.upload(src, nativeOptions({ stream: options.stream, rows: options.rows }));
  }
  /** The device words, copied back (waits for the stream). */
  download(): Int32Array {
    return this.#native.download();
  }
  get pointer(): bigint {
    return this.#native.pointer;
  }
  get rows(): number {
    return this.#native.rows;
  }
  get vocabSize(): number {
    return this.#native.vocabSize;
  }
  free(): void {
    this.#native.free();
  }
  /** @internal */
  get nativeHandle(): NativeDeviceBitmask {
    return this.#native;
  }
}

/** A batch of logits in device memory, with the masking kernels. */
export class DeviceLogits {
  readonly #native: NativeDeviceLogits;
  /** @internal use {@link cuda.allocateLogits} or {@link cuda.wrapLogits}. */
  constructor(options: DeviceLogitsOptions & { pointer?: bigint }) {
    this.#native = new (native().DeviceLogits)(nativeOptions(options));
  }
  /** Device address of row 0. */
  get pointer(): bigint {
    return this.#native.pointer;
  }
  get shape(): { rows: number; vocabSize: number; columns: number; stride: number; dtype: LogitsDType; device: number; owned: boolean } {
    return this.#native.shape;
  }
  /** Copies host logits in (Float32Array for float32, Uint16Array bits for float16 / bfloat16): rows*stride values. */
  upload(host: Float32Array | Uint16Array, options: { stream?: StreamLike } = {}): void {
    this.#native.upload(host, nativeOptions(options));
  }
  /** Copies the logits out ((rows-1)*stride+columns values); waits for the stream. */
  download(options: { stream?: StreamLike } = {}): Float32Array | Uint16Array {
    return this.#native.download(nativeOptions(options));
  }
  /** Sets disallowed logits (and columns at or past vocabSize) to -inf, in place; queued on the stream. */
  applyBitmask(bitmask: DeviceBitmask, options?: DeviceRowOptions): void {
    this.#native.applyBitmask(bitmask.nativeHandle, nativeRowOptions(options));
  }
  /** Masked argmax per row (lowest id among ties; -1 when nothing is allowed); `null` = no mask. */
  argmax(bitmask: DeviceBitmask | null, options?: DeviceRowOptions): Int32Array {
    return this.#native.argmax(bitmask === null ? null : bitmask.nativeHandle, nativeRowOptions(options));
  }
  /** Fused masked sampling: one token id per row (-1 when nothing is allowed), equal to the CPU `maskedSample`. */
  sample(bitmask: DeviceBitmask, options?: DeviceSampleOptions): Int32Array {
    return this.#native.sample(bitmask.nativeHandle, nativeRowOptions(options));
  }
  /**
   * Mean microseconds per launch of the mask kernel ("apply"), the candidate mask kernel for
   * batches past L2 ("apply-waves": streaming cache hints, four chunks a thread, one wave of
   * blocks; same results, used by nothing else until measured faster) or the argmax kernel
   * ("argmax", bitmask may be null), over `iterations` launches timed with CUDA events. For
   * bench/gpu.
   */
  benchmark(kind: "apply" | "apply-waves" | "argmax", bitmask: DeviceBitmask | null, iterations: number, options?: DeviceRowOptions): number {
    return this.#native.benchmark(kind, bitmask === null ? null : bitmask.nativeHandle, iterations, nativeRowOptions(options));
  }
  /** Waits for the stream. */
  synchronize(options: { stream?: StreamLike } = {}): void {
    this.#native.synchronize(nativeOptions(options));
  }
  /** Frees the device memory tagmask allocated (a wrapped pointer stays its owner's). */
  free(): void {
    this.#native.free();
  }
}

/** The device API. */
export const cuda = {
  /** Whether the CUDA kernels are built in and a device is usable. Never throws. */
  available(): boolean {
    return native().cudaAvailable();
  },
  /** Name, compute capability, multiprocessors, memory and peak bandwidth of a device. */
  deviceInfo(device = 0): CudaDeviceInfo {
    return native().cudaDeviceInfo(device);
  },
  /** A new non-blocking stream on `device`. */
  createStream(device = 0): CudaStream {
    return new CudaStream(device);
  },
  /** Device memory for `rows` rows of logits (uninitialized; fill with upload). */
  allocateLogits(options: DeviceLogitsOptions): DeviceLogits {
    return new DeviceLogits(options);
  },
  /**
   * Wraps logits another library owns (e.g. a tensor's data pointer) with their shape, dtype and
   * stream. The pointer is checked to be device memory of `options.device`; the memory stays
   * the owner's.
   */
  wrapLogits(pointer: bigint, options: DeviceLogitsOptions): DeviceLogits {
    if (typeof pointer !== "bigint") {
      throw new InvalidArgumentError(`cuda.wrapLogits(pointer, options): pointer must be a bigint device address, got ${typeof pointer}`);
    }
    return new DeviceLogits({ ...options, pointer });
  },
  /** Device memory for `rows` bitmask rows of `vocabSize` tokens. */
  allocateBitmask(rows: number, vocabSize: number, options: { device?: number; stream?: StreamLike } = {}): DeviceBitmask {
    return new DeviceBitmask(rows, vocabSize, options);
  },
  /** Page-locked host memory for `rows` bitmask rows, for asynchronous uploads. */
  allocatePinnedBitmask(rows: number, vocabSize: number): PinnedBitmask {
    return new PinnedBitmask(rows, vocabSize);
  },
};
