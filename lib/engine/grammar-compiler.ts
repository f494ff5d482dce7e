/**
 * {@link GrammarCompiler}: compiles grammars with a cache keyed by the grammar's bytes and the
 * vocabulary, bounded in bytes (least recently used entries go first).
 */
import { InvalidArgumentError } from "../errors.js";
import type { TokenizerInfo } from "../tokenizer/tokenizer-info.js";
import type { NativeTokenizerInfoHandle } from "../native.js";
import {
  asyncOptions, CompiledGrammar, compileGrammar, grammarBytes, grammarBytesAsync, nativeTokenizer, type CompileAsyncOptions,
  type CompileOptions, type GrammarSource,
} from "./compiled-grammar.js";
import { NativeCompileRun } from "./compile-run.js";
import { abortErrorOf } from "./lowering-pool.js";

/** Options of one {@link GrammarCompiler.compileAsync} call. */
export type CompileCallOptions = Pick<CompileAsyncOptions, "signal" | "onProgress">;

/** Options of a {@link GrammarCompiler}. */
export interface GrammarCompilerOptions extends CompileOptions {
  /** Upper bound of the cached compiled grammars' native memory, in bytes. Default 256 MiB; 0 disables caching. */
  cacheBytes?: number;
}

/** Cache counters of a {@link GrammarCompiler}. */
export interface GrammarCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

interface Entry {
  compiled: CompiledGrammar;
  bytes: number;
}

const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * Compiles grammars and keeps the results: compiling the same grammar bytes against the same
 * vocabulary again returns the same {@link CompiledGrammar}. Concurrent async compilations of
 * one key share one native compilation.
 *
 * @example
 * const compiler = new GrammarCompiler({ cacheBytes: 64 << 20 });
 * const a = compiler.compile(tokenizer, grammar);
 * const b = compiler.compile(tokenizer, grammar); // a === b
 */
export class GrammarCompiler {
  private readonly cacheBytes: number;
  private readonly compileOptions: CompileOptions;
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, NativeCompileRun>();
  private total = 0;
  private counters = { hits: 0, misses: 0, evictions: 0 };

  constructor(options: GrammarCompilerOptions = {}) {
    if (options === null || typeof options !== "object") {
      throw new InvalidArgumentError(`new GrammarCompiler(options): options must be an object, got ${options === null ? "null" : typeof options}`);
    }
    const { cacheBytes = DEFAULT_CACHE_BYTES, ...compileOptions } = options;
    if (!Number.isFinite(cacheBytes) || cacheBytes < 0) {
      throw new InvalidArgumentError(`GrammarCompiler: options.cacheBytes must be a non-negative number, got ${String(cacheBytes)}`);
    }
    this.cacheBytes = cacheBytes;
    this.compileOptions = compileOptions;
  }

  /**
   * Compiles (or returns the cached result) on the calling thread. A structural tag or format is
   * lowered first (lowerFormat, whose own cache keeps the tools it saw).
   */
  compile(tokenizer: TokenizerInfo, grammar: GrammarSource): CompiledGrammar {
    const bytes = grammarBytes(grammar, "GrammarCompiler.compile", this.compileOptions.lowering);
    const key = this.key(tokenizer, bytes);
    const hit = this.lookup(key);
    if (hit) return hit;
    this.counters.misses++;
    const compiled = compileGrammar(tokenizer, bytes, this.compileOptions);
    this.store(key, compiled);
    return compiled;
  }

  /**
   * Compiles (or returns the cached result) off the event loop, like compileGrammarAsync: a
   * structural tag or format is lowered on a lowering worker, the native compilation runs on
   * libuv's pool. Concurrent calls for the same grammar share one native compilation; `signal`
   * gives up on this call (the shared compilation stops once every caller waiting for it gave up),
   * `onProgress` follows it.
   */
  async compileAsync(tokenizer: TokenizerInfo, grammar: GrammarSource, options?: CompileCallOptions): Promise<CompiledGrammar> {
    const what = "GrammarCompiler.compileAsync";
    const tok = nativeTokenizer(tokenizer, what);
    const checked = asyncOptions({ ...this.compileOptions, ...options }, what);
    const bytes = await grammarBytesAsync(grammar, what, checked);
    if (checked.signal?.aborted) throw abortErrorOf(checked.signal);
    const key = this.key(tokenizer, bytes);
    const hit = this.lookup(key);
    if (hit) return hit;
    let run = this.pending.get(key);
    if (run && !run.cancelled) {
      this.counters.hits++;
    } else {
      this.counters.misses++;
      const started = new NativeCompileRun(tok, bytes, checked.native);
      this.pending.set(key, started);
      run = started;
    }
    try {
      const compiled = new CompiledGrammar(tokenizer, await run.wait(checked.signal, checked.onProgress));
      this.store(key, compiled);
      return this.entries.get(key)?.compiled ?? compiled;
    } finally {
      if (this.pending.get(key) === run && (run.cancelled || run.finished)) this.pending.delete(key);
    }
  }

  /** Cache counters. */
  get cacheStats(): GrammarCacheStats {
    return { entries: this.entries.size, bytes: this.total, ...this.counters };
  }

  /** Drops every cached grammar (matchers keep theirs alive). */
  clearCache(): void {
    this.entries.clear();
    this.total = 0;
  }

  private key(tokenizer: TokenizerInfo, bytes: Uint8Array): string {
    const handle = tokenizer.native() as NativeTokenizerInfoHandle;
    // Exact: the vocabulary's 64-bit fingerprint and the grammar's bytes themselves.
    return `${handle.fingerprint}:${handle.vocabSize}:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`;
  }

  private lookup(key: string): CompiledGrammar | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.counters.hits++;
    return entry.compiled;
  }

  private store(key: string, compiled: CompiledGrammar): void {
    const bytes = compiled.memoryBytes + key.length * 2;
    if (bytes > this.cacheBytes || this.entries.has(key)) return;
    this.entries.set(key, { compiled, bytes });
    this.total += bytes;
    for (const [k, e] of this.entries) {
      if (this.total <= this.cacheBytes) break;
      this.entries.delete(k);
      this.total -= e.bytes;
      this.counters.evictions++;
    }
  }
}
