/**
 * Finite string sets (`enum`, `const`) as grammar: a trie over the sorted values, written
 * directly as IR. A trie is already a minimal automaton up to the sharing of suffixes, so
 * nothing is minimized: the cost is linear in the total length of the values. Runs of the trie
 * with a single way on become one literal, and subtrees deeper than a few levels become rules of
 * their own, which keeps expression trees shallow whatever the values.
 */
import { choice, empty, seq, type GrammarBuilder, type IrBytes, type IrExpr } from "../ir.js";

/** Branching levels inlined into one rule before a subtree gets a rule of its own. */
const MAX_INLINE_LEVELS = 48;

const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;
const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/**
 * The literals of one trie, written into large chunks as the walk goes (one allocation for
 * many edges, not one per edge) and handed out as views at once. The first chunk holds the
 * values' total length, which is all a trie of printable ASCII needs (each character of the trie
 * is on one edge); escapes and UTF-8 may open more. Printable ASCII other than `"` and `\` is its
 * own canonical JSON text and UTF-8: those edges are copied a unit at a time; any other edge goes
 * through `encode` and a TextEncoder.
 */
class LiteralBytes {
  private chunk: Uint8Array;
  private length = 0;
  private readonly encoder = new TextEncoder();

  constructor(sizeHint: number) {
    this.chunk = new Uint8Array(Math.max(sizeHint, 64));
  }

  /** A bytes node for `word[from..to)`. */
  literal(word: string, from: number, to: number, encode: (text: string) => string): IrBytes {
    // Escaped or non-ASCII text takes at most 6 bytes a unit (`\u001f`, or 3 bytes of UTF-8).
    const most = (to - from) * 6;
    if (this.length + most > this.chunk.length) {
      // Earlier views keep the old chunk; nothing is copied.
      this.chunk = new Uint8Array(Math.max(most, 1 << 16));
      this.length = 0;
    }
    const buf = this.chunk;
    const start = this.length;
    let at = start;
    let plain = true;
    for (let k = from; k < to; k++) {
      const c = word.charCodeAt(k);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
        plain = false;
        break;
      }
      buf[at++] = c;
    }
    if (!plain) at = start + this.encoder.encodeInto(encode(word.slice(from, to)), buf.subarray(start)).written;
    this.length = at;
    return { kind: "bytes", bytes: new Uint8Array(buf.buffer, start, at - start) };
  }
}

/**
 * IR matching exactly the given strings, each piece written as `encode` gives it (the canonical
 * JSON text inside a string, or the raw text). `words` must be sorted by UTF-16 code units and
 * distinct. Rules are named `${name}_t…` (made unique by the builder).
 */
export function wordsToIr(words: readonly string[], b: GrammarBuilder, name: string, encode: (text: string) => string): IrExpr {
  if (words.length === 0) return choice();
  let units = 0;
  for (let k = 0; k < words.length; k++) units += words[k]!.length;
  const bytes = new LiteralBytes(units);
  const pending: Array<{ rule: string; lo: number; hi: number; depth: number }> = [];
  /** The strings words[lo..hi) share their first `depth` UTF-16 units; IR for what follows. */
  const node = (lo: number, hi: number, depth: number, level: number): IrExpr => {
    if (level >= MAX_INLINE_LEVELS) {
      const rule = b.freshName(`${name}_t`);
      pending.push({ rule, lo, hi, depth });
      return b.ruleRef(rule);
    }
    const alts: IrExpr[] = [];
    let i = lo;
    if (words[i]!.length === depth) {
      alts.push(empty());
      i++;
    }
    while (i < hi) {
      const first = words[i]!;
      // The edge's first code point: one unit, or a surrogate pair (the words are well formed).
      const unit = first.charCodeAt(depth);
      const low = isHighSurrogate(unit) ? first.charCodeAt(depth + 1) : -1;
      let j = i + 1;
      while (j < hi && words[j]!.charCodeAt(depth) === unit && (low < 0 || words[j]!.charCodeAt(depth + 1) === low)) j++;
      const last = words[j - 1]!;
      let d = depth + (low < 0 ? 1 : 2);
      // Extend the edge while the group has one way on: its first and last strings (sorted)
      // agree, and the first does not end there.
      while (first.length > d && first.charCodeAt(d) === last.charCodeAt(d)) d++;
      // Never end inside a surrogate pair.
      if (d > depth && d < first.length && isLowSurrogate(first.charCodeAt(d))) d--;
      const literal = bytes.literal(first, depth, d, encode);
      const rest = j - i === 1 && first.length === d ? null : node(i, j, d, level + 1);
      if (rest === null) alts.push(literal);
      else if (rest.kind !== "seq") alts.push(seq(literal, rest));
      else {
        // The rest is a sequence built just now: its items follow the literal in one sequence.
        const items: IrExpr[] = [literal];
        for (let k = 0; k < rest.items.length; k++) items.push(rest.items[k]!);
        alts.push({ kind: "seq", items });
      }
      i = j;
    }
    return alts.length === 1 ? alts[0]! : { kind: "choice", items: alts };
  };
  const top = node(0, words.length, 0, 0);
  for (let k = 0; k < pending.length; k++) {
    const { rule, lo, hi, depth } = pending[k]!;
    b.define(rule, node(lo, hi, depth, 0));
  }
  return top;
}
