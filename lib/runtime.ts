import { NativeAddonError } from "./errors.js";
import { nativeAddon, type NativeRuntimeInfo } from "./native.js";
import type { AddonOrigin, AddonVariant } from "./native-loader.js";

export type { NativeCudaInfo as CudaRuntimeInfo, NativeRuntimeInfo as RuntimeInfo } from "./native.js";
export type { AddonOrigin, AddonVariant } from "./native-loader.js";

/**
 * What the loaded native addon offers: its version, whether CUDA kernels were compiled in, and
 * how many CUDA devices are visible (0, without error, on a machine with no GPU or driver).
 * Throws a NativeAddonError (how to build it) when no addon can be loaded.
 *
 * @example
 * const info = runtime();
 * if (info.cuda.deviceCount > 0) console.log("masks can be applied on the GPU");
 */
export function runtime(): NativeRuntimeInfo {
  return nativeAddon().addon.runtime();
}

/** Which addon is in use and what it offers, or why none could be loaded. */
export type AddonStatus =
  | {
      available: true;
      /** The `.node` file loaded. */
      file: string;
      /** `prebuild` (shipped with the package), `source` (built on this machine) or `env` (TAGMASK_ADDON). */
      origin: AddonOrigin;
      /** `cuda` when the CUDA kernels are compiled in. */
      variant: AddonVariant;
      runtime: NativeRuntimeInfo;
    }
  | {
      available: false;
      /** What was tried, why each failed, and how to build the addon. */
      reason: string;
    };

/**
 * Whether the native addon can be used, and which one: the JavaScript-only parts of tagmask
 * (structural tags, grammars, output parsing) work without it.
 *
 * @example
 * const status = addonStatus();
 * console.log(status.available ? `${status.origin} addon (${status.variant})` : status.reason);
 */
export function addonStatus(): AddonStatus {
  try {
    const { file, origin, addon } = nativeAddon();
    const info = addon.runtime();
    return { available: true, file, origin, variant: info.cuda.compiled ? "cuda" : "cpu", runtime: info };
  } catch (err) {
    if (err instanceof NativeAddonError) return { available: false, reason: err.message };
    throw err;
  }
}
