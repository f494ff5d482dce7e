/**
 * Deterministic finite automata over Unicode code points, with the boolean operations the JSON
 * Schema compiler needs to stay exact: string keywords combine by intersection (`pattern` with
 * `maxLength`, `format` with `enum`), object keys are partitioned by `patternProperties`, and
 * `not` / `oneOf` need complements. Numbers reuse the same automata over their ASCII text.
 *
 * Edges are labelled with inclusive code-point ranges; a missing edge rejects. Surrogates
 * (U+D800–U+DFFF) are never part of the alphabet, as in the grammar IR.
 */
import { markMinimal, minimize } from "./minimize.js";

export { minimize };

/** One labelled edge: code points `lo..hi` (inclusive) go to state `to`. */
export type Edge = readonly [lo: number, hi: number, to: number];

/** A DFA: `edges[s]` are sorted, non-overlapping ranges; `accept[s]` marks final states. */
export interface Dfa {
  readonly start: number;
  readonly accept: readonly boolean[];
  readonly edges: ReadonlyArray<readonly Edge[]>;
}

/** The alphabet: every code point except surrogates. */
export const ALPHABET: ReadonlyArray<readonly [number, number]> = [
  [0, 0xd7ff],
  [0xe000, 0x10ffff],
];

/**
 * Thrown when an automaton would exceed the state budget (or, `detail` says, another bound on
 * building it); callers turn it into a SchemaError quoting `detail`.
 */
export class AutomatonTooLarge extends Error {
  readonly detail: string;
  constructor(
    readonly states: number,
    detail?: string,
  ) {
    const text = detail ?? `over ${states} states`;
    super(`automaton too large (${text})`);
    this.detail = text;
  }
}

/** The most states any single automaton may have. */
export const MAX_STATES = 20000;

/** Removes surrogates from ranges and sorts/merges them. */
export function cleanRanges(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const cut: Array<[number, number]> = [];
  for (const [lo, hi] of ranges) {
    if (hi < lo) continue;
    if (hi < 0xd800 || lo > 0xdfff) cut.push([lo, hi]);
    else {
      if (lo < 0xd800) cut.push([lo, 0xd7ff]);
      if (hi > 0xdfff) cut.push([0xe000, hi]);
    }
  }
  cut.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of cut) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** The complement of ranges within the alphabet. */
export function negateRanges(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const clean = cleanRanges(ranges);
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of clean) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return cleanRanges(out);
}

/** A mutable DFA under construction. */
export class DfaBuilder {
  readonly accept: boolean[] = [];
  readonly edges: Edge[][] = [];

  /** `limit`: the most states (default MAX_STATES); builders whose output cannot outgrow their input pass their own. */
  constructor(private readonly limit = MAX_STATES) {}

  addState(accepting = false): number {
    if (this.accept.length >= this.limit) throw new AutomatonTooLarge(this.limit);
    this.accept.push(accepting);
    this.edges.push([]);
    return this.accept.length - 1;
  }

  /** Adds edges from `from` to `to` on `ranges` (surrogates removed); ranges must not overlap existing edges. */
  addEdge(from: number, ranges: ReadonlyArray<readonly [number, number]>, to: number): void {
    const list = this.edges[from]!;
    for (const [lo, hi] of cleanRanges(ranges)) list.push([lo, hi, to]);
  }

  build(start: number): Dfa {
    for (const list of this.edges) list.sort((a, b) => a[0] - b[0]);
    return { start, accept: this.accept, edges: this.edges };
  }
}

/**
 * The language of exactly the given strings: the minimal acyclic DFA, built directly from the
 * sorted strings (Daciuk et al.'s incremental construction: each new string's path is added,
 * and the previous string's path past the common prefix is merged into the register of frozen
 * states), so the cost is linear in the total length and no minimization pass is needed. Its
 * size is bounded by the input's, so the state budget does not apply.
 */
export function dfaOfStrings(strings: Iterable<string>): Dfa {
  const sorted = [...new Set(strings)].sort();
  const accept: boolean[] = [false];
  /** Per state: [code point, target] pairs, in the order added. */
  const out: Array<Array<[number, number]>> = [[]];
  const register = new Map<string, number>();
  const keyOf = (s: number): string => {
    let k = accept[s] ? "!" : "";
    for (const [cp, to] of out[s]!) k += `${cp}>${to},`;
    return k;
  };
  // The states along the previous string (path[0] is the start) and its code points.
  const path = [0];
  let prev: number[] = [];
  /** Freezes path[from..] bottom-up, replacing each state by an equal registered one. */
  const freeze = (from: number): void => {
    for (let i = path.length - 1; i >= from; i--) {
      const s = path[i]!;
      const key = keyOf(s);
      const twin = register.get(key);
      if (twin === undefined) register.set(key, s);
      else {
        const edges = out[path[i - 1]!]!;
        edges[edges.length - 1]![1] = twin;
        out[s] = [];
      }
    }
    path.length = from;
  };
  for (const word of sorted) {
    const cps: number[] = [];
    for (const ch of word) {
      const cp = ch.codePointAt(0)!;
      if (cp >= 0xd800 && cp <= 0xdfff) throw new RangeError("lone surrogate");
      cps.push(cp);
    }
    let common = 0;
    while (common < cps.length && common < prev.length && cps[common] === prev[common]) common++;
    freeze(common + 1);
    for (let i = common; i < cps.length; i++) {
      const t = accept.length;
      accept.push(false);
      out.push([]);
      out[path[i]!]!.push([cps[i]!, t]);
      path.push(t);
    }
    accept[path[cps.length]!] = true;
    prev = cps;
  }
  freeze(1);
  if (sorted.length === 0) return dfaNone();
  return canonical({ start: 0, accept, edges: out.map((list) => list.map(([cp, to]) => [cp, cp, to] as const)) });
}

/**
 * A DFA that is minimal and trim by construction, renumbered breadth-first with edges sorted and
 * adjacent ranges into one state merged — the canonical form minimize() gives, so dfaKey
 * compares it with other automata — and recorded as minimal.
 */
export function canonical(dfa: Dfa): Dfa {
  const id = new Map<number, number>([[dfa.start, 0]]);
  const order = [dfa.start];
  const edges: Edge[][] = [];
  for (let i = 0; i < order.length; i++) {
    const list = dfa.edges[order[i]!]!.slice().sort((x, y) => x[0] - y[0]);
    const row: Edge[] = [];
    for (const [lo, hi, to] of list) {
      let t = id.get(to);
      if (t === undefined) {
        t = order.length;
        id.set(to, t);
        order.push(to);
      }
      const last = row[row.length - 1];
      if (last && last[2] === t && last[1] + 1 === lo) row[row.length - 1] = [last[0], hi, t];
      else row.push([lo, hi, t]);
    }
    edges.push(row);
  }
  return markMinimal({ start: 0, accept: order.map((s) => dfa.accept[s]!), edges });
}

/** Every string over the given ranges (default: the whole alphabet). */
export function dfaAll(ranges: ReadonlyArray<readonly [number, number]> = ALPHABET): Dfa {
  const b = new DfaBuilder();
  const s = b.addState(true);
  b.addEdge(s, ranges, s);
  return b.build(s);
}

/** The empty language. */
export function dfaNone(): Dfa {
  const b = new DfaBuilder();
  return b.build(b.addState(false));
}

/** Strings whose length in code points is within [min, max] (max null: unbounded), over `ranges`. */
export function dfaLength(min: number, max: number | null, ranges: ReadonlyArray<readonly [number, number]> = ALPHABET): Dfa {
  const top = max ?? min;
  if (top + 1 > MAX_STATES) throw new AutomatonTooLarge(MAX_STATES);
  const b = new DfaBuilder();
  for (let i = 0; i <= top; i++) b.addState(i >= min);
  for (let i = 0; i < top; i++) b.addEdge(i, ranges, i + 1);
  if (max === null) b.addEdge(top, ranges, top);
  return b.build(0);
}

/** The target of `state` on code point `cp`, or -1. */
export function step(dfa: Dfa, state: number, cp: number): number {
  const list = dfa.edges[state]!;
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const e = list[mid]!;
    if (cp < e[0]) hi = mid - 1;
    else if (cp > e[1]) lo = mid + 1;
    else return e[2];
  }
  return -1;
}

/** Whether the DFA accepts the string. */
export function dfaMatches(dfa: Dfa, s: string): boolean {
  let state = dfa.start;
  for (const ch of s) {
    state = step(dfa, state, ch.codePointAt(0)!);
    if (state < 0) return false;
  }
  return dfa.accept[state]!;
}

type Op = "and" | "or" | "diff";

/**
 * The product of two DFAs: `and` (intersection), `or` (union), `diff` (strings of `a` not in `b`).
 * A missing edge is a dead state (-1) on that side.
 */
export function product(a: Dfa, b: Dfa, op: Op): Dfa {
  const ia = languageId(a);
  const ib = languageId(b);
  const memoKey = ia === undefined || ib === undefined ? undefined : `${ia} ${ib} ${op}`;
  const known = memoKey === undefined ? bigProducts.get(a)?.get(b)?.get(op) : products.get(memoKey);
  if (known) return known;
  const result = productUncached(a, b, op);
  if (memoKey === undefined) {
    // Large automata (a date-time format, a big enum) are memoized by identity: the same objects
    // meet again and again (each oneOf branch complements its siblings).
    let byB = bigProducts.get(a);
    if (!byB) bigProducts.set(a, (byB = new WeakMap()));
    let byOp = byB.get(b);
    if (!byOp) byB.set(b, (byOp = new Map()));
    byOp.set(op, result);
  }
  if (memoKey !== undefined) {
    if (products.size >= MEMO_MAX_ENTRIES) {
      products.clear();
      idOfKey.clear();
    }
    products.set(memoKey, result);
  }
  return result;
}

// Products are memoized by the languages of their operands: a schema combines the same few
// string languages again and again (each object alternative meets each allOf branch), 594
// products but 71 distinct ones for one GitHub schema. A language's id comes from its canonical
// text (dfaKey), computed once per DFA object; ids are never reused, so clearing the tables
// when they fill up only loses hits. Large automata are not memoized (their texts are long and
// their products rare).
const MEMO_MAX_EDGES = 4096;
const MEMO_MAX_ENTRIES = 8192;
const idOfDfa = new WeakMap<Dfa, number>();
const idOfKey = new Map<string, number>();
const products = new Map<string, Dfa>();
const bigProducts = new WeakMap<Dfa, WeakMap<Dfa, Map<Op, Dfa>>>();
let nextLanguageId = 0;

function languageId(dfa: Dfa): number | undefined {
  const known = idOfDfa.get(dfa);
  if (known !== undefined) return known;
  let edges = 0;
  for (const list of dfa.edges) edges += list.length;
  if (edges > MEMO_MAX_EDGES) return undefined;
  const key = dfaKey(dfa);
  let id = idOfKey.get(key);
  if (id === undefined) {
    id = nextLanguageId++;
    idOfKey.set(key, id);
  }
  idOfDfa.set(dfa, id);
  return id;
}

/**
 * What a product's state budget is measured against. An automaton built from the schema's own
 * text (a regex, a format, a literal set) is its own basis; a product's result inherits one from
 * its operands — the larger for an intersection or difference, the sum for a union — so that a
 * chain of products (`allOf` of 30 patterns that each require a letter: 2^30 states) is held to
 * the budget of its inputs, not to a few times the previous step's result, which grew without end.
 */
const productBasis = new WeakMap<Dfa, number>();

function basisOf(d: Dfa): number {
  return productBasis.get(d) ?? d.accept.length;
}

/** Records that `to` (a minimized or complemented `from`) has `from`'s basis. */
export function inheritBasis(from: Dfa, to: Dfa): void {
  const basis = productBasis.get(from);
  if (basis !== undefined && to !== from) productBasis.set(to, Math.max(basis, productBasis.get(to) ?? 0));
}

function productUncached(a: Dfa, b: Dfa, op: Op): Dfa {
  // An operand larger than the budget (a date-time format, a literal set) gets a budget of a few
  // times its size: products with a small automaton stay near it.
  const basis = op === "or" ? basisOf(a) + basisOf(b) : Math.max(basisOf(a), basisOf(b));
  const out = new DfaBuilder(Math.max(MAX_STATES, 8 * basis));
  const ids = new Map<number, number>();
  const queue: Array<[number, number]> = [];
  const keyOf = (p: number, q: number): number => (p + 1) * (b.accept.length + 1) + (q + 1);
  const accepts = (p: number, q: number): boolean => {
    const x = p >= 0 && a.accept[p]!;
    const y = q >= 0 && b.accept[q]!;
    return op === "and" ? x && y : op === "or" ? x || y : x && !y;
  };
  const idOf = (p: number, q: number): number => {
    const key = keyOf(p, q);
    let id = ids.get(key);
    if (id === undefined) {
      id = out.addState(accepts(p, q));
      ids.set(key, id);
      queue.push([p, q]);
    }
    return id;
  };
  const start = idOf(a.start, b.start);
  for (let i = 0; i < queue.length; i++) {
    const [p, q] = queue[i]!;
    const from = i;
    const ea = p >= 0 ? a.edges[p]! : [];
    const eb = q >= 0 ? b.edges[q]! : [];
    // Sweep both sorted edge lists at once: each elementary interval (bounded by the ends of
    // the edges of either side) has one target pair.
    const na = ea.length;
    const nb = eb.length;
    let ia = 0;
    let ib = 0;
    let pos = 0;
    const edges = out.edges[from]!;
    while (ia < na || ib < nb) {
      const aLo = ia < na ? ea[ia]![0] : Infinity;
      const bLo = ib < nb ? eb[ib]![0] : Infinity;
      if (pos < aLo && pos < bLo) pos = Math.min(aLo, bLo);
      const aIn = aLo <= pos;
      const bIn = bLo <= pos;
      const end = Math.min(aIn ? ea[ia]![1] : aLo - 1, bIn ? eb[ib]![1] : bLo - 1);
      const ta = aIn ? ea[ia]![2] : -1;
      const tb = bIn ? eb[ib]![2] : -1;
      if (op === "and" ? ta >= 0 && tb >= 0 : ta >= 0 || (op === "or" && tb >= 0)) {
        const to = idOf(ta, tb);
        const last = edges[edges.length - 1];
        if (last && last[2] === to && last[1] + 1 === pos) edges[edges.length - 1] = [last[0], end, to];
        else edges.push([pos, end, to]);
      }
      if (aIn && ea[ia]![1] === end) ia++;
      if (bIn && eb[ib]![1] === end) ib++;
      pos = end + 1;
    }
  }
  const result = minimize(out.build(start));
  productBasis.set(result, Math.max(basis, productBasis.get(result) ?? 0));
  return result;
}

/**
 * The union of an automaton just built (met by no other product) with any other: the product
 * without the memo, whose key would cost `fresh` a canonical text for nothing.
 */
export const unionFresh = (fresh: Dfa, other: Dfa): Dfa => productUncached(fresh, other, "or");

export const intersect = (a: Dfa, b: Dfa): Dfa => product(a, b, "and");
export const union = (a: Dfa, b: Dfa): Dfa => product(a, b, "or");
export const difference = (a: Dfa, b: Dfa): Dfa => product(a, b, "diff");
const complements = new WeakMap<Dfa, Dfa>();

/**
 * All strings over the alphabet that `a` rejects. The complement of a minimal complete DFA is
 * minimal, so it is built directly in linear time: `a` minimized and completed with a sink, its
 * acceptance flipped, and the one state that can no longer accept (if any) dropped.
 */
export function complement(a: Dfa): Dfa {
  const known = complements.get(a);
  if (known) return known;
  const m = minimize(a);
  const n = m.accept.length;
  const sink = n;
  const edges: Edge[][] = [];
  const accept: boolean[] = [];
  for (let s = 0; s < n; s++) {
    const row: Edge[] = [];
    let next = 0;
    for (const [lo, hi, to] of m.edges[s]!) {
      if (lo > next) row.push(...gapEdges(next, lo - 1, sink));
      row.push([lo, hi, to]);
      next = hi + 1;
    }
    if (next <= 0x10ffff) row.push(...gapEdges(next, 0x10ffff, sink));
    edges.push(row);
    accept.push(!m.accept[s]);
  }
  edges.push(ALPHABET.map(([lo, hi]) => [lo, hi, sink] as const));
  accept.push(true);
  // Only a state that accepted every string in `a` cannot accept now (minimal: at most one).
  const ok = live({ start: 0, accept, edges });
  const dead = ok.findIndex((x) => !x);
  const out = dead < 0 ? { start: 0, accept, edges } : { start: 0, accept, edges: edges.map((row) => row.filter((e) => e[2] !== dead)) };
  const result = dead === 0 ? dfaNone() : canonical(out);
  inheritBasis(a, result);
  complements.set(a, result);
  return result;
}

/** Edges over lo..hi to `to`, surrogates left out. */
function gapEdges(lo: number, hi: number, to: number): Edge[] {
  return cleanRanges([[lo, hi]]).map(([l, h]) => [l, h, to] as const);
}

/** States that can reach an accepting state. */
export function live(dfa: Dfa): boolean[] {
  const n = dfa.accept.length;
  // Predecessor lists in one flat array (offsets per target): minimization asks this of every
  // product, and an array per state was most of its garbage.
  const start = new Int32Array(n + 1);
  let m = 0;
  for (const list of dfa.edges) {
    for (const e of list) start[e[2] + 1]!++;
    m += list.length;
  }
  for (let s = 0; s < n; s++) start[s + 1]! += start[s]!;
  const fill = start.slice(0, n);
  const preds = new Int32Array(m);
  for (let s = 0; s < n; s++) for (const e of dfa.edges[s]!) preds[fill[e[2]]!++] = s;
  const ok = dfa.accept.slice();
  const stack: number[] = [];
  for (let s = 0; s < n; s++) if (ok[s]) stack.push(s);
  while (stack.length > 0) {
    const s = stack.pop()!;
    for (let k = start[s]!; k < start[s + 1]!; k++) {
      const p = preds[k]!;
      if (!ok[p]) {
        ok[p] = true;
        stack.push(p);
      }
    }
  }
  return ok;
}

const emptiness = new WeakMap<Dfa, boolean>();

/** Whether the language is empty (memoized per automaton: emptiness checks ask again and again). */
export function isEmpty(dfa: Dfa): boolean {
  let known = emptiness.get(dfa);
  if (known === undefined) emptiness.set(dfa, (known = isEmptyUncached(dfa)));
  return known;
}

function isEmptyUncached(dfa: Dfa): boolean {
  const ok = live(dfa);
  const seen = new Set<number>([dfa.start]);
  const stack = [dfa.start];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (ok[s]) return false;
    for (const e of dfa.edges[s]!) {
      if (!seen.has(e[2])) {
        seen.add(e[2]);
        stack.push(e[2]);
      }
    }
  }
  return true;
}

/** A canonical text of a DFA's language (equal for equal languages): its minimal form, printed. */
export function dfaKey(dfa: Dfa): string {
  const m = minimize(dfa);
  return m.edges.map((list, s) => `${m.accept[s] ? "!" : ""}${list.map(([lo, hi, to]) => `${lo}-${hi}>${to}`).join(",")}`).join(";");
}

/** The DFA a {@link dfaKey} text describes (start 0; the inverse of dfaKey on minimal DFAs). */
export function dfaFromKey(key: string): Dfa {
  const accept: boolean[] = [];
  const edges: Edge[][] = [];
  for (const state of key.split(";")) {
    const final = state.startsWith("!");
    accept.push(final);
    const body = final ? state.slice(1) : state;
    const list: Edge[] = [];
    if (body !== "") {
      for (const edge of body.split(",")) {
        const dash = edge.indexOf("-");
        const arrow = edge.indexOf(">", dash);
        list.push([Number(edge.slice(0, dash)), Number(edge.slice(dash + 1, arrow)), Number(edge.slice(arrow + 1))]);
      }
    }
    edges.push(list);
  }
  return { start: 0, accept, edges };
}

/** Whether two DFAs accept the same language. */
export function equivalent(a: Dfa, b: Dfa): boolean {
  return isEmpty(product(a, b, "diff")) && isEmpty(product(b, a, "diff"));
}

/** Whether the language is exactly all strings over the alphabet. */
export function isUniversal(dfa: Dfa): boolean {
  return isEmpty(complement(dfa));
}

/** The single self-loop class of a one-state DFA whose only state is accepting (`C*`), else null. */
export function starClass(dfa: Dfa): Array<[number, number]> | null {
  if (dfa.accept.length !== 1 || !dfa.accept[0]) return null;
  const ranges: Array<[number, number]> = [];
  for (const [lo, hi, to] of dfa.edges[0]!) {
    if (to !== 0) return null;
    ranges.push([lo, hi]);
  }
  return ranges;
}

/** The shortest and longest string lengths of a non-empty language (max null: unbounded). */
export function lengthRange(dfaIn: Dfa): { min: number; max: number | null } {
  const dfa = minimize(dfaIn);
  const n = dfa.accept.length;
  // Shortest: BFS. Longest: a cycle (in a trim DFA) means unbounded; otherwise the longest path.
  const dist = new Array<number>(n).fill(-1);
  dist[dfa.start] = 0;
  const queue = [dfa.start];
  let min = -1;
  for (let i = 0; i < queue.length; i++) {
    const s = queue[i]!;
    if (dfa.accept[s] && min < 0) min = dist[s]!;
    for (const [, , to] of dfa.edges[s]!) {
      if (dist[to]! < 0) {
        dist[to] = dist[s]! + 1;
        queue.push(to);
      }
    }
  }
  const longest = new Map<number, number>();
  const onStack = new Set<number>();
  let cyclic = false;
  const visit = (s: number): number => {
    const known = longest.get(s);
    if (known !== undefined) return known;
    if (onStack.has(s)) {
      cyclic = true;
      return 0;
    }
    onStack.add(s);
    let best = dfa.accept[s] ? 0 : -Infinity;
    for (const [, , to] of dfa.edges[s]!) best = Math.max(best, 1 + visit(to));
    onStack.delete(s);
    longest.set(s, best);
    return best;
  };
  const max = visit(dfa.start);
  return { min: Math.max(min, 0), max: cyclic ? null : max };
}

/** A finite language's strings (at most `limit`), or null when the language is infinite or larger. */
export function finiteStrings(dfa: Dfa, limit: number): string[] | null {
  const out: string[] = [];
  const onPath = new Set<number>();
  let tooMany = false;
  const walk = (s: number, prefix: string): boolean => {
    if (onPath.has(s)) return false;
    if (dfa.accept[s]) {
      out.push(prefix);
      if (out.length > limit) {
        tooMany = true;
        return false;
      }
    }
    onPath.add(s);
    for (const [lo, hi, to] of dfa.edges[s]!) {
      if (hi - lo > limit) {
        tooMany = true;
        return false;
      }
      for (let cp = lo; cp <= hi; cp++) {
        if (!walk(to, prefix + String.fromCodePoint(cp))) return false;
      }
    }
    onPath.delete(s);
    return true;
  };
  const trimmed = minimize(dfa);
  if (!walk(trimmed.start, "") || tooMany) return null;
  return out;
}

/**
 * Strings of `dfa` whose length is within [min, max] (max null: unbounded), by a product with a
 * length counter.
 */
export function withLength(dfa: Dfa, min: number, max: number | null): Dfa {
  if (min === 0 && max === null) return dfa;
  return intersect(dfa, dfaLength(min, max));
}
