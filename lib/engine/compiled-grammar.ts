/**
 * Compiling a grammar against a vocabulary: {@link compileGrammar} (on the calling thread),
 * {@link compileGrammarAsync} (on a worker thread), and the {@link CompiledGrammar} they return.
 * The native side builds the automata and the per-state mask cache (docs/engine.md).
 */
import { InvalidArgumentError } from "../errors.js";
import { serializeGrammar, type IrGrammar } from "../compile/ir.js";
import { DeviceMaskStore, type StreamLike } from "../mask/cuda.js";
import type { MaskStore } from "../mask/types.js";
import { native, type NativeCompiledGrammar, type NativeCompileStats, type NativeTokenizerInfoHandle } from "../native.js";
import type { TokenizerInfo } from "../tokenizer/tokenizer-info.js";

/** Options of {@link compileGrammar}. */
export interface CompileOptions {
  /**
   * Threads that build the mask cache: 1 compiles on the calling thread only; 0 (default) uses
   * the shared native thread pool (see `setThreadPoolSize`).
   */
  threads?: number;
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
  /**
   * States the mask builder walked the tries from; every other state agrees with one of them on
   * all byte strings up to the longest token and takes its mask (docs/engine.md).
   */
  walkedStates: number;
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

function grammarBytes(grammar: IrGrammar | Uint8Array, what: string): Uint8Array {
  if (grammar instanceof Uint8Array) return grammar;
  if (grammar === null || typeof grammar !== "object" || !Array.isArray((grammar as IrGrammar).rules)) {
    throw new InvalidArgumentError(`${what}: grammar must be an IrGrammar ({rules, root}) or its serialized Uint8Array`);
  }
  return serializeGrammar(grammar);
}

function nativeTokenizer(tokenizer: TokenizerInfo, what: string): NativeTokenizerInfoHandle {
  if (tokenizer === null || typeof tokenizer !== "object" || typeof (tokenizer as { native?: unknown }).native !== "function") {
    throw new InvalidArgumentError(`${what}: tokenizer must be a TokenizerInfo (lib/tokenizer)`);
  }
  return tokenizer.native() as NativeTokenizerInfoHandle;
}

function nativeOptions(options: CompileOptions | undefined, what: string): { threads?: number } {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object") throw new InvalidArgumentError(`${what}: options must be an object`);
  const { threads } = options;
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 0 || threads > 1024)) {
    throw new InvalidArgumentError(`${what}: options.threads must be an integer in [0, 1024], got ${String(threads)}`);
  }
  return threads === undefined ? {} : { threads };
}

/**
 * Compiles a grammar (IR or its serialized bytes) against a vocabulary on the calling thread.
 * Throws GrammarError for an invalid or unsupported grammar (left recursion, size limits).
 *
 * @example
 * const compiled = compileGrammar(tokenizer, grammar);
 * const matcher = new GrammarMatcher(compiled);
 */
export function compileGrammar(tokenizer: TokenizerInfo, grammar: IrGrammar | Uint8Array, options?: CompileOptions): CompiledGrammar {
  const handle = native().compileGrammar(nativeTokenizer(tokenizer, "compileGrammar"), grammarBytes(grammar, "compileGrammar"),
    nativeOptions(options, "compileGrammar"));
  return new CompiledGrammar(tokenizer, handle);
}

/**
 * Compiles on a worker thread: the event loop keeps running. The arguments are checked and
 * copied before it returns; errors reject the promise with the same typed errors.
 */
export async function compileGrammarAsync(tokenizer: TokenizerInfo, grammar: IrGrammar | Uint8Array, options?: CompileOptions): Promise<CompiledGrammar> {
  const handle = await native().compileGrammarAsync(nativeTokenizer(tokenizer, "compileGrammarAsync"),
    grammarBytes(grammar, "compileGrammarAsync"), nativeOptions(options, "compileGrammarAsync"));
  return new CompiledGrammar(tokenizer, handle);
}
