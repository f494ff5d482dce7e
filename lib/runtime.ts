import { native, type NativeRuntimeInfo } from "./native.js";

export type { NativeCudaInfo as CudaRuntimeInfo, NativeRuntimeInfo as RuntimeInfo } from "./native.js";

/**
 * What the loaded native addon offers: its version, whether CUDA kernels were compiled in, and
 * how many CUDA devices are visible (0, without error, on a machine with no GPU or driver).
 *
 * @example
 * const info = runtime();
 * if (info.cuda.deviceCount > 0) console.log("masks can be applied on the GPU");
 */
export function runtime(): NativeRuntimeInfo {
  return native().runtime();
}
