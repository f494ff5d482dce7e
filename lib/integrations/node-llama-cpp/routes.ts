/**
 * Masking routes: how a per-step token bitmask reaches node-llama-cpp's sampler. node-llama-cpp
 * has no public "mask these logits" hook, so there are several ways in, each with a cost:
 *
 * - `sampler-arrays`: the sequence's internal `_resolveSamplerConfig` is wrapped (on that one
 *   sequence object, for the duration of a generation) to hand the sampler the bias typed arrays
 *   directly. Fastest; depends on node-llama-cpp internals, so it is only offered for the exact
 *   version it was written against and passes a self-check before use.
 * - `bias-object`: the public `tokenBias` option, given a function returning a bias object of the
 *   shape node-llama-cpp reads (`_tokenizer`, `_biases`). No patching; slower for masks that allow
 *   about half of the vocabulary (the object is converted to arrays in JS on every step).
 * - `gbnf`: node-llama-cpp's own grammar sampler with the grammar exported to GBNF (see
 *   generate.ts); no per-step masks from tagmask at all.
 *
 * Both bias routes bias the smaller side of the mask: when few tokens are allowed they are lifted
 * by a large constant (the rest then have probability exactly 0 in float32 softmax and are never
 * greedy-selected); otherwise the disallowed tokens are banned with -Infinity. Repeat penalties
 * rescale positive logits, so with penalties on, the ban is always used.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { InternalError } from "../../errors.js";
import { popcount32 } from "../../mask/types.js";

/** The routes, fastest first. */
export type MaskRouteName = "sampler-arrays" | "bias-object" | "gbnf";
export const MASK_ROUTES: readonly MaskRouteName[] = ["sampler-arrays", "bias-object", "gbnf"];

/**
 * The node-llama-cpp versions whose internals `sampler-arrays` was checked against (the sampler
 * config hook is the same code in each); other versions use the next route.
 */
export const SAMPLER_ARRAYS_VERSIONS: readonly string[] = ["3.21.1", "3.22.1"];

/** The newest version in {@link SAMPLER_ARRAYS_VERSIONS}. */
export const SAMPLER_ARRAYS_VERSION = "3.22.1";

let cachedVersion: string | null | undefined;

/** The installed node-llama-cpp version, or null when it cannot be determined. */
export function nodeLlamaCppVersion(): string | null {
  if (cachedVersion !== undefined) return cachedVersion;
  try {
    let dir = dirname(fileURLToPath(import.meta.resolve("node-llama-cpp")));
    for (let i = 0; i < 4; i++) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
        if (pkg.name === "node-llama-cpp") {
          cachedVersion = pkg.version ?? null;
          return cachedVersion;
        }
      } catch {
        // no package.json at this level
      }
      dir = dirname(dir);
    }
  } catch {
    // not installed
  }
  cachedVersion = null;
  return null;
}

/** A bias above every disallowed logit by far more than float32 softmax can resolve (e^-104 = 0). */
const LIFT = 1e4;

/** Bias arrays for one step: `keys[i]` gets `values[i]` added to its logit. */
export interface StepBiases {
  keys: Uint32Array;
  values: Float32Array;
  /** Tokens the mask allows (within the model's vocabulary). */
  allowed: number;
}

/**
 * Turns bitmask rows into sampler biases without allocating per step: the arrays are views of
 * buffers sized once for the vocabulary.
 */
export class BiasBuilder {
  private readonly keys: Uint32Array;
  private readonly lift: Float32Array;
  private readonly ban: Float32Array;

  constructor(
    /** Tokens of the model's vocabulary (logits per step). */
    readonly modelVocabSize: number,
  ) {
    this.keys = new Uint32Array(modelVocabSize);
    this.lift = new Float32Array(modelVocabSize);
    this.ban = new Float32Array(modelVocabSize).fill(-Infinity);
  }

  /**
   * Biases for the mask `words` (bit t of word t>>5 = token t allowed). `banOnly` forces the
   * -Infinity form (needed when repeat penalties follow in the sampler chain); `temperature`
   * scales the lift so that it survives the division by the temperature; `allowed` is the
   * mask's {@link countAllowed}, when the caller has it already.
   */
  /** Tokens of the model's vocabulary the mask allows. */
  countAllowed(words: Int32Array): number {
    const n = this.modelVocabSize;
    const fullWords = n >>> 5;
    let allowed = 0;
    for (let w = 0; w < fullWords; w++) allowed += popcount32(words[w]!);
    const tail = n & 31;
    if (tail) allowed += popcount32(words[fullWords]! & ((1 << tail) - 1));
    return allowed;
  }

  build(words: Int32Array, options: { banOnly?: boolean; temperature?: number; allowed?: number } = {}): StepBiases {
    const n = this.modelVocabSize;
    const fullWords = n >>> 5;
    const tail = n & 31;
    const allowed = options.allowed ?? this.countAllowed(words);
    if (allowed === 0) throw new InternalError("the token mask allows no token of the model's vocabulary (the grammar has no continuation)");
    const liftAllowed = !options.banOnly && allowed * 2 <= n;
    let count = 0;
    const keys = this.keys;
    const totalWords = fullWords + (tail ? 1 : 0);
    for (let w = 0; w < totalWords; w++) {
      let bits = liftAllowed ? words[w]! : ~words[w]!;
      if (w === fullWords) bits &= (1 << tail) - 1;
      while (bits !== 0) {
        const low = bits & -bits;
        keys[count++] = (w << 5) | (31 - Math.clz32(low));
        bits ^= low;
      }
    }
    if (liftAllowed) {
      const lift = LIFT * Math.max(1, options.temperature ?? 1);
      this.lift.fill(lift, 0, count);
      return { keys: keys.subarray(0, count), values: this.lift.subarray(0, count), allowed };
    }
    return { keys: keys.subarray(0, count), values: this.ban.subarray(0, count), allowed };
  }
}

/** Whether token `t` is allowed by the mask row. */
export function maskAllows(words: Int32Array, t: number): boolean {
  return ((words[t >>> 5]! >>> (t & 31)) & 1) === 1;
}

/** The shape of node-llama-cpp's sampler config that `sampler-arrays` fills in. */
interface SamplerConfig {
  tokenBiasKeys?: Uint32Array;
  tokenBiasValues?: Float32Array;
}

interface PatchableSequence {
  _resolveSamplerConfig?: (options: Record<string, unknown>) => SamplerConfig;
}

/**
 * Installs `sampler-arrays` on one sequence: every sampling step of that sequence asks `biases()`
 * for the step's arrays. Returns the function that removes the hook again.
 */
export function installSamplerArrays(sequence: object, biases: () => StepBiases | undefined): () => void {
  const seq = sequence as PatchableSequence;
  const original = seq._resolveSamplerConfig;
  if (typeof original !== "function") {
    throw new InternalError("node-llama-cpp's LlamaContextSequence has no _resolveSamplerConfig: the sampler-arrays route does not fit this version");
  }
  if (Object.prototype.hasOwnProperty.call(seq, "_resolveSamplerConfig")) {
    throw new InternalError("this sequence is already generating under tagmask (one constrained generation per sequence at a time)");
  }
  seq._resolveSamplerConfig = function resolveWithMask(this: PatchableSequence, options: Record<string, unknown>): SamplerConfig {
    const config = original.call(this, { ...options, tokenBias: undefined });
    const step = biases();
    if (step) {
      config.tokenBiasKeys = step.keys;
      config.tokenBiasValues = step.values;
    }
    return config;
  };
  return () => {
    delete seq._resolveSamplerConfig;
  };
}

/**
 * The `bias-object` route: a value for node-llama-cpp's public `tokenBias` option. node-llama-cpp
 * calls it once per sampling step and reads `_biases` (token → bias) of the returned object.
 */
export function biasObjectOption(tokenizer: unknown, biases: () => StepBiases | undefined): () => { _tokenizer: unknown; _biases: Map<number, number> } {
  const map = new Map<number, number>();
  const object = { _tokenizer: tokenizer, _biases: map };
  return () => {
    map.clear();
    const step = biases();
    if (step) {
      const { keys, values } = step;
      for (let i = 0; i < keys.length; i++) map.set(keys[i]!, values[i]!);
    }
    return object;
  };
}
