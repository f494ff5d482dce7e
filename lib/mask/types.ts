/**
 * Shapes and options shared by CPU and GPU masking.
 *
 * Layout (DESIGN.md): a bitmask is an `Int32Array` of shape `[rows, ceil(vocabSize / 32)]`;
 * token t is bit `t & 31` of word `t >> 5`; 1 = allowed. A logits row has `columns` values
 * (default: `stride`, else `vocabSize`), rows are `stride` values apart (default: `columns`).
 * Values at or past `vocabSize` (padding columns the mask does not cover) count as disallowed.
 */
import { InvalidArgumentError } from "../errors.js";

/** Element type of logits. On the CPU, float32 is a `Float32Array`; float16 and bfloat16 are raw bits in a `Uint16Array`. */
export type LogitsDType = "float32" | "float16" | "bfloat16";

/** Where the masks apply. Every size is checked; a mismatch throws `InvalidArgumentError` stating the expected size. */
export interface MaskShapeOptions {
  /** Tokens the bitmask covers; each bitmask row has `ceil(vocabSize / 32)` words. Required. */
  vocabSize: number;
  /** Logits per row (≥ vocabSize); those at or past vocabSize are set to -Infinity. Default: stride, else vocabSize. */
  columns?: number;
  /** Elements from one logits row to the next (≥ columns). Default: columns. */
  stride?: number;
  /** Logits rows. Default: the logits length divided by the stride (which must divide it). */
  rows?: number;
  /**
   * Only these logits rows are processed. Row `r` uses bitmask row `r` (xgrammar's convention),
   * or, with `compactBitmask`, `indices[k]` uses bitmask row `k`.
   */
  indices?: Int32Array | readonly number[];
  /** With `indices`: the bitmask holds one row per index, in order. Default false. */
  compactBitmask?: boolean;
  /** Element type; defaults to float32 for a Float32Array and bfloat16 for a Uint16Array. */
  dtype?: LogitsDType;
  /**
   * Resident masks (docs/masking.md): one ref per bitmask row, from `BatchMatcher.fillMaskRefs`.
   * A row's mask is then row `ref` of `maskStore` when `ref >= 0`, else row `~ref` of the bitmask
   * argument, which holds only the compact rows. Give both `refs` and `maskStore`, or neither.
   */
  refs?: Int32Array;
  /** The rows refs name: `CompiledGrammar.maskStore()`. */
  maskStore?: MaskStore;
}

/**
 * A compiled grammar's masks as whole bitmask rows (`CompiledGrammar.maskStore()`): every row a
 * sequence with one parse stack can need, deduplicated; `BatchMatcher.fillMaskRefs` names them.
 */
export interface MaskStore {
  /** Rows in the store. */
  count: number;
  /** Int32 words per row: ceil(vocabSize / 32). */
  wordsPerMask: number;
  /** Ids a row covers (the vocabulary the grammar was compiled against). */
  vocabSize: number;
  /** count × wordsPerMask words; row `id` starts at word `id * wordsPerMask`. */
  words: Int32Array;
}

/** Masked sampling: per-row parameters are typed arrays with one entry per processed row. */
export interface SampleOptions extends MaskShapeOptions {
  /** 0 = greedy (argmax); default 1. */
  temperature?: number | Float32Array;
  /** Keep the k highest logits (ties kept); 0 = no limit (default). */
  topK?: number | Int32Array;
  /** Keep the smallest set of highest logits whose probability reaches p (ties kept); 1 = no limit (default). */
  topP?: number | Float32Array;
  /** Seed of the draw; the draw of a row depends only on its seed and its logits row. Default 0. */
  seed?: number | bigint | BigUint64Array;
}

/** The largest vocabulary a bitmask covers (token ids are below 2^31). */
const MAX_VOCAB_SIZE = 2 ** 31;
/** The most words one bitmask holds (a typed array's length limit, with room to spare). */
const MAX_BITMASK_WORDS = 2 ** 31 - 1;

function checkVocabSize(vocabSize: number, what: string): void {
  if (!Number.isInteger(vocabSize) || vocabSize < 1 || vocabSize > MAX_VOCAB_SIZE) {
    throw new InvalidArgumentError(`${what}: vocabSize must be an integer from 1 to 2^31, got ${String(vocabSize)}`);
  }
}

/** Int32 words per bitmask row for a vocabulary: `ceil(vocabSize / 32)`. */
export function bitmaskWords(vocabSize: number): number {
  checkVocabSize(vocabSize, "bitmaskWords");
  return Math.ceil(vocabSize / 32);
}

/** The set bits of one bitmask word: how many of its 32 tokens are allowed. */
export function popcount32(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** A bitmask of `rows` rows for `vocabSize` tokens with every token allowed (all bits set). */
export function allocateTokenBitmask(rows: number, vocabSize: number): Int32Array {
  checkVocabSize(vocabSize, "allocateTokenBitmask");
  if (!Number.isInteger(rows) || rows < 0) {
    throw new InvalidArgumentError(`allocateTokenBitmask: rows must be a non-negative integer, got ${String(rows)}`);
  }
  const words = rows * Math.ceil(vocabSize / 32);
  if (words > MAX_BITMASK_WORDS) {
    throw new InvalidArgumentError(
      `allocateTokenBitmask: ${rows} rows of ${vocabSize} tokens need ${words} int32 words, more than one array holds (${MAX_BITMASK_WORDS}); split the batch`,
    );
  }
  return new Int32Array(words).fill(-1);
}
