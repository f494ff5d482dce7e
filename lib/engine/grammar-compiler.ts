/**
 * {@link GrammarCompiler}: compiles grammars with a cache keyed by the grammar's bytes and the
 * vocabulary, bounded in bytes (least recently used entries go first).
 */
import { createHash } from "node:crypto";
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
  /** A copy of the grammar's bytes: a hit must match them, not only their digest. */
  grammar: Uint8Array;
  bytes: number;
}

/** A shared native compilation and the grammar bytes it compiles. */
interface Pending {
  run: NativeCompileRun;
  grammar: Uint8Array;
}

/** Whether two byte strings are equal (views, no copies). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
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
  private readonly pending = new Map<string, Pending>();
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
    const hit = this.lookup(key, bytes);
    if (hit) return hit;
    this.counters.misses++;
    const compiled = compileGrammar(tokenizer, bytes, this.compileOptions);
    this.store(key, bytes.slice(), compiled);
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
    const hit = this.lookup(key, bytes);
    if (hit) return hit;
    // The bytes as they are now: the caller may change its buffer while the compilation runs.
    let { run, grammar: snapshot } = this.pending.get(key) ?? {};
    if (run && snapshot && !run.cancelled && sameBytes(snapshot, bytes)) {
      this.counters.hits++;
    } else {
      this.counters.misses++;
      snapshot = bytes.slice();
      run = new NativeCompileRun(tok, snapshot, checked.native);
      this.pending.set(key, { run, grammar: snapshot });
    }
    try {
      const compiled = new CompiledGrammar(tokenizer, await run.wait(checked.signal, checked.onProgress));
      this.store(key, snapshot, compiled);
      return this.cached(key, snapshot)?.compiled ?? compiled;
    } finally {
      if (this.pending.get(key)?.run === run && (run.cancelled || run.finished)) this.pending.delete(key);
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
    // The vocabulary's 64-bit fingerprint and the grammar's digest; an entry also keeps the bytes,
    // which a hit must match. (The bytes themselves as the key, in base64, made a hit on a 50-tool
    // grammar cost 3.9 ms of CPU, nearly all of it encoding and comparing 227 KB of text.)
    return `${handle.fingerprint}:${handle.vocabSize}:${createHash("sha256").update(bytes).digest("base64")}`;
  }

  /** The entry of these grammar bytes, if cached. */
  private cached(key: string, bytes: Uint8Array): Entry | undefined {
    const entry = this.entries.get(key);
    return entry && sameBytes(entry.grammar, bytes) ? entry : undefined;
  }

  private lookup(key: string, bytes: Uint8Array): CompiledGrammar | undefined {
    const entry = this.cached(key, bytes);
    if (!entry) return undefined;
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.counters.hits++;
    return entry.compiled;
  }

  /** Keeps `compiled` under `key`; `grammar` is the entry's own copy of the bytes (never changed after). */
  private store(key: string, grammar: Uint8Array, compiled: CompiledGrammar): void {
    const bytes = compiled.memoryBytes + key.length * 2 + grammar.byteLength;
    if (bytes > this.cacheBytes || this.entries.has(key)) return;
    this.entries.set(key, { compiled, grammar, bytes });
    this.total += bytes;
    for (const [k, e] of this.entries) {
      if (this.total <= this.cacheBytes) break;
      this.entries.delete(k);
      this.total -= e.bytes;
      this.counters.evictions++;
    }
  }
}
