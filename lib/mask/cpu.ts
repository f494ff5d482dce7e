/**
 * Masking logits on the CPU: apply a bitmask in place, and the masked argmax / masked sampling
 * that the CUDA kernels fuse (these are also their reference: same options, same results).
 */
import { native } from "../native.js";
import type { MaskShapeOptions, SampleOptions } from "./types.js";

/**
 * Sets every disallowed logit to -Infinity, in place: tokens whose bit is 0, and columns at or
 * past `vocabSize`. Logits are a `Float32Array` (float32) or a `Uint16Array` of bfloat16 (or,
 * with `dtype: "float16"`, IEEE half) bits. Vectorized (AVX-512 / AVX2 where available); large
 * batches are split over the native thread pool.
 *
 * @example
 * const bitmask = allocateTokenBitmask(1, vocabSize);
 * matcher.fillNextTokenBitmask(bitmask);
 * applyTokenBitmask(logits, bitmask, { vocabSize });
 */
export function applyTokenBitmask(logits: Float32Array | Uint16Array, bitmask: Int32Array, options: MaskShapeOptions): void {
  native().applyTokenBitmask(logits, bitmask, options);
}

/**
 * For each processed row, the allowed token with the highest logit (lowest id among ties; NaN
 * ranks below every number), or -1 when the row allows nothing. Logits are not modified.
 */
export function maskedArgmax(logits: Float32Array | Uint16Array, bitmask: Int32Array, options: MaskShapeOptions): Int32Array {
  return native().maskedArgmax(logits, bitmask, options);
}

/**
 * Samples one allowed token per processed row: softmax of logits / temperature restricted to
 * the allowed tokens, then to the top-k, then to the top-p mass; -1 when the row allows nothing.
 * Deterministic for a given seed: the same logits, mask and seed give the same token here and
 * on the GPU. Logits are not modified.
 */
export function maskedSample(logits: Float32Array | Uint16Array, bitmask: Int32Array, options: SampleOptions): Int32Array {
  return native().maskedSample(logits, bitmask, options);
}

/**
 * The instruction set the CPU masking uses ("avx512", "avx2" or "scalar"). Passing a name
 * forces it (for tests and benchmarks; "auto" restores the best one); a name this CPU lacks
 * throws InvalidArgumentError.
 */
export function applyMaskIsa(force?: "auto" | "avx512" | "avx2" | "scalar"): string {
  return native().applyMaskIsa(force);
}
