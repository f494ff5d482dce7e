/**
 * The numerals of the integers in a closed range, built directly over digits: what
 * `{"type": "integer", "minimum": lo, "maximum": hi}` admits. The general route (numbers.ts) builds
 * each bound over every JSON numeral (fractions, exponent forms), unites it with the exponent
 * regions and intersects it with the integer automaton: three products and minimizations per
 * schema, most of the lowering of a tool whose parameter has a new integer bound. Here the
 * automaton is read off the digits of the two bounds, minimal as built (a few dozen states).
 * numbers.ts (integerRangeSet) decides when this applies and what the set's domain is; the
 * automaton equals the general route's (test/schema/integer-range.test.ts compares them).
 */
import { canonical, type Dfa, type Edge } from "./automaton.js";

const DOT = 0x2e;
const MINUS = 0x2d;
const ZERO = 0x30;

/**
 * Numerals `-?(0|[1-9][0-9]*)(\.0+)?` (the integer automaton's syntax: `1.0` is an integer) whose
 * value is in [lo, hi]; `-0` is 0. Needs lo ≤ hi.
 *
 * Built minimal, so no minimization pass runs (it was most of the cost of a new bound). After
 * the first digit of a magnitude, what may follow is the digit strings of a shortlex interval
 * [low, high] (shorter strings first, equal lengths by digits: the order of the values of
 * spellings without leading zeros), each optionally followed by `.0+`. States are those intervals,
 * so two states are equal exactly when their languages are, which is what a minimal automaton
 * needs; the positive and negative magnitudes share them. The start, the state after `-` and the
 * `.0+` tail cannot equal an interval state (the first two admit no leading zero and every
 * interval state is one of their derivatives; the tail reads no digit but 0).
 */
export function integerRangeDfa(lo: bigint, hi: bigint): Dfa {
  if (lo > hi) throw new RangeError(`integerRangeDfa: empty range [${lo}, ${hi}]`);
  const m = new RangeMachine();
  const start = m.add(false);
  if (hi >= 0n) m.magnitudes(start, lo > 0n ? lo : 0n, hi);
  if (lo <= 0n) {
    const negative = m.add(false);
    m.edges[start]!.push([MINUS, MINUS, negative]);
    m.magnitudes(negative, hi < 0n ? -hi : 0n, -lo);
  }
  return canonical({ start, accept: m.accept, edges: m.edges });
}

/** The states of {@link integerRangeDfa} under construction, interval states by their bounds. */
class RangeMachine {
  readonly accept: boolean[] = [];
  readonly edges: Edge[][] = [];
  private readonly intervals = new Map<string, number>();
  private readonly pending: Array<[state: number, low: string, high: string]> = [];
  /** `.0+` after any accepted integer part, made with the first accepting state. */
  private point = -1;

  add(accepting: boolean): number {
    this.accept.push(accepting);
    this.edges.push([]);
    return this.accept.length - 1;
  }

  /** From `from`, the spellings of the magnitudes a..c (0 ≤ a ≤ c). */
  magnitudes(from: number, a: bigint, c: bigint): void {
    const A = a.toString();
    const C = c.toString();
    const row = this.edges[from]!;
    // "0" alone; a longer spelling starts with 1..9, after which the rest is the interval [A, C]
    // less its first digit (digits d of A and C compare as spellings do once the first digit is
    // not 0).
    if (a === 0n) row.push([ZERO, ZERO, this.interval("", "")]);
    this.digitEdges(row, 1, A, C);
    for (let i = 0; i < this.pending.length; i++) {
      const [state, low, high] = this.pending[i]!;
      this.digitEdges(this.edges[state]!, 0, low, high);
    }
    this.pending.length = 0;
  }

  /** The state of the interval [low, high] (nonempty). */
  private interval(low: string, high: string): number {
    const key = `${low} ${high}`;
    let id = this.intervals.get(key);
    if (id === undefined) {
      const accepting = low === "";
      id = this.add(accepting);
      if (accepting) {
        if (this.point < 0) {
          this.point = this.add(false);
          const zeros = this.add(true);
          this.edges[this.point]!.push([ZERO, ZERO, zeros]);
          this.edges[zeros]!.push([ZERO, ZERO, zeros]);
        }
        this.edges[id]!.push([DOT, DOT, this.point]);
      }
      this.intervals.set(key, id);
      this.pending.push([id, low, high]);
    }
    return id;
  }

  /**
   * Edges on the digits `first`..9 out of the interval [low, high]: after digit d the interval of
   * the strings s with d·s in it (none where that is empty), runs of one target as one range.
   */
  private digitEdges(row: Edge[], first: number, low: string, high: string): void {
    let runStart = first;
    let runTarget = -2;
    for (let d = first; d <= 10; d++) {
      const t = d <= 9 ? this.after(d, low, high) : -2;
      if (d > first && t === runTarget) continue;
      if (runTarget >= 0) row.push([ZERO + runStart, ZERO + d - 1, runTarget]);
      runStart = d;
      runTarget = t;
    }
  }

  private after(d: number, low: string, high: string): number {
    if (high === "") return -1;
    const h = high.charCodeAt(0) - ZERO;
    // d·s ≤ high: s shorter than high (d < h's digit), s ≤ high's rest (equal), or shorter by two.
    let up: string;
    if (d < h) up = "9".repeat(high.length - 1);
    else if (d === h) up = high.slice(1);
    else if (high.length >= 2) up = "9".repeat(high.length - 2);
    else return -1;
    let down: string;
    if (low === "") down = "";
    else {
      const l = low.charCodeAt(0) - ZERO;
      down = d > l ? "0".repeat(low.length - 1) : d === l ? low.slice(1) : "0".repeat(low.length);
    }
    if (down.length > up.length || (down.length === up.length && down > up)) return -1;
    return this.interval(down, up);
  }
}
