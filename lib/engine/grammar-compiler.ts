/**
 * {@link GrammarCompiler}: compiles grammars with a cache keyed by the grammar's bytes and the
 * vocabulary, bounded in bytes (least recently used entries go first).
 */
import { InvalidArgumentError } from "../errors.js";
import { serializeGrammar, type IrGrammar } from "../compile/ir.js";
import type { TokenizerInfo } from "../tokenizer/tokenizer-info.js";
import type { NativeTokenizerInfoHandle } from "../native.js";
import { compileGrammar, compileGrammarAsync, type CompiledGrammar, type CompileOptions } from "./compiled-grammar.js";

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
  private readonly pending = new Map<string, Promise<CompiledGrammar>>();
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

  /** Compiles (or returns the cached result) on the calling thread. */
  compile(tokenizer: TokenizerInfo, grammar: IrGrammar | Uint8Array): CompiledGrammar {
    const bytes = grammar instanceof Uint8Array ? grammar : serializeGrammar(grammar);
    const key = this.key(tokenizer, bytes);
    const hit = this.lookup(key);
    if (hit) return hit;
    this.counters.misses++;
    const compiled = compileGrammar(tokenizer, bytes, this.compileOptions);
    this.store(key, compiled);
    return compiled;
  }

  /** Compiles (or returns the cached result) on a worker thread. */
  compileAsync(tokenizer: TokenizerInfo, grammar: IrGrammar | Uint8Array): Promise<CompiledGrammar> {
    const bytes = grammar instanceof Uint8Array ? grammar : serializeGrammar(grammar);
    const key = this.key(tokenizer, bytes);
    const hit = this.lookup(key);
    if (hit) return Promise.resolve(hit);
    const inFlight = this.pending.get(key);
    if (inFlight) {
      this.counters.hits++;
      return inFlight;
    }
    this.counters.misses++;
    const promise = compileGrammarAsync(tokenizer, bytes, this.compileOptions).then(
      (compiled) => {
        this.pending.delete(key);
        this.store(key, compiled);
        return compiled;
      },
      (err: unknown) => {
        this.pending.delete(key);
        throw err;
      },
    );
    this.pending.set(key, promise);
    return promise;
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
