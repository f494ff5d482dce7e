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

function cpAt(w: string, i: number): number {
  return w.codePointAt(i)!;
}

const EMPTY = new Uint8Array(0);

const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

const width = (cp: number): number => (cp > 0xffff ? 2 : 1);

/**
 * IR matching exactly the given strings, each piece written as `encode` gives it (the canonical
 * JSON text inside a string, or the raw text). `words` must be sorted by UTF-16 code units and
 * distinct. Rules are named `${name}_t…` (made unique by the builder).
 */
export function wordsToIr(words: readonly string[], b: GrammarBuilder, name: string, encode: (text: string) => string): IrExpr {
  if (words.length === 0) return choice();
  // Literal nodes get views into one buffer, encoded at the end: one allocation, not one per edge.
  const literals: Array<{ node: { kind: "bytes"; bytes: Uint8Array }; text: string }> = [];
  const lit = (text: string): IrBytes => {
    const node = { kind: "bytes" as const, bytes: EMPTY };
    literals.push({ node, text });
    return node;
  };
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
      const cp = cpAt(words[i]!, depth);
      let j = i + 1;
      while (j < hi && cpAt(words[j]!, depth) === cp) j++;
      // Extend the edge while the group has one way on: its first and last strings (sorted)
      // agree, and the first does not end there.
      let d = depth + width(cp);
      const first = words[i]!;
      const last = words[j - 1]!;
      while (first.length > d && first.charCodeAt(d) === last.charCodeAt(d)) d++;
      // Never end inside a surrogate pair.
      if (d > depth && d < first.length && isLowSurrogate(first.charCodeAt(d))) d--;
      const text = encode(first.slice(depth, d));
      const rest = j - i === 1 && first.length === d ? null : node(i, j, d, level + 1);
      alts.push(rest === null ? lit(text) : rest.kind === "seq" ? seq(lit(text), ...rest.items) : seq(lit(text), rest));
      i = j;
    }
    return alts.length === 1 ? alts[0]! : choice(...alts);
  };
  const top = node(0, words.length, 0, 0);
  for (let k = 0; k < pending.length; k++) {
    const { rule, lo, hi, depth } = pending[k]!;
    b.define(rule, node(lo, hi, depth, 0));
  }
  let size = 0;
  for (const l of literals) size += l.text.length * 3;
  const buffer = new Uint8Array(size);
  const encoder = new TextEncoder();
  let at = 0;
  for (const l of literals) {
    const { written } = encoder.encodeInto(l.text, buffer.subarray(at));
    l.node.bytes = buffer.subarray(at, at + written);
    at += written;
  }
  return top;
}
