/**
 * {@link BatchMatcher}: many sequences stepped together, as a batched server does at every
 * decoding step: fill all their masks into one bitmask, accept one token per sequence, roll
 * back. The work runs natively on the shared thread pool (see {@link setThreadPoolSize}); the
 * `…Async` forms return a Promise and leave the event loop free while the pool works.
 */
import type { TagmaskError } from "../errors.js";
import { InvalidArgumentError } from "../errors.js";
import { native, type NativeBatchMatcher } from "../native.js";
import { CompiledGrammar } from "./compiled-grammar.js";
import { GrammarMatcher } from "./matcher.js";

/** A failure of one row; the other rows completed normally. */
export interface BatchRowError {
  /** The row (index into the batch's matchers). */
  row: number;
  /** The typed error (e.g. MatcherStateError for a matcher in its error state). */
  error: TagmaskError;
}

/** Result of {@link BatchMatcher.acceptTokens}. */
export interface BatchAcceptResult {
  /** 1 where the row's matcher accepted its token, 0 where the grammar rejected it (state unchanged), the row was skipped (-1) or failed. */
  accepted: Uint8Array;
  errors: BatchRowError[];
}

/** Options of {@link BatchMatcher.fillMaskRefs}. */
export interface FillMaskRefsOptions {
  /** Only these rows (each once); the others' refs are left as they are. Default: every row. */
  rows?: Int32Array | readonly number[];
  /**
   * The grammar whose mask store the refs name. Default: the grammar every matcher shares (an
   * error when they use several); rows of other grammars always get compact rows.
   */
  grammar?: CompiledGrammar;
}

/** Result of {@link BatchMatcher.fillMaskRefs}. */
export interface FillMaskRefsResult {
  /** Compact rows written: rows 0 .. compactRows-1 of `compact` (what to upload). */
  compactRows: number;
  errors: BatchRowError[];
}

/** Options of a {@link BatchMatcher}. */
export interface BatchMatcherOptions {
  /** Split rows over the shared thread pool (default true); false runs every row on one thread. */
  parallel?: boolean;
}

/**
 * N matchers stepped together. Row r of every bitmask belongs to `matchers[r]`. A failure in one
 * row (a matcher in its error state, a token id out of range, a rollback past the start) is
 * reported for that row in the result's `errors`; the other rows are done normally, and a
 * failed fill leaves its row all zero (nothing allowed).
 *
 * While an asynchronous call is pending, the batch refuses other calls, and its matchers are
 * held: calling one of them directly, or a call of another batch sharing one, throws
 * MatcherStateError until the operation settles.
 *
 * @example
 * const batch = new BatchMatcher(sequences.map((s) => s.matcher));
 * const { bitmask, errors } = await batch.fillNextTokenBitmasksAsync();
 * applyTokenBitmask(logits, bitmask, { vocabSize: batch.vocabSize });
 * batch.acceptTokens(sampledIds);
 */
export class BatchMatcher {
  /** The matchers, one per row. */
  readonly matchers: readonly GrammarMatcher[];
  readonly #native: NativeBatchMatcher;

  constructor(matchers: readonly GrammarMatcher[], options: BatchMatcherOptions = {}) {
    if (!Array.isArray(matchers)) throw new InvalidArgumentError("BatchMatcher: matchers must be an array of GrammarMatcher");
    matchers.forEach((m, i) => {
      if (!(m instanceof GrammarMatcher)) throw new InvalidArgumentError(`BatchMatcher: matchers[${i}] is not a GrammarMatcher`);
    });
    if (options === null || typeof options !== "object") throw new InvalidArgumentError("BatchMatcher: options must be an object");
    this.matchers = Object.freeze([...matchers]);
    this.#native = new (native().BatchMatcher)(
      matchers.map((m) => m.handle),
      options.parallel === undefined ? {} : { parallel: options.parallel },
    );
  }

  /** Rows (matchers) in the batch. */
  get size(): number {
    return this.#native.size;
  }

  /** Ids a bitmask row covers (the matchers' vocabulary size). */
  get vocabSize(): number {
    return this.matchers[0]!.vocabSize;
  }

  /** Int32 words per bitmask row: ceil(vocabSize / 32). */
  get maskWords(): number {
    return this.#native.maskWords;
  }

  /**
   * The batch's own bitmask, shape [size, maskWords], where {@link fillNextTokenBitmasksAsync}
   * (and {@link fillNextTokenBitmasks} without `out`) write. Do not read it while an asynchronous
   * fill is pending.
   */
  get bitmask(): Int32Array {
    return this.#native.bitmask;
  }

  /** Whether an asynchronous call is pending. */
  get busy(): boolean {
    return this.#native.busy;
  }

  /**
   * Fills the masks of every row (or of `rows` only) into `out` (default: {@link bitmask}), row r
   * at word r * maskWords. Synchronous: the calling thread works on rows together with the pool.
   * `out` must hold at least size * maskWords words. Returns the rows that failed.
   */
  fillNextTokenBitmasks(out?: Int32Array, rows?: Int32Array | readonly number[]): BatchRowError[] {
    return this.#native.fill(out, rows);
  }

  /** Like {@link fillNextTokenBitmasks}, on the pool, into {@link bitmask}; the event loop stays free. */
  fillNextTokenBitmasksAsync(rows?: Int32Array | readonly number[]): Promise<{ bitmask: Int32Array; errors: BatchRowError[] }> {
    return this.#native.fillAsync(rows);
  }

  /**
   * Mask references for masking with the masks resident on the device (docs/masking.md): for
   * each row r, `refs[r]` = the id of the row of the grammar's mask store
   * (`CompiledGrammar.maskStore()` / `uploadMasks()`) equal to row r's mask, or a negative value
   * `~k` when the mask is none of them (several parse stacks, tokens decided by the stack below,
   * a row of another grammar, a failed row): its dense mask is then written as compact row k of
   * `compact` (words k·maskWords …). Compact rows are numbered from 0 in row order, so only the
   * first `compactRows` rows of `compact` need to reach the device. Expanding every ref equals
   * {@link fillNextTokenBitmasks} bit for bit.
   *
   * `refs` must hold `size` entries; `compact` room for every filled row (`size` rows, or one per
   * entry of `options.rows`). A failed row gets a zeroed compact row and an entry in `errors`.
   * Synchronous; allocation-free natively.
   *
   * @example
   * const store = compiled.uploadMasks(0, { stream });
   * const refs = new Int32Array(batch.size);
   * const pinned = cuda.allocatePinnedBitmask(batch.size, batch.vocabSize);
   * const { compactRows } = batch.fillMaskRefs(refs, pinned.array);
   * compact.upload(pinned, { stream, rows: compactRows });
   * const tokens = logits.sample(compact, { refs, maskStore: store, temperature: 0.7, seed: step });
   */
  fillMaskRefs(refs: Int32Array, compact: Int32Array, options: FillMaskRefsOptions = {}): FillMaskRefsResult {
    if (options === null || typeof options !== "object") throw new InvalidArgumentError("BatchMatcher.fillMaskRefs: options must be an object");
    const { rows, grammar } = options;
    if (grammar !== undefined && !(grammar instanceof CompiledGrammar)) {
      throw new InvalidArgumentError("BatchMatcher.fillMaskRefs: options.grammar must be a CompiledGrammar");
    }
    return this.#native.fillRefs(refs, compact, { rows, grammar: grammar?.handle });
  }

  /** Accepts tokens[r] in row r (-1 skips the row). */
  acceptTokens(tokens: Int32Array | readonly number[]): BatchAcceptResult {
    return this.#native.accept(tokens);
  }

  /** Like {@link acceptTokens}, on the pool. */
  acceptTokensAsync(tokens: Int32Array | readonly number[]): Promise<BatchAcceptResult> {
    return this.#native.acceptAsync(tokens);
  }

  /** Rolls every row back `steps` steps, or row r back steps[r]. */
  rollback(steps: number | Int32Array | readonly number[]): BatchRowError[] {
    return this.#native.rollback(steps);
  }

  /** Like {@link rollback}, on the pool. */
  rollbackAsync(steps: number | Int32Array | readonly number[]): Promise<BatchRowError[]> {
    return this.#native.rollbackAsync(steps);
  }
}
