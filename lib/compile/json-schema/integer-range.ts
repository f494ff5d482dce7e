/**
 * The numerals of the integers in a closed range, built directly over digits: what
 * `{"type": "integer", "minimum": lo, "maximum": hi}` admits. The general route (numbers.ts) builds
 * each bound over every JSON numeral (fractions, exponent forms), unites it with the exponent
 * regions and intersects it with the integer automaton: three products and minimizations per
 * schema, most of the lowering of a tool whose parameter has a new integer bound. Here the
 * automaton is read off the digits of the two bounds and minimized once (a few dozen states).
 * numbers.ts (integerRangeSet) decides when this applies and what the set's domain is; the
 * automaton equals the general route's (test/schema/integer-range.test.ts compares them).
 */
import { DfaBuilder, minimize, type Dfa } from "./automaton.js";

const DOT = 0x2e;
const MINUS = 0x2d;
const ZERO = 0x30;

/**
 * Numerals `-?(0|[1-9][0-9]*)(\.0+)?` (the integer automaton's syntax: `1.0` is an integer) whose
 * value is in [lo, hi]; `-0` is 0. Needs lo ≤ hi.
 */
export function integerRangeDfa(lo: bigint, hi: bigint): Dfa {
  if (lo > hi) throw new RangeError(`integerRangeDfa: empty range [${lo}, ${hi}]`);
  const b = new DfaBuilder(Infinity);
  const start = b.addState(false);
  // `.0+` after any accepted integer part: one shared tail.
  const point = b.addState(false);
  const zeros = b.addState(true);
  b.addEdge(point, [[ZERO, ZERO]], zeros);
  b.addEdge(zeros, [[ZERO, ZERO]], zeros);
  if (hi >= 0n) addMagnitudes(b, start, lo > 0n ? lo : 0n, hi, point);
  if (lo <= 0n) {
    const negative = b.addState(false);
    b.addEdge(start, [[MINUS, MINUS]], negative);
    addMagnitudes(b, negative, hi < 0n ? -hi : 0n, -lo, point);
  }
  return minimize(b.build(start));
}

/**
 * From `from`, the decimal spellings (no leading zero) of the magnitudes a..c (0 ≤ a ≤ c), each
 * accepting and followed by `point` on a dot. A state is (digits read, lexicographic relation of
 * them to as many leading digits of a, and of c): a longer spelling than a's is above it, a
 * shorter one than c's below it.
 */
function addMagnitudes(b: DfaBuilder, from: number, a: bigint, c: bigint, point: number): void {
  const A = a.toString();
  const C = c.toString();
  const accepts = (len: number, ra: number, rc: number): boolean =>
    (len > A.length || (len === A.length && ra >= 0)) && (len < C.length || (len === C.length && rc <= 0));
  if (a === 0n) {
    const zero = b.addState(true);
    b.addEdge(from, [[ZERO, ZERO]], zero);
    b.addEdge(zero, [[DOT, DOT]], point);
  }
  const ids = new Map<string, number>();
  const pending: Array<[state: number, len: number, ra: number, rc: number]> = [];
  const state = (len: number, ra: number, rc: number): number => {
    // Past a's length the relation to a no longer matters (the spelling is above it).
    const r = len > A.length ? 1 : ra;
    const key = `${len},${r},${rc}`;
    let id = ids.get(key);
    if (id === undefined) {
      const accepting = accepts(len, r, rc);
      id = b.addState(accepting);
      if (accepting) b.addEdge(id, [[DOT, DOT]], point);
      ids.set(key, id);
      pending.push([id, len, r, rc]);
    }
    return id;
  };
  /** The state after digit d, or -1 when no spelling of the range goes on so. */
  const next = (len: number, ra: number, rc: number, d: number): number => {
    const n = len + 1;
    if (n > C.length) return -1;
    const nc = rc !== 0 ? rc : Math.sign(d - Number(C[len]));
    if (n === C.length && nc > 0) return -1;
    const na = n > A.length ? 1 : ra !== 0 ? ra : Math.sign(d - Number(A[len]));
    return state(n, na, nc);
  };
  addDigits(b, from, 1, (d) => next(0, 0, 0, d));
  for (let i = 0; i < pending.length; i++) {
    const [id, len, ra, rc] = pending[i]!;
    addDigits(b, id, 0, (d) => next(len, ra, rc, d));
  }
}

/** Edges from `st` on the digits `first`..9 to `target(d)` (none where it is -1), runs of one target as one range. */
function addDigits(b: DfaBuilder, st: number, first: number, target: (d: number) => number): void {
  let lo = first;
  let to = target(first);
  for (let d = first + 1; d <= 10; d++) {
    const t = d <= 9 ? target(d) : -2;
    if (t === to) continue;
    if (to >= 0) b.addEdge(st, [[ZERO + lo, ZERO + d - 1]], to);
    lo = d;
    to = t;
  }
}
