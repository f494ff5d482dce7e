/**
 * Minimization of code-point DFAs: trimming (unreachable states and states that cannot accept
 * are dropped) and Hopcroft's partition refinement over the elementary code-point intervals, with
 * states renumbered in breadth-first order so equal languages give equal automata (dfaKey).
 */
import { DfaBuilder, dfaNone, inheritBasis, live, type Dfa, type Edge } from "./automaton.js";

/**
 * The minimal trim DFA of the same language: unreachable states and states that cannot reach
 * an accepting state are removed (their edges dropped), then equivalent states merged
 * (Hopcroft's partition refinement over the elementary code-point intervals).
 */
export function minimize(dfa: Dfa): Dfa {
  if (minimal.has(dfa)) return dfa;
  const out = minimizeUncached(dfa);
  inheritBasis(dfa, out);
  minimal.add(out);
  return out;
}

/** DFAs known to be minimal and trim (results of minimize). */
const minimal = new WeakSet<Dfa>();

/** Records that a DFA built minimal by construction (in the canonical numbering minimize gives) needs no pass. */
export function markMinimal(dfa: Dfa): Dfa {
  minimal.add(dfa);
  return dfa;
}

function minimizeUncached(dfa: Dfa): Dfa {
  const ok = live(dfa);
  // Reachable and live states, in BFS order (so the start is state 0 of the result).
  const order: number[] = [];
  const index = new Map<number, number>();
  if (ok[dfa.start]) {
    index.set(dfa.start, 0);
    order.push(dfa.start);
    for (let i = 0; i < order.length; i++) {
      for (const e of dfa.edges[order[i]!]!) {
        if (ok[e[2]] && !index.has(e[2])) {
          index.set(e[2], order.length);
          order.push(e[2]);
        }
      }
    }
  }
  if (order.length === 0) return dfaNone();
  const n = order.length;
  const edges: Edge[][] = order.map((s) => dfa.edges[s]!.filter((e) => ok[e[2]]).map((e) => [e[0], e[1], index.get(e[2])!] as const));
  const accept = order.map((s) => dfa.accept[s]!);
  let block = n <= MOORE_MAX_STATES ? moore(n, edges, accept) : acyclicClasses(n, edges, accept);
  if (block === null) {
    // Moore's rounds are cheap passes over the edges; an automaton needing many (a long counter
    // chain) goes to Hopcroft, whose cost does not grow with the depth.
    let edgeCount = 0;
    for (const list of edges) edgeCount += list.length;
    block = moore(n, edges, accept, Math.max(16, Math.floor(MOORE_EDGE_BUDGET / Math.max(edgeCount, 1)))) ?? hopcroft(n, edges, accept);
  }
  // Renumber blocks so the start's block is 0, BFS order.
  const rep = new Map<number, number>();
  const b = new DfaBuilder(Infinity);
  const queue: number[] = [];
  const idOf = (s: number): number => {
    const bk = block[s]!;
    let id = rep.get(bk);
    if (id === undefined) {
      id = b.addState(dfa.accept[order[s]!]!);
      rep.set(bk, id);
      queue.push(s);
    }
    return id;
  };
  idOf(0);
  for (let i = 0; i < queue.length; i++) {
    const s = queue[i]!;
    const list = b.edges[i]!;
    for (const [lo, hi, to] of edges[s]!) {
      const t = idOf(to);
      const last = list[list.length - 1];
      if (last && last[2] === t && last[1] + 1 === lo) list[list.length - 1] = [last[0], hi, t];
      else list.push([lo, hi, t]);
    }
  }
  return b.build(0);
}

/**
 * Up to this many states, Moore's refinement: it costs a pass over the edges per round, at most
 * n rounds, where Hopcroft pays per (block, elementary interval) pair — and schema automata have
 * hundreds of intervals. Most automata minimized here (string keywords combined by allOf, object
 * keys) have under 50 states and are minimized hundreds of times per schema.
 */
const MOORE_MAX_STATES = 64;

/** Edge visits Moore's refinement may spend on a larger automaton before Hopcroft takes over. */
const MOORE_EDGE_BUDGET = 20_000_000;

/**
 * Classes of states by signature: a state's signature is a list of integers (its current class
 * or acceptance, then its edges read as ranges into classes), states with equal signatures share
 * a class. Signatures are hashed and compared exactly against the first state of each class; the
 * numeric form keeps this free of string building, which made up most of the schema compiler's
 * minimization time.
 */
class SignatureClasses {
  /** Per class: its signature, as [offset, length) into `pool`. */
  private readonly begin: number[] = [];
  private readonly size: number[] = [];
  private pool = new Int32Array(256);
  private used = 0;
  /** Hash → the first class with it; further classes with the same hash chain through `nextSame`. */
  private readonly byHash = new Map<number, number>();
  private readonly nextSame: number[] = [];
  /** The signature being written. */
  sig = new Int32Array(64);
  len = 0;

  get count(): number {
    return this.begin.length;
  }

  clear(): void {
    this.begin.length = 0;
    this.size.length = 0;
    this.nextSame.length = 0;
    this.byHash.clear();
    this.used = 0;
  }

  start(head: number): void {
    this.len = 0;
    this.push(head);
  }

  push(x: number): void {
    if (this.len === this.sig.length) {
      const grown = new Int32Array(this.sig.length * 2);
      grown.set(this.sig);
      this.sig = grown;
    }
    this.sig[this.len++] = x;
  }

  /** Appends a state's edges as maximal ranges into classes (`classOf` of each target). */
  pushEdges(list: readonly Edge[], classOf: Int32Array): void {
    let lo = -1;
    let hi = -2;
    let to = -1;
    for (const [elo, ehi, et] of list) {
      const b = classOf[et]!;
      if (b === to && elo === hi + 1) {
        hi = ehi;
        continue;
      }
      if (to >= 0) {
        this.push(lo);
        this.push(hi);
        this.push(to);
      }
      lo = elo;
      hi = ehi;
      to = b;
    }
    if (to >= 0) {
      this.push(lo);
      this.push(hi);
      this.push(to);
    }
  }

  /** The class of the signature written since `start`, a new one when no class has it. */
  classify(): number {
    const { sig, len } = this;
    let h = len | 0;
    for (let i = 0; i < len; i++) h = Math.imul(h ^ sig[i]!, 0x9e3779b1) ^ (h >>> 15);
    const first = this.byHash.get(h);
    for (let c = first ?? -1; c >= 0; c = this.nextSame[c]!) {
      if (this.size[c] !== len) continue;
      const at = this.begin[c]!;
      let same = true;
      for (let i = 0; i < len && same; i++) same = this.pool[at + i] === sig[i];
      if (same) return c;
    }
    const id = this.begin.length;
    if (this.used + len > this.pool.length) {
      const grown = new Int32Array(Math.max(this.pool.length * 2, this.used + len));
      grown.set(this.pool.subarray(0, this.used));
      this.pool = grown;
    }
    this.pool.set(sig.subarray(0, len), this.used);
    this.begin.push(this.used);
    this.size.push(len);
    this.used += len;
    this.nextSame.push(first ?? -1);
    this.byHash.set(h, id);
    return id;
  }
}

/**
 * The equivalence classes of a trim DFA's states (Moore): states start split by acceptance, and
 * each round splits them by their edges, read as ranges into the current classes (adjacent ranges
 * into one class merged, so that how a range happens to be cut does not matter). Stable when a
 * round makes no new class.
 */
function moore(n: number, edges: ReadonlyArray<readonly Edge[]>, accept: readonly boolean[], maxRounds = Infinity): Int32Array | null {
  let block = Int32Array.from(accept, (a) => (a ? 1 : 0));
  let classes = block.includes(0) && block.includes(1) ? 2 : 1;
  const table = new SignatureClasses();
  for (let round = 0; ; round++) {
    if (round > maxRounds) return null;
    table.clear();
    const next = new Int32Array(n);
    for (let s = 0; s < n; s++) {
      table.start(block[s]!);
      table.pushEdges(edges[s]!, block);
      next[s] = table.classify();
    }
    block = next;
    if (table.count === classes) return block;
    classes = table.count;
  }
}

/**
 * The equivalence classes of a trim acyclic DFA's states, or null when it has a cycle. Every
 * state's future is finite, so states can be merged bottom-up: in reverse topological order a
 * state's targets already have their classes, and two states are equivalent exactly when they
 * agree on acceptance and on their edges read as ranges into classes (Revuz's linear algorithm,
 * with hashing). Finite languages — enums crossed with patterns, lengths or formats — are
 * minimized this way in time linear in their size.
 */
function acyclicClasses(n: number, edges: ReadonlyArray<readonly Edge[]>, accept: readonly boolean[]): Int32Array | null {
  // Post-order by an explicit stack; a grey state seen again is a cycle.
  const color = new Uint8Array(n);
  const post: number[] = [];
  const stack: number[] = [0];
  const next = new Int32Array(n);
  color[0] = 1;
  while (stack.length > 0) {
    const s = stack[stack.length - 1]!;
    const list = edges[s]!;
    if (next[s]! < list.length) {
      const t = list[next[s]!++]![2];
      if (color[t] === 1) return null;
      if (color[t] === 0) {
        color[t] = 1;
        stack.push(t);
      }
    } else {
      color[s] = 2;
      post.push(s);
      stack.pop();
    }
  }
  const block = new Int32Array(n);
  const table = new SignatureClasses();
  for (const s of post) {
    table.start(accept[s] ? 1 : 0);
    table.pushEdges(edges[s]!, block);
    block[s] = table.classify();
  }
  return block;
}

/**
 * The equivalence classes of a trim DFA's states (Hopcroft). States 0..n-1 with range edges; a
 * missing edge goes to an implicit dead state. Returns a block id per state.
 */
function hopcroft(n: number, edges: ReadonlyArray<readonly Edge[]>, accept: readonly boolean[]): Int32Array {
  // Symbols: the elementary intervals between all edge boundaries.
  const cutSet = new Set<number>();
  for (const list of edges) for (const [lo, hi] of list) cutSet.add(lo).add(hi + 1);
  const cuts = [...cutSet].sort((a, b) => a - b);
  const k = Math.max(cuts.length - 1, 0);
  const N = n + 1; // state n is the dead state
  const dead = n;
  const delta = new Int32Array(N * k).fill(dead);
  for (let s = 0; s < n; s++) {
    let j = 0;
    for (const [lo, hi, to] of edges[s]!) {
      while (cuts[j]! < lo) j++;
      for (let a = j; a < k && cuts[a]! <= hi; a++) delta[s * k + a] = to;
    }
  }
  // Predecessors per (symbol, target), compressed.
  const count = new Int32Array(k * N + 1);
  for (let s = 0; s < N; s++) for (let a = 0; a < k; a++) count[a * N + delta[s * k + a]! + 1]!++;
  for (let i = 1; i <= k * N; i++) count[i]! += count[i - 1]!;
  const preds = new Int32Array(N * k);
  const fill = count.slice(0, k * N);
  for (let s = 0; s < N; s++) for (let a = 0; a < k; a++) preds[fill[a * N + delta[s * k + a]!]!++] = s;
  // The refinable partition: elements grouped by block in `elems`.
  const elems = new Int32Array(N);
  const loc = new Int32Array(N);
  const blockOf = new Int32Array(N);
  const first: number[] = [];
  const past: number[] = [];
  const marked: number[] = [];
  const acc = (s: number): boolean => s < n && accept[s]!;
  let pos = 0;
  for (const want of [true, false]) {
    const b = first.length;
    const start = pos;
    for (let s = 0; s < N; s++) {
      if (acc(s) !== want) continue;
      elems[pos] = s;
      loc[s] = pos;
      blockOf[s] = b;
      pos++;
    }
    if (pos > start) {
      first.push(start);
      past.push(pos);
      marked.push(0);
    } else {
      // No state in this group: the block id is not used.
    }
  }
  // Renumber if the first group was empty (then the second took id 0 already via push order).
  const inW: Uint8Array[] = [];
  const work: Array<[number, number]> = [];
  const addWork = (b: number, a: number): void => {
    while (inW.length <= b) inW.push(new Uint8Array(k));
    if (!inW[b]![a]) {
      inW[b]![a] = 1;
      work.push([b, a]);
    }
  };
  for (let b = 0; b < first.length; b++) for (let a = 0; a < k; a++) addWork(b, a);
  const touched: number[] = [];
  while (work.length > 0) {
    const [B, a] = work.pop()!;
    inW[B]![a] = 0;
    // Mark the predecessors on `a` of every state of B.
    const members = Array.from(elems.subarray(first[B]!, past[B]!));
    for (const t of members) {
      for (let i = count[a * N + t]!; i < count[a * N + t + 1]!; i++) {
        const p = preds[i]!;
        const X = blockOf[p]!;
        const m = first[X]! + marked[X]!;
        if (loc[p]! < m) continue; // already marked
        if (marked[X] === 0) touched.push(X);
        // Swap p into the marked prefix of X.
        const q = elems[m]!;
        elems[m] = p;
        elems[loc[p]!] = q;
        loc[q] = loc[p]!;
        loc[p] = m;
        marked[X]!++;
      }
    }
    for (const X of touched) {
      const m = marked[X]!;
      marked[X] = 0;
      if (m === past[X]! - first[X]!) continue; // every state marked: no split
      // The marked prefix becomes a new block Y.
      const Y = first.length;
      first.push(first[X]!);
      past.push(first[X]! + m);
      marked.push(0);
      first[X] = first[X]! + m;
      for (let i = first[Y]!; i < past[Y]!; i++) blockOf[elems[i]!] = Y;
      const smaller = past[Y]! - first[Y]! <= past[X]! - first[X]! ? Y : X;
      for (let c = 0; c < k; c++) {
        while (inW.length <= Y) inW.push(new Uint8Array(k));
        if (inW[X]![c]) addWork(Y, c);
        else addWork(smaller, c);
      }
    }
    touched.length = 0;
  }
  return blockOf;
}

