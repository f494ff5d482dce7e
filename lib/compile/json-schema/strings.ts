/**
 * Sets of strings (by code points, after JSON unescaping): an automaton plus length bounds kept
 * apart until an operation needs them together, so `maxLength: 10000` alone stays a counted
 * repeat instead of ten thousand states; and finite sets (`enum`, `const`) kept as their sorted
 * strings, which intersect by filtering and unite by merging, so an enum of 100,000 values costs
 * time linear in its text and never goes through automaton products or minimization.
 */
import { ALPHABET, complement, dfaAll, dfaLength, dfaMatches, dfaNone, dfaOfStrings, intersect, isEmpty, lengthRange, minimize, union, type Dfa } from "./automaton.js";
import { formatDfa } from "./formats.js";

/**
 * `lang`: `dfa` null means every string; `fmt` names an enforced format whose language is
 * intersected too (kept by name so it can be emitted compactly; see formats.ts). Lengths are in
 * code points. `words`: exactly these strings (sorted by UTF-16 code units, distinct, non-empty
 * list, no lone surrogates).
 */
export type StrSet =
  | { kind: "none" }
  | { kind: "lang"; dfa: Dfa | null; min: number; max: number | null; fmt: string | null }
  | { kind: "words"; words: readonly string[] };

type Lang = Extract<StrSet, { kind: "lang" }>;
type Words = Extract<StrSet, { kind: "words" }>;

export const STR_NONE: StrSet = { kind: "none" };
export const STR_ALL: StrSet = { kind: "lang", dfa: null, min: 0, max: null, fmt: null };

/** Strings of the automaton. */
export function strOfDfa(dfa: Dfa): StrSet {
  return isEmpty(dfa) ? STR_NONE : { kind: "lang", dfa, min: 0, max: null, fmt: null };
}

/** Exactly the given strings (any order, repeats allowed; lone surrogates throw RangeError). */
export function strOfWords(words: Iterable<string>): StrSet {
  // Sorted first, then repeats dropped where they meet: no hash set over 100,000 values.
  const sorted = sortByCodeUnits([...words]);
  const list: string[] = [];
  for (const w of sorted) {
    if (list.length > 0 && list[list.length - 1] === w) continue;
    if (!(w as unknown as { isWellFormed(): boolean }).isWellFormed()) throw new RangeError("lone surrogate");
    list.push(w);
  }
  return wordsOf(list);
}

/** Past this many strings {@link sortByCodeUnits} sorts by comparisons alone (its keys carry 20-bit indices). */
const MAX_KEYED_SORT = 1 << 20;
/** Runs up to this long are sorted by insertion. */
const SHORT_RUN = 16;
/** Two units a level: past this many levels of shared prefix, a run is sorted by comparisons. */
const MAX_KEY_LEVELS = 32;

/**
 * `list` sorted by UTF-16 code units, as `Array.prototype.sort()` sorts strings, but several
 * times faster on large lists (sort() compares through a generic path): a most-significant-first
 * radix sort, two units a level. Each string's next two units and its index are packed into one
 * double (below 2^52), the doubles are sorted natively as numbers, and each run sharing those
 * units is sorted the same way on the two after, or by insertion when short.
 */
export function sortByCodeUnits(list: string[]): string[] {
  if (list.length > MAX_KEYED_SORT) return list.sort();
  sortRun(list, 0, list.length, 0, 0);
  return list;
}

/** Sorts list[lo..hi), whose strings share their first `offset` units. */
function sortRun(list: string[], lo: number, hi: number, offset: number, level: number): void {
  const n = hi - lo;
  if (n <= SHORT_RUN) {
    for (let k = lo + 1; k < hi; k++) {
      const w = list[k]!;
      let m = k - 1;
      for (; m >= lo && list[m]! > w; m--) list[m + 1] = list[m]!;
      list[m + 1] = w;
    }
    return;
  }
  const run = list.slice(lo, hi);
  if (level >= MAX_KEY_LEVELS) {
    run.sort();
    for (let k = 0; k < n; k++) list[lo + k] = run[k]!;
    return;
  }
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const w = run[i]!;
    // A unit past the end is 0, below every unit (1 + its code): shorter strings come first.
    const u0 = w.length > offset ? w.charCodeAt(offset) + 1 : 0;
    const u1 = w.length > offset + 1 ? w.charCodeAt(offset + 1) + 1 : 0;
    keys[i] = (u0 * 0x10001 + u1) * MAX_KEYED_SORT + i;
  }
  keys.sort();
  let i = 0;
  while (i < n) {
    const units = Math.floor(keys[i]! / MAX_KEYED_SORT);
    const prefix = units * MAX_KEYED_SORT;
    const end = prefix + MAX_KEYED_SORT;
    let j = i;
    // Exact in doubles: every key is an integer below 2^52.
    for (; j < n && keys[j]! < end; j++) list[lo + j] = run[keys[j]! - prefix]!;
    // Strings that ended within these two units are equal; the others go on.
    if (j - i > 1 && units % 0x10001 !== 0) sortRun(list, lo + i, lo + j, offset + 2, level + 1);
    i = j;
  }
}

function wordsOf(sorted: readonly string[]): StrSet {
  return sorted.length === 0 ? STR_NONE : { kind: "words", words: sorted };
}

/** Strings with length in [min, max]. */
export function strOfLength(min: number, max: number | null): StrSet {
  return max !== null && max < min ? STR_NONE : { kind: "lang", dfa: null, min, max, fmt: null };
}

/** Strings of an enforced format. */
export function strOfFormat(fmt: string): StrSet {
  return { kind: "lang", dfa: null, min: 0, max: null, fmt };
}

/** The format folded into the automaton. */
function materialize(s: Lang): Lang {
  if (s.fmt === null) return s;
  const f = formatDfa(s.fmt);
  return { ...s, dfa: s.dfa === null ? f : intersect(s.dfa, f), fmt: null };
}

/** A finite set as an automaton-based set. */
function asLang(s: Words): Lang {
  return { kind: "lang", dfa: dfaOfStrings(s.words), min: 0, max: null, fmt: null };
}

/** The set as one automaton (format and lengths folded in); may throw AutomatonTooLarge. */
export function strDfa(set: StrSet): Dfa {
  if (set.kind === "none") return dfaNone();
  if (set.kind === "words") return dfaOfStrings(set.words);
  const s = materialize(set);
  const len = s.min === 0 && s.max === null ? null : dfaLength(s.min, s.max, ALPHABET);
  if (s.dfa === null) return len ?? dfaAll();
  return len === null ? s.dfa : intersect(s.dfa, len);
}

function codePoints(w: string): number {
  let n = 0;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** The words of a finite set that also belong to `s`: one pass over each word. */
function filterWords(w: Words, s: Lang): StrSet {
  // Every string (`"type": "string"` next to an enum): all pass. A copy still, as a filtered
  // list is a new list (large lists are shared as rules by identity).
  if (s.dfa === null && s.fmt === null && s.min === 0 && s.max === null) return wordsOf(w.words.slice());
  const fmt = s.fmt === null ? null : formatDfa(s.fmt);
  return wordsOf(
    w.words.filter((x) => {
      if (s.min > 0 || s.max !== null) {
        const n = codePoints(x);
        if (n < s.min || (s.max !== null && n > s.max)) return false;
      }
      return (s.dfa === null || dfaMatches(s.dfa, x)) && (fmt === null || dfaMatches(fmt, x));
    }),
  );
}

/** Merges two sorted distinct lists: their union (`or`) or intersection. */
function mergeWords(a: readonly string[], b: readonly string[], or: boolean): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (x < y) {
      if (or) out.push(x);
      i++;
    } else {
      if (or) out.push(y);
      j++;
    }
  }
  if (or) {
    while (i < a.length) out.push(a[i++]!);
    while (j < b.length) out.push(b[j++]!);
  }
  return out;
}

export function strAnd(x: StrSet, y: StrSet): StrSet {
  if (x.kind === "none" || y.kind === "none") return STR_NONE;
  if (x.kind === "words") return y.kind === "words" ? wordsOf(mergeWords(x.words, y.words, false)) : filterWords(x, y);
  if (y.kind === "words") return filterWords(y, x);
  let a = x;
  let b = y;
  if (a.fmt !== null && b.fmt !== null && a.fmt !== b.fmt) {
    a = materialize(a);
    b = materialize(b);
  }
  const min = Math.max(a.min, b.min);
  const max = a.max === null ? b.max : b.max === null ? a.max : Math.min(a.max, b.max);
  if (max !== null && max < min) return STR_NONE;
  const dfa = a.dfa === null ? b.dfa : b.dfa === null ? a.dfa : intersect(a.dfa, b.dfa);
  if (dfa !== null && isEmpty(dfa)) return STR_NONE;
  return { kind: "lang", dfa, min, max, fmt: a.fmt ?? b.fmt };
}

export function strOr(x: StrSet, y: StrSet): StrSet {
  if (x.kind === "none") return y;
  if (y.kind === "none") return x;
  if (x.kind === "words" && y.kind === "words") return wordsOf(mergeWords(x.words, y.words, true));
  if (strIsAll(x) || strIsAll(y)) return STR_ALL;
  const a = x.kind === "words" ? asLang(x) : x;
  const b = y.kind === "words" ? asLang(y) : y;
  if (a.min === b.min && a.max === b.max && a.fmt === b.fmt) {
    const dfa = a.dfa === null || b.dfa === null ? null : union(a.dfa, b.dfa);
    return { kind: "lang", dfa, min: a.min, max: a.max, fmt: a.fmt };
  }
  return strOfDfa(union(strDfa(a), strDfa(b)));
}

export function strNot(a: StrSet): StrSet {
  if (a.kind === "none") return STR_ALL;
  if (strIsAll(a)) return STR_NONE;
  // A length bound on one side only has a length bound as its complement (no counting automaton).
  if (a.kind === "lang" && a.dfa === null && a.fmt === null) {
    if (a.min === 0 && a.max !== null) return strOfLength(a.max + 1, null);
    if (a.max === null) return strOfLength(0, a.min - 1);
  }
  return strOfDfa(complement(strDfa(a)));
}

/**
 * Whether the set is certainly empty. Exact except when a large automaton meets length bounds:
 * then only the range of lengths is compared, and "not empty" may be answered for an empty set.
 */
export function strIsEmpty(s: StrSet): boolean {
  if (s.kind === "none") return true;
  if (s.kind === "words") return s.words.length === 0;
  if (s.max !== null && s.max < s.min) return true;
  if (s.dfa === null && s.fmt === null) return false;
  if (s.dfa === null && s.min === 0 && s.max === null) return false;
  if (s.min === 0 && s.max === null && s.fmt === null) return isEmpty(s.dfa!);
  try {
    const base = strDfa({ ...s, min: 0, max: null });
    if (isEmpty(base)) return true;
    if (s.min === 0 && s.max === null) return false;
    const range = lengthRange(base);
    if ((s.max !== null && range.min > s.max) || (range.max !== null && range.max < s.min)) return true;
    if (base.accept.length * ((s.max ?? s.min) + 1) > 4000) return false;
    return isEmpty(strDfa(s));
  } catch {
    return false;
  }
}

/** Whether `s` is every string. */
export function strIsAll(s: StrSet): boolean {
  return s.kind === "lang" && s.dfa === null && s.min === 0 && s.max === null && s.fmt === null;
}

/**
 * Whether a string of the automaton's language can have its length counted with bounds
 * [min, max] exactly (docs/engine.md, "Counted repetition"): from every state, the counts c with
 * which some way to an accepting state ends within the bounds (c + its length in [min, max])
 * form one range. Then the engine keeps the length in a counter instead of multiplying the
 * automaton's states by the bound.
 */
export function lengthsCountable(dfaIn: Dfa, min: number, max: number | null): boolean {
  const dfa = minimize(dfaIn);
  const n = dfa.accept.length;
  const top = max ?? Infinity;
  const succ = dfa.edges.map((list) => [...new Set(list.map(([, , to]) => to))]);
  const pred: number[][] = Array.from({ length: n }, () => []);
  succ.forEach((list, s) => list.forEach((t) => pred[t]!.push(s)));
  // hi(s): max less the shortest way out (every code point is one unit).
  const dist = new Array<number>(n).fill(Infinity);
  const queue: number[] = [];
  for (let s = 0; s < n; s++) if (dfa.accept[s]) (dist[s] = 0), queue.push(s);
  for (let i = 0; i < queue.length; i++) {
    const t = queue[i]!;
    for (const s of pred[t]!) if (dist[s] === Infinity) (dist[s] = dist[t]! + 1), queue.push(s);
  }
  const live = (s: number) => dist[s]! !== Infinity;
  // lo(s): min less the longest way out, unbounded (0) from states that reach a cycle.
  const longest = new Array<number>(n).fill(-1);
  const state = new Array<number>(n).fill(0); // 0 new, 1 on the path, 2 done
  for (let root = 0; root < n; root++) {
    if (!live(root) || state[root] !== 0) continue;
    const stack: Array<[number, number]> = [[root, 0]];
    state[root] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [s, i] = top;
      const next = succ[s]!;
      if (i < next.length) {
        top[1]++;
        const t = next[i]!;
        if (!live(t)) continue;
        if (state[t] === 1) longest[t] = Infinity;
        else if (state[t] === 0) {
          state[t] = 1;
          stack.push([t, 0]);
        }
        continue;
      }
      let best = dfa.accept[s] ? 0 : -Infinity;
      for (const t of next) if (live(t)) best = Math.max(best, longest[t]! + 1);
      longest[s] = longest[s] === Infinity ? Infinity : best;
      state[s] = 2;
      stack.pop();
    }
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (let s = 0; s < n; s++) {
      if (live(s) && longest[s] !== Infinity && succ[s]!.some((t) => live(t) && longest[t] === Infinity)) (longest[s] = Infinity), (changed = true);
    }
  }
  const lo = (s: number) => Math.max(0, min - longest[s]!);
  const hi = (s: number) => top - dist[s]!;
  // The counts a state accepts are one range iff its edges (one unit each) and its own end give
  // adjacent ranges.
  for (let s = 0; s < n; s++) {
    if (!live(s)) continue;
    const ranges: Array<[number, number]> = dfa.accept[s] ? [[min, top]] : [];
    for (const t of succ[s]!) if (live(t) && lo(t) <= hi(t)) ranges.push([Math.max(0, lo(t) - 1), hi(t) - 1]);
    ranges.sort((x, y) => x[0] - y[0]);
    let reach = -Infinity;
    for (const [a, b] of ranges) {
      if (a > b) continue;
      if (reach !== -Infinity && a > reach + 1) return false;
      reach = Math.max(reach, b);
    }
  }
  return true;
}
