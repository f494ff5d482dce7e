/**
 * The native addon: how it is found and loaded, and the one place where its surface is typed.
 * Everything else in lib/ goes through {@link native}.
 */
import { NativeAddonError, nativeErrorClasses, type TagmaskError } from "./errors.js";
import { addonCandidateList, loadAddon, type LoadedAddon } from "./native-loader.js";
import type { VocabularyData } from "./tokenizer/vocabulary.js";

/** What `runtime()` reports about the CUDA part of the build. */
export interface NativeCudaInfo {
  /** Whether the CUDA kernels were compiled into this build. */
  compiled: boolean;
  /** CUDA runtime version the kernels were built with (major*1000 + minor*10), or null. */
  runtimeVersion: number | null;
  /** CUDA devices visible now; 0 without a GPU or driver. */
  deviceCount: number;
  /** "ok", or why no device can be used. */
  status: string;
}

export interface NativeRuntimeInfo {
  version: string;
  cuda: NativeCudaInfo;
}

/** The functions and classes the addon exports. Extended as native features land. */
export interface NativeAddon {
  setErrorClasses(classes: Record<string, new (message: string) => Error>): void;
  runtime(): NativeRuntimeInfo;
  /** Resizes the shared native thread pool (0: default size); returns the new size. */
  setThreadPoolSize(threads: number): number;
  /** Worker threads of the shared native thread pool. */
  threadPoolSize(): number;
  /** CPU masking (lib/mask/cpu.ts); options are checked natively. */
  applyTokenBitmask(logits: Float32Array | Uint16Array, bitmask: Int32Array, options: object): void;
  maskedArgmax(logits: Float32Array | Uint16Array, bitmask: Int32Array, options: object): Int32Array;
  maskedSample(logits: Float32Array | Uint16Array, bitmask: Int32Array, options: object): Int32Array;
  applyMaskIsa(force?: string): string;
  /** CUDA device API (lib/mask/cuda.ts). */
  cudaAvailable(): boolean;
  cudaDeviceInfo(device?: number): {
    device: number; name: string; computeCapability: string; multiprocessors: number; totalMemory: number; memoryBandwidth: number;
  };
  CudaStream: new (device?: number) => NativeCudaStream;
  PinnedBitmask: new (rows: number, vocabSize: number) => NativePinnedBitmask;
  DeviceBitmask: new (rows: number, vocabSize: number, options: object) => NativeDeviceBitmask;
  DeviceLogits: new (options: object) => NativeDeviceLogits;
  /** Made by NativeCompiledGrammar.uploadMasks only. */
  DeviceMaskStore: abstract new () => NativeDeviceMaskStore;
  /** Batch path (lib/engine/batch.ts). */
  BatchMatcher: new (matchers: NativeGrammarMatcher[], options: { parallel?: boolean }) => NativeBatchMatcher;
  /** Engine (lib/engine): the native vocabulary handle built from VocabularyData. */
  createTokenizerInfo(data: VocabularyData): NativeTokenizerInfoHandle;
  /** Compiles a serialized grammar IR against a vocabulary on the calling thread. */
  compileGrammar(tokenizer: NativeTokenizerInfoHandle, ir: Uint8Array, options?: NativeCompileOptions): NativeCompiledGrammar;
  /** Same on a worker thread; the IR bytes are copied before the call returns. */
  compileGrammarAsync(tokenizer: NativeTokenizerInfoHandle, ir: Uint8Array, options?: NativeCompileOptions): Promise<NativeCompiledGrammar>;
  /**
   * Starts compiling on a worker thread; the job can be cancelled (its promise then rejects with
   * an AbortError) and read for progress. The IR bytes are copied before the call returns.
   */
  startCompile(tokenizer: NativeTokenizerInfoHandle, ir: Uint8Array, options?: NativeCompileOptions): NativeCompileJob;
  /** A matcher in the grammar's initial state. */
  createMatcher(grammar: NativeCompiledGrammar, options?: { maxStackDepth?: number }): NativeGrammarMatcher;
}

/** Native vocabulary handle (engine). */
export interface NativeTokenizerInfoHandle {
  readonly vocabSize: number;
  readonly tokenCount: number;
  readonly maskWordCount: number;
  readonly eligibleCount: number;
  readonly memoryBytes: number;
  readonly fingerprint: string;
  readonly stopTokenIds: Uint32Array;
  trieStats(): { plainTokens: number; plainNodes: number; impureTokens: number; impureNodes: number; maxTokenLength: number; trieBytes: number };
  /** The rule walks this vocabulary keeps for compiles (docs/engine.md, "Rule walks kept per vocabulary"). */
  ruleWalkCache(): { entries: number; bytes: number; maxEntries: number; maxBytes: number };
}

export interface NativeCompileOptions {
  /** Threads building the mask cache: 1 = the calling thread only, 0 = the shared pool's size. */
  threads?: number;
}

/** A compilation running natively (lib/engine/compile-run.ts). */
export interface NativeCompileJob {
  readonly promise: Promise<NativeCompiledGrammar>;
  /** Stops the compilation at its next checkpoint; the promise rejects with an AbortError. */
  cancel(): void;
  progress(): { phase: "waiting" | "read" | "automaton" | "masks" | "done"; done: number; total: number };
}

/** Native compile statistics (see CompiledGrammar.stats in lib/engine). */
export interface NativeCompileStats {
  readMs: number; automatonMs: number; masksMs: number; totalMs: number;
  rules: number; states: number; byteClasses: number; nfaStates: number; trieNodesVisited: number; maskWork: number; walkedStates: number; chainStates: number;
  distinctMasks: number; listMasks: number; complementMasks: number; bitsetMasks: number;
  uncertainTokens: number; statesWithUncertain: number; residualTokens: number; residueTokens: number; threads: number; keptRules: string[];
}

/** Native compiled grammar handle. */
export interface NativeCompiledGrammar {
  readonly memoryBytes: number;
  readonly stateCount: number;
  readonly vocabSize: number;
  stats(): NativeCompileStats;
  /** The resident mask rows, copied (docs/masking.md, "Resident masks"). */
  maskStore(): { count: number; wordsPerMask: number; vocabSize: number; words: Int32Array };
  /** The resident rows in device memory, uploaded once per device. */
  uploadMasks(device?: number, options?: { stream?: bigint }): NativeDeviceMaskStore;
}

/** Native matcher handle (lib/engine/matcher.ts wraps it). */
export interface NativeGrammarMatcher {
  acceptToken(id: number): boolean;
  acceptBytes(bytes: Uint8Array): boolean;
  fillNextTokenBitmask(out: Int32Array, row?: number): void;
  canTerminate(): boolean;
  isTerminated(): boolean;
  rollback(steps?: number): void;
  reset(): void;
  fork(): NativeGrammarMatcher;
  findJumpForwardString(): string;
  benchTrace(tokens: Uint32Array, repeats?: number): { fillNs: Float64Array; acceptNs: Float64Array };
  readonly stepCount: number;
  readonly stackCount: number;
  readonly inError: boolean;
  readonly errorMessage: string;
  readonly memoryBytes: number;
}

/** Native batch of matchers (lib/engine/batch.ts wraps it). */
export interface NativeBatchMatcher {
  readonly size: number;
  readonly maskWords: number;
  readonly bitmask: Int32Array;
  readonly busy: boolean;
  fill(out?: Int32Array, rows?: Int32Array | readonly number[]): Array<{ row: number; error: TagmaskError }>;
  fillAsync(rows?: Int32Array | readonly number[]): Promise<{ bitmask: Int32Array; errors: Array<{ row: number; error: TagmaskError }> }>;
  accept(tokens: Int32Array | readonly number[]): { accepted: Uint8Array; errors: Array<{ row: number; error: TagmaskError }> };
  acceptAsync(tokens: Int32Array | readonly number[]): Promise<{ accepted: Uint8Array; errors: Array<{ row: number; error: TagmaskError }> }>;
  rollback(steps: number | Int32Array | readonly number[]): Array<{ row: number; error: TagmaskError }>;
  rollbackAsync(steps: number | Int32Array | readonly number[]): Promise<Array<{ row: number; error: TagmaskError }>>;
  fillRefs(refs: Int32Array, compact: Int32Array, options?: { rows?: Int32Array | readonly number[]; grammar?: NativeCompiledGrammar }):
    { compactRows: number; errors: Array<{ row: number; error: TagmaskError }> };
}

/** Native CUDA stream (lib/mask/cuda.ts wraps it). */
export interface NativeCudaStream {
  readonly handle: bigint;
  synchronize(): void;
  destroy(): void;
}

/** Native pinned-memory bitmask. */
export interface NativePinnedBitmask {
  readonly array: Int32Array | undefined;
  readonly rows: number;
  readonly vocabSize: number;
  free(): void;
}

/** Native device bitmask. */
export interface NativeDeviceBitmask {
  upload(source: Int32Array | NativePinnedBitmask, options: object): boolean;
  download(): Int32Array;
  free(): void;
  readonly pointer: bigint;
  readonly rows: number;
  readonly vocabSize: number;
}

/** Native device-resident mask rows of a compiled grammar. */
export interface NativeDeviceMaskStore {
  readonly pointer: bigint;
  readonly count: number;
  readonly wordsPerMask: number;
  readonly vocabSize: number;
  readonly bytes: number;
  readonly device: number;
  free(): void;
}

/** Native device logits. */
export interface NativeDeviceLogits {
  readonly pointer: bigint;
  readonly shape: {
    rows: number; vocabSize: number; columns: number; stride: number;
    dtype: "float32" | "float16" | "bfloat16"; device: number; owned: boolean;
  };
  upload(host: Float32Array | Uint16Array, options: object): void;
  download(options: object): Float32Array | Uint16Array;
  applyBitmask(bitmask: NativeDeviceBitmask, options: object): void;
  argmax(bitmask: NativeDeviceBitmask | null, options: object): Int32Array;
  sample(bitmask: NativeDeviceBitmask, options: object): Int32Array;
  benchmark(kind: string, bitmask: NativeDeviceBitmask | null, iterations: number, options: object): number;
  synchronize(options: object): void;
  free(): void;
}

/** Where the addon is looked for, in order (see lib/native-loader.ts); files that do not exist included. */
export function addonCandidates(): string[] {
  return addonCandidateList().map((c) => c.file);
}

let loaded: LoadedAddon<NativeAddon> | undefined;
let failure: NativeAddonError | undefined;

/**
 * The loaded addon (loaded on first use). Throws a NativeAddonError saying what was tried and how
 * to build it when no addon can be loaded (the same error on every later call).
 */
export function native(): NativeAddon {
  return nativeAddon().addon;
}

/** The loaded addon with the file it came from and its origin (source build, prebuild, TAGMASK_ADDON). */
export function nativeAddon(): LoadedAddon<NativeAddon> {
  if (loaded) return loaded;
  if (failure) throw failure;
  let found: LoadedAddon<NativeAddon>;
  try {
    found = loadAddon<NativeAddon>();
  } catch (err) {
    if (err instanceof NativeAddonError) failure = err;
    throw err;
  }
  found.addon.setErrorClasses(nativeErrorClasses);
  loaded = found;
  return found;
}
