/**
 * Compiling a grammar against a vocabulary: {@link compileGrammar} (on the calling thread),
 * {@link compileGrammarAsync} (off the event loop: lowering on a worker thread, the native
 * compilation on libuv's pool, cancellable), and the {@link CompiledGrammar} they return. The
 * native side builds the automata and the per-state mask cache (docs/engine.md).
 */
import { InvalidArgumentError } from "../errors.js";
import { serializeGrammar, type IrGrammar } from "../compile/ir.js";
import { lowerFormat, type LowerOptions } from "../compile/lower.js";
import type { Format, StructuralTag } from "../format/types.js";
import { DeviceMaskStore, type StreamLike } from "../mask/cuda.js";
import type { MaskStore } from "../mask/types.js";
import { native, type NativeCompiledGrammar, type NativeCompileStats, type NativeTokenizerInfoHandle } from "../native.js";
import type { TokenizerInfo } from "../tokenizer/tokenizer-info.js";
import { NativeCompileRun, type CompileProgress } from "./compile-run.js";
import { abortErrorOf, lowerOffThread, warmUpLowering } from "./lowering-pool.js";

/**
 * What can be compiled: grammar IR, its serialized bytes (serializeGrammar), or a structural tag
 * or bare format, which is lowered first (lowerFormat).
 */
export type GrammarSource = IrGrammar | Uint8Array | StructuralTag | Format;

/** Options of {@link compileGrammar}. */
export interface CompileOptions {
  /**
   * Threads that build the mask cache: 1 compiles on the calling thread only; 0 (default) uses
   * the shared native thread pool (see `setThreadPoolSize`).
   */
  threads?: number;
  /** How a structural tag or format is lowered (lowerFormat's `simplify`, `cache` and `undeclared`). */
  lowering?: Pick<LowerOptions, "simplify" | "cache" | "undeclared">;
}

/** Options of {@link compileGrammarAsync}. */
export interface CompileAsyncOptions extends CompileOptions {
  /**
   * Gives up on the compilation: the promise rejects at once with an AbortError (the signal's
   * reason as its `cause`), and the work stops and is freed (its lowering worker is stopped, the
   * native compilation stops at its next checkpoint, within milliseconds).
   */
  signal?: AbortSignal;
  /** Called as the compilation goes (at most every 25 ms while the native part runs). */
  onProgress?: (progress: CompileProgress) => void;
}

/** What a compilation produced and how long it took. */
export interface CompileStats {
  /** Milliseconds reading the IR, building the automata, building the mask cache, in total. */
  readMs: number;
  automatonMs: number;
  masksMs: number;
  totalMs: number;
  /** Rules kept as calls (recursion); every other rule was inlined. */
  rules: number;
  keptRules: string[];
  /** Automaton states (the dead state included) and byte classes. */
  states: number;
  byteClasses: number;
  nfaStates: number;
  /** Token-trie nodes the mask builder visited, over all states. */
  trieNodesVisited: number;
  /** Steps of the mask cache counted against its work budget (docs/engine.md, "Limits"). */
  maskWork: number;
  /**
   * States the mask builder walked the tries from; every other state agrees with one of them on
   * all byte strings up to the longest token and takes its mask (docs/engine.md).
   */
  walkedStates: number;
  /**
   * States whose mask is filled at run time along the byte string they are forced to read (most
   * states of a large string enum): neither walked nor stored (docs/engine.md).
   */
  chainStates: number;
  /** Distinct stored masks, by form. */
  distinctMasks: number;
  listMasks: number;
  complementMasks: number;
  bitsetMasks: number;
  /** Tokens checked against the real stack at fill time, summed over states. */
  uncertainTokens: number;
  statesWithUncertain: number;
  /** Of those, per (state, frame below) pair, the ones still checked against the whole stack. */
  residualTokens: number;
  /** Of those, entries decided by a remainder's arithmetic at fill time (multipleOf counters). */
  residueTokens: number;
  threads: number;
}

/** A grammar compiled against one vocabulary. Immutable; share it between matchers. */
export class CompiledGrammar {
  /** The vocabulary it was compiled against. */
  readonly tokenizer: TokenizerInfo;
  /** The native handle (for the batch path and integrations). */
  readonly handle: NativeCompiledGrammar;

  /** @internal Use {@link compileGrammar}. */
  constructor(tokenizer: TokenizerInfo, handle: NativeCompiledGrammar) {
    this.tokenizer = tokenizer;
    this.handle = handle;
  }

  /** Bytes held natively by the automaton and the mask cache (not the shared vocabulary). */
  get memoryBytes(): number {
    return this.handle.memoryBytes;
  }
  /** Automaton states, the dead state included. */
  get stateCount(): number {
    return this.handle.stateCount;
  }
  /** Ids a bitmask row covers (the model's vocabulary size). */
  get vocabSize(): number {
    return this.handle.vocabSize;
  }
  /** Compile statistics. */
  stats(): CompileStats {
    const s: NativeCompileStats = this.handle.stats();
    return { ...s, keptRules: [...s.keptRules] };
  }

  /**
   * The grammar's masks as whole bitmask rows (docs/masking.md, "Resident masks"): every row a
   * sequence with one parse stack can need, deduplicated — what `BatchMatcher.fillMaskRefs`
   * names by id. Built natively on first use (count × ceil(V/32) words, then part of
   * {@link memoryBytes}); each call returns a fresh copy. Past 512 MiB no more rows are added; the
   * masks left out then reach the device as compact rows.
   *
   * @example
   * const store = compiled.maskStore();
   * const { compactRows } = batch.fillMaskRefs(refs, compact);
   * applyTokenBitmask(logits, compact, { vocabSize: store.vocabSize, refs, maskStore: store });
   */
  maskStore(): MaskStore {
    return this.handle.maskStore();
  }

  /**
   * Copies {@link maskStore}'s rows to a CUDA device, once per device (later calls return a
   * handle to the same memory); the copy has finished when this returns. The kernels of
   * `DeviceLogits` read them through refs (`options.refs` and `options.maskStore`), so only the
   * refs and the compact rows cross PCIe per step. The memory (`bytes`) is freed with this
   * grammar, or by `DeviceMaskStore.free()`. Throws DeviceError without a usable device.
   */
  uploadMasks(device = 0, options: { stream?: StreamLike } = {}): DeviceMaskStore {
    if (options === null || typeof options !== "object") throw new InvalidArgumentError("CompiledGrammar.uploadMasks: options must be an object");
    const { stream } = options;
    const handle = this.handle.uploadMasks(device, stream === undefined ? {} : { stream: typeof stream === "bigint" ? stream : stream.handle });
    return new DeviceMaskStore(handle, this);
  }
}

/** Whether a source is grammar IR or its bytes (the rest is a structural tag or format). */
function isIr(source: GrammarSource): source is IrGrammar | Uint8Array {
  return source instanceof Uint8Array || Array.isArray((source as IrGrammar).rules);
}

function checkSource(source: GrammarSource, what: string): void {
  if (source === null || typeof source !== "object") {
    throw new InvalidArgumentError(`${what}: grammar must be an IrGrammar ({rules, root}), its serialized Uint8Array, a structural tag or a format`);
  }
}

/** The serialized IR of a source, lowering a structural tag or format on the calling thread. */
export function grammarBytes(source: GrammarSource, what: string, lowering: CompileOptions["lowering"] = {}): Uint8Array {
  checkSource(source, what);
  if (source instanceof Uint8Array) return source;
  return serializeGrammar(isIr(source) ? source : lowerFormat(source, lowering));
}

/**
 * The serialized IR of a source; a structural tag or format is lowered on a lowering worker
 * thread (reporting `lower` progress), IR is serialized here.
 */
export async function grammarBytesAsync(source: GrammarSource, what: string, options: CompileAsyncOptions): Promise<Uint8Array> {
  checkSource(source, what);
  if (isIr(source)) return grammarBytes(source, what);
  const { onProgress } = options;
  return lowerOffThread(source, {
    ...options.lowering,
    signal: options.signal,
    onProgress: onProgress && ((done, total) => onProgress({ phase: "lower", done, total })),
  });
}

/** The options of an async compilation, checked; a bad one is an InvalidArgumentError naming it. */
export function asyncOptions(options: CompileAsyncOptions | undefined, what: string): CompileAsyncOptions & { native: { threads?: number } } {
  const checked = { ...(options ?? {}), native: nativeOptions(options, what) };
  const { signal, onProgress } = checked;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InvalidArgumentError(`${what}: options.signal must be an AbortSignal`);
  if (onProgress !== undefined && typeof onProgress !== "function") throw new InvalidArgumentError(`${what}: options.onProgress must be a function`);
  return checked;
}

export function nativeTokenizer(tokenizer: TokenizerInfo, what: string): NativeTokenizerInfoHandle {
  if (tokenizer === null || typeof tokenizer !== "object" || typeof (tokenizer as { native?: unknown }).native !== "function") {
    throw new InvalidArgumentError(`${what}: tokenizer must be a TokenizerInfo (lib/tokenizer)`);
  }
  return tokenizer.native() as NativeTokenizerInfoHandle;
}

export function nativeOptions(options: CompileOptions | undefined, what: string): { threads?: number } {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object") throw new InvalidArgumentError(`${what}: options must be an object`);
  const { threads } = options;
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 0 || threads > 1024)) {
    throw new InvalidArgumentError(`${what}: options.threads must be an integer in [0, 1024], got ${String(threads)}`);
  }
  return threads === undefined ? {} : { threads };
}

/**
 * Compiles a grammar (IR, its serialized bytes, or a structural tag or format, lowered first)
 * against a vocabulary on the calling thread. Throws GrammarError for an invalid or unsupported
 * grammar (left recursion, size limits), and the lowering's errors for a bad format.
 *
 * @example
 * const compiled = compileGrammar(tokenizer, grammar);
 * const matcher = new GrammarMatcher(compiled);
 */
export function compileGrammar(tokenizer: TokenizerInfo, grammar: GrammarSource, options?: CompileOptions): CompiledGrammar {
  const tok = nativeTokenizer(tokenizer, "compileGrammar");
  const threads = nativeOptions(options, "compileGrammar");
  const handle = native().compileGrammar(tok, grammarBytes(grammar, "compileGrammar", options?.lowering), threads);
  return new CompiledGrammar(tokenizer, handle);
}

/**
 * Warms up {@link compileGrammarAsync}'s lowering worker (see docs/engine.md): its first-use
 * automata and code are ready before the first real request. Resolves when done; `signal` stops it.
 *
 * @example
 * await warmUpCompiler(); // at server start-up
 */
export function warmUpCompiler(signal?: AbortSignal): Promise<void> {
  if (signal !== undefined && !(signal instanceof AbortSignal)) return Promise.reject(new InvalidArgumentError("warmUpCompiler: signal must be an AbortSignal"));
  return warmUpLowering(signal);
}

/**
 * Compiles off the event loop: a structural tag or format is lowered on a worker thread, the
 * native compilation runs on libuv's thread pool (the mask cache on the native pool), and the
 * event loop keeps running meanwhile. `signal` cancels it, `onProgress` follows it. Errors reject
 * the promise with the same typed errors as {@link compileGrammar}.
 *
 * @example
 * const controller = new AbortController();
 * const compiled = await compileGrammarAsync(tokenizer, structuralTag, {
 *   signal: controller.signal,
 *   onProgress: ({ phase, done, total }) => console.log(phase, done, total),
 * });
 */
export async function compileGrammarAsync(tokenizer: TokenizerInfo, grammar: GrammarSource, options?: CompileAsyncOptions): Promise<CompiledGrammar> {
  const what = "compileGrammarAsync";
  const tok = nativeTokenizer(tokenizer, what);
  const checked = asyncOptions(options, what);
  const bytes = await grammarBytesAsync(grammar, what, checked);
  if (checked.signal?.aborted) throw abortErrorOf(checked.signal);
  const handle = await new NativeCompileRun(tok, bytes, checked.native).wait(checked.signal, checked.onProgress);
  return new CompiledGrammar(tokenizer, handle);
}
