/**
 * Resident masks on the CPU (docs/masking.md, "Resident masks"): turning the refs of
 * `BatchMatcher.fillMaskRefs` back into dense bitmask rows. The kernels and the native CPU
 * masking read refs in place; this is the plain reference of what a ref means.
 */
import { InvalidArgumentError } from "../errors.js";
import type { MaskStore } from "./types.js";

/** The compact row a negative ref names: `~ref` (-1 → 0, -2 → 1, …); -1 for a stored ref. */
export function compactRowOf(ref: number): number {
  return ref < 0 ? ~ref : -1;
}

/**
 * Writes the dense mask of each ref into `out` (row r of `out` for `refs[r]`, `refs.length`
 * rows): row `ref` of the store for `ref >= 0`, row `~ref` of `compact` otherwise. Returns `out`
 * (allocated when not given). Throws InvalidArgumentError for a ref outside the store or the
 * compact rows.
 *
 * @example
 * const { compactRows } = batch.fillMaskRefs(refs, compact);
 * const dense = expandMaskRefs(refs, compiled.maskStore(), compact);  // = batch.fillNextTokenBitmasks's rows
 */
export function expandMaskRefs(refs: Int32Array, store: MaskStore, compact: Int32Array, out?: Int32Array): Int32Array {
  const words = store.wordsPerMask;
  const target = out ?? new Int32Array(refs.length * words);
  if (target.length < refs.length * words) {
    throw new InvalidArgumentError(`expandMaskRefs: out must have at least ${refs.length}*${words} = ${refs.length * words} int32 words, got ${target.length}`);
  }
  const compactCount = Math.floor(compact.length / words);
  for (let r = 0; r < refs.length; r++) {
    const ref = refs[r]!;
    if (ref >= 0) {
      if (ref >= store.count) throw new InvalidArgumentError(`expandMaskRefs: refs[${r}] = ${ref} is not a row of the store (0 <= ref < ${store.count})`);
      target.set(store.words.subarray(ref * words, (ref + 1) * words), r * words);
      continue;
    }
    const from = ~ref;
    if (from >= compactCount) {
      throw new InvalidArgumentError(`expandMaskRefs: refs[${r}] = ${ref} names compact row ${from}, but compact holds ${compactCount} rows`);
    }
    target.set(compact.subarray(from * words, (from + 1) * words), r * words);
  }
  return target;
}
