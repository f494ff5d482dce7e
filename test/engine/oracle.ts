/**
 * Brute-force masks from the reference recognizer (lib/compile/recognizer.ts), the oracle the
 * engine's masks are compared with: a token is allowed iff the output extended by its bytes is a
 * viable prefix; stop tokens iff the output is a complete match; control tokens and padding ids
 * never. The vocabulary is walked in sorted byte order so that common prefixes are stepped once.
 */
import type { IrGrammar } from "../../lib/compile/ir.js";
import { Recognizer, type RecognizerState } from "../../lib/compile/recognizer.js";
import { TokenKind, type VocabularyData } from "../../lib/tokenizer/vocabulary.js";

interface SortedVocab {
  /** Eligible token ids (text tokens with at least one byte) in byte order. */
  order: Uint32Array;
  stop: Set<number>;
}

const sortedCache = new WeakMap<VocabularyData, SortedVocab>();

function sorted(vocab: VocabularyData): SortedVocab {
  let s = sortedCache.get(vocab);
  if (s) return s;
  const ids: number[] = [];
  const count = vocab.kinds.length;
  for (let id = 0; id < count; id++) {
    if (vocab.kinds[id] !== TokenKind.Control && vocab.offsets[id + 1]! > vocab.offsets[id]!) ids.push(id);
  }
  const bytesOf = (id: number) => vocab.bytes.subarray(vocab.offsets[id]!, vocab.offsets[id + 1]!);
  ids.sort((x, y) => Buffer.compare(bytesOf(x), bytesOf(y)) || x - y);
  s = { order: Uint32Array.from(ids), stop: new Set(vocab.stopTokenIds) };
  sortedCache.set(vocab, s);
  return s;
}

/** Words of one mask row. */
export function maskWords(vocabSize: number): number {
  return Math.ceil(vocabSize / 32);
}

/** Whether token `id` is set in a row. */
export function maskHas(mask: Int32Array, id: number): boolean {
  return ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;
}

/** Ids set in `a` but not in `b`, and in `b` but not in `a`. */
export function maskDiff(a: Int32Array, b: Int32Array, vocabSize: number): { onlyA: number[]; onlyB: number[] } {
  const onlyA: number[] = [];
  const onlyB: number[] = [];
  for (let w = 0; w < maskWords(vocabSize); w++) {
    const x = a[w]! ^ b[w]!;
    if (x === 0) continue;
    for (let bit = 0; bit < 32; bit++) {
      if (((x >>> bit) & 1) === 0) continue;
      const id = w * 32 + bit;
      (((a[w]! >>> bit) & 1) === 1 ? onlyA : onlyB).push(id);
    }
  }
  return { onlyA, onlyB };
}

/** Ids set in a row, ascending. */
export function maskIds(mask: Int32Array, vocabSize: number): number[] {
  const out: number[] = [];
  for (let id = 0; id < vocabSize; id++) if (maskHas(mask, id)) out.push(id);
  return out;
}

/** The oracle for one grammar and one vocabulary. */
export class BruteForce {
  readonly recognizer: Recognizer;
  private readonly vocab: VocabularyData;
  private readonly sortedVocab: SortedVocab;

  constructor(grammar: IrGrammar, vocab: VocabularyData) {
    this.recognizer = new Recognizer(grammar);
    this.vocab = vocab;
    this.sortedVocab = sorted(vocab);
  }

  initial(): RecognizerState {
    return this.recognizer.initial();
  }

  tokenBytes(id: number): Uint8Array {
    return this.vocab.bytes.subarray(this.vocab.offsets[id]!, this.vocab.offsets[id + 1]!);
  }

  /** The state after a token's bytes, or null when they are not viable. */
  advance(state: RecognizerState, id: number): RecognizerState | null {
    let s: RecognizerState | null = state;
    for (const b of this.tokenBytes(id)) {
      s = this.recognizer.step(s, b);
      if (s === null) return null;
    }
    return s;
  }

  /** The brute-force mask at `state`. */
  mask(state: RecognizerState): Int32Array {
    const out = new Int32Array(maskWords(this.vocab.vocabSize));
    const { order, stop } = this.sortedVocab;
    const { bytes, offsets } = this.vocab;
    const states: Array<RecognizerState | null> = [state];
    let prevStart = 0;
    let prevLen = 0;
    for (let k = 0; k < order.length; k++) {
      const id = order[k]!;
      const start = offsets[id]!;
      const len = offsets[id + 1]! - start;
      let lcp = 0;
      const limit = Math.min(len, prevLen);
      while (lcp < limit && bytes[start + lcp] === bytes[prevStart + lcp]) lcp++;
      for (let d = lcp; d < len; d++) {
        const s = states[d]!;
        states[d + 1] = s === null ? null : this.recognizer.step(s, bytes[start + d]!);
      }
      if (states[len] !== null) out[id >>> 5]! |= 1 << (id & 31);
      prevStart = start;
      prevLen = len;
    }
    if (this.recognizer.accepts(state)) for (const id of stop) out[id >>> 5]! |= 1 << (id & 31);
    return out;
  }
}

/** A readable token for failure messages. */
export function describeToken(vocab: VocabularyData, id: number): string {
  if (id >= vocab.kinds.length) return `#${id} (padding)`;
  const text = Buffer.from(vocab.bytes.subarray(vocab.offsets[id]!, vocab.offsets[id + 1]!)).toString("latin1");
  return `#${id} ${JSON.stringify(text)}`;
}
