/**
 * Automata over JSON numerals: the regions numerals are sorted into, value comparisons against a
 * decimal threshold, and divisibility. numbers.ts builds the keyword semantics on top.
 *
 * Regions (bits): PLAIN — plain numerals `-?(0|[1-9]\d{0,20})(\.\d{1,30})?` with at most 15
 * significant digits; PLAIN_WIDE — the same syntax with more; LARGE_POS / LARGE_NEG — exponent
 * forms `[1-9](\.\d{1,16})?e+E` with E in 21..307 (and 1.0–1.6…e308; what JSON.stringify writes
 * from 1e21 up, `E`/`e`, `+` optional); SMALL_POS / SMALL_NEG — `…e-E` with E in 7..307. Within PLAIN, comparing a
 * numeral's decimal value and comparing the double JSON.parse makes of it always agree (distinct
 * decimals of 15 significant digits are distinct doubles, in the same order, and none is an
 * integer double unless it is an integer); in PLAIN_WIDE they can disagree.
 */
import { DfaBuilder, dfaNone, intersect, minimize, difference, union, type Dfa } from "./automaton.js";
import { regexToDfa } from "./regex.js";

export const PLAIN = 1;
export const PLAIN_WIDE = 2;
export const LARGE_POS = 4;
export const LARGE_NEG = 8;
export const SMALL_POS = 16;
export const SMALL_NEG = 32;
export const ALL_REGIONS = 63;
export const REGION_BITS = [PLAIN, PLAIN_WIDE, LARGE_POS, LARGE_NEG, SMALL_POS, SMALL_NEG];

/** The most fraction digits of a plain numeral (so thresholds can be rounded to this grid). */
export const FRACTION_DIGITS = 30;
/** The most significant digits of a PLAIN numeral. */
export const SIGNIFICANT_DIGITS = 15;

const MANTISSA = "[1-9](\\.[0-9]{1,16})?";
// Up to 1.6…e308 (below the largest double), and down to 1e-307 (normal doubles).
const LARGE = `(${MANTISSA}[eE]\\+?(2[1-9]|[3-9][0-9]|[12][0-9][0-9]|30[0-7])|1(\\.[0-6][0-9]{0,15})?[eE]\\+?308)`;
const SMALL = `${MANTISSA}[eE]-([7-9]|[1-9][0-9]|[12][0-9][0-9]|30[0-7])`;
const PLAIN_SYNTAX = `-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,${FRACTION_DIGITS}})?`;

/** The value range of each exponent region as [bit, sign, exponent of lo, exponent of hi]: ±[10^lo, 10^hi]. */
export const REGION_RANGES: Array<[bit: number, sign: 1 | -1, lo: number, hi: number]> = [
  [LARGE_POS, 1, 21, 309],
  [LARGE_NEG, -1, 21, 309],
  [SMALL_POS, 1, -307, -6],
  [SMALL_NEG, -1, -307, -6],
];

const DIGITS: Array<[number, number]> = [[0x30, 0x39]];
const D = (d: number): Array<[number, number]> => [[0x30 + d, 0x30 + d]];
const DOT = 0x2e;
const MINUS = 0x2d;

/** Numerals (any syntax over `-`, `.` and digits) with at most `max` significant digits. */
function significantAtMost(max: number): Dfa {
  const b = new DfaBuilder();
  // State (c, z): c digits from the first non-zero to the last non-zero, z zeros since (capped).
  const ids = new Map<string, number>();
  const pending: Array<[number, number, number]> = [];
  const state = (c: number, z: number): number => {
    const key = `${c},${z}`;
    let s = ids.get(key);
    if (s === undefined) {
      s = b.addState(true);
      ids.set(key, s);
      pending.push([s, c, z]);
    }
    return s;
  };
  const start = state(0, 0);
  for (let i = 0; i < pending.length; i++) {
    const [s, c, z] = pending[i]!;
    b.addEdge(s, [[MINUS, MINUS], [DOT, DOT]], s);
    b.addEdge(s, D(0), c === 0 ? s : state(c, Math.min(z + 1, max - c + 1)));
    const nc = c === 0 ? 1 : c + z + 1;
    if (nc <= max) b.addEdge(s, [[0x31, 0x39]], state(nc, 0));
  }
  return minimize(b.build(start));
}

const cache = new Map<number, Dfa>();

function regionDfa(bit: number): Dfa {
  let d = cache.get(bit);
  if (d) return d;
  switch (bit) {
    case PLAIN:
      d = intersect(regexToDfa(`^${PLAIN_SYNTAX}$`, true), significantAtMost(SIGNIFICANT_DIGITS));
      break;
    case PLAIN_WIDE:
      d = difference(regexToDfa(`^${PLAIN_SYNTAX}$`, true), significantAtMost(SIGNIFICANT_DIGITS));
      break;
    case LARGE_POS:
      d = regexToDfa(`^${LARGE}$`, true);
      break;
    case LARGE_NEG:
      d = regexToDfa(`^-${LARGE}$`, true);
      break;
    case SMALL_POS:
      d = regexToDfa(`^${SMALL}$`, true);
      break;
    default:
      d = regexToDfa(`^-${SMALL}$`, true);
  }
  cache.set(bit, d);
  return d;
}

const unionCache = new Map<number, Dfa>();

/** The numerals of the regions in `mask` (cached). */
export function regionsDfa(mask: number): Dfa {
  let d = unionCache.get(mask);
  if (d) return d;
  d = dfaNone();
  for (const bit of REGION_BITS) if (mask & bit) d = union(d, regionDfa(bit));
  unionCache.set(mask, d);
  return d;
}

// ---- comparisons -----------------------------------------------------------------------------

/**
 * Unsigned plain numerals (syntax left to the region automaton) whose value times
 * 10^FRACTION_DIGITS is ≥ K (`ge`) or ≤ K, for K ≥ 0.
 */
function magnitudeCompare(K: bigint, ge: boolean): Dfa {
  const F = FRACTION_DIGITS;
  const s = K.toString().padStart(F + 1, "0");
  const I = s.slice(0, s.length - F).replace(/^0+(?=.)/, "");
  const Fd = s.slice(s.length - F);
  const b = new DfaBuilder();
  const ok = (rel: number): boolean => (ge ? rel >= 0 : rel <= 0);
  const tailZero = (pos: number): boolean => /^0*$/.test(Fd.slice(pos));
  const decidedLoop = new Map<number, number>();
  // Digits after the point once the comparison is decided.
  const decided = (rel: number): number => {
    let st = decidedLoop.get(rel);
    if (st === undefined) {
      st = b.addState(ok(rel));
      decidedLoop.set(rel, st);
      b.addEdge(st, DIGITS, st);
    }
    return st;
  };
  const decidedDot = new Map<number, number>();
  const afterDotDecided = (rel: number): number => {
    let st = decidedDot.get(rel);
    if (st === undefined) {
      st = b.addState(false);
      decidedDot.set(rel, st);
      b.addEdge(st, DIGITS, decided(rel));
    }
    return st;
  };
  const pendingFrac: Array<[number, number]> = [];
  const fracStates = new Map<number, number>();
  // Fraction digits while equal so far: position `pos` in Fd.
  const fracState = (pos: number): number => {
    let st = fracStates.get(pos);
    if (st === undefined) {
      st = b.addState(pos > 0 && ok(tailZero(pos) ? 0 : -1));
      fracStates.set(pos, st);
      pendingFrac.push([st, pos]);
    }
    return st;
  };
  const pendingInt: Array<[number, number, number]> = [];
  const intStates = new Map<string, number>();
  // Integer digits: (length, lexicographic relation to I so far); longer than I is greater.
  const intState = (len: number, rel: number): number => {
    const key = len > I.length ? "long" : `${len},${rel}`;
    let st = intStates.get(key);
    if (st === undefined) {
      const intRel = len < I.length ? -1 : len > I.length ? 1 : rel;
      st = b.addState(ok(intRel !== 0 ? intRel : tailZero(0) ? 0 : -1));
      intStates.set(key, st);
      pendingInt.push([st, len, rel]);
    }
    return st;
  };
  const start = b.addState(false);
  for (let d = 0; d <= 9; d++) b.addEdge(start, D(d), intState(1, Math.sign(d - Number(I[0]))));
  for (let i = 0; i < pendingInt.length; i++) {
    const [st, len, rel] = pendingInt[i]!;
    for (let d = 0; d <= 9; d++) {
      const nlen = len + 1;
      const nrel = rel !== 0 || nlen > I.length ? rel : Math.sign(d - Number(I[nlen - 1]));
      b.addEdge(st, D(d), intState(nlen, nrel));
    }
    const intRel = len < I.length ? -1 : len > I.length ? 1 : rel;
    b.addEdge(st, [[DOT, DOT]], intRel !== 0 ? afterDotDecided(intRel) : fracState(0));
  }
  for (let i = 0; i < pendingFrac.length; i++) {
    const [st, pos] = pendingFrac[i]!;
    for (let d = 0; d <= 9; d++) {
      const rel = pos < F ? Math.sign(d - Number(Fd[pos])) : d > 0 ? 1 : 0;
      b.addEdge(st, D(d), rel !== 0 ? decided(rel) : fracState(Math.min(pos + 1, F)));
    }
  }
  return minimize(b.build(start));
}

/** "-" followed by a numeral of `m`. */
function negated(m: Dfa): Dfa {
  const out = new DfaBuilder();
  const s0 = out.addState(false);
  m.accept.forEach((acc) => out.addState(acc));
  m.edges.forEach((list, s) => {
    for (const [lo, hi, to] of list) out.edges[s + 1]!.push([lo, hi, to + 1]);
  });
  out.edges[s0]!.push([MINUS, MINUS, m.start + 1]);
  return out.build(s0);
}

/** An exact rational n / d (d > 0). */
export interface Rational {
  n: bigint;
  d: bigint;
}

/** Compares two rationals. */
export function cmpRational(a: Rational, b: Rational): number {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

/**
 * Plain numerals (signed, any number of significant digits) whose value is ≥ T (`ge`) or ≤ T,
 * `inclusive` or not.
 */
export function plainCompare(t: Rational, ge: boolean, inclusive: boolean): Dfa {
  // Values are on the grid 10^-F: t ≥ T ⟺ scaled ≥ ceil(T·10^F) (+1 when exclusive and T is on the grid).
  const num = t.n * 10n ** BigInt(FRACTION_DIGITS);
  let q = num / t.d;
  const r = num % t.d;
  if (r !== 0n && num < 0n) q -= 1n;
  const floor = q;
  const ceil = r === 0n ? q : q + 1n;
  const onGrid = r === 0n;
  const K = ge ? (inclusive || !onGrid ? ceil : ceil + 1n) : inclusive || !onGrid ? floor : floor - 1n;
  let dfa: Dfa;
  if (ge) {
    // Non-negatives with magnitude ≥ K (all when K ≤ 0), negatives with magnitude ≤ -K.
    dfa = K <= 0n ? union(magnitudeCompare(0n, true), negated(magnitudeCompare(-K, false))) : magnitudeCompare(K, true);
  } else {
    // Non-negatives with magnitude ≤ K (none when K < 0), negatives with magnitude ≥ -K.
    const neg = negated(magnitudeCompare(K >= 0n ? 0n : -K, true));
    dfa = K >= 0n ? union(magnitudeCompare(K, false), neg) : neg;
  }
  return intersect(dfa, regionsDfa(PLAIN | PLAIN_WIDE));
}

// ---- divisibility ----------------------------------------------------------------------------

/** The most states of a divisibility automaton. */
export const MAX_MOD_STATES = 20000;

/**
 * Plain numerals (any number of significant digits) whose decimal value is a multiple of
 * p / 10^s. Syntax is left to the region automaton. Throws RangeError past MAX_MOD_STATES.
 */
export function plainMultipleOf(p: bigint, s: number): Dfa {
  if (p > BigInt(MAX_MOD_STATES) || (Number(p) + 1) * (s + 3) > MAX_MOD_STATES) throw new RangeError("divisor too large");
  const P = Number(p);
  const pow10 = (k: number): number => {
    let r = 1 % P;
    for (let i = 0; i < k; i++) r = (r * 10) % P;
    return r;
  };
  const b = new DfaBuilder();
  const start = b.addState(false);
  const signed = b.addState(false);
  // Integer digits: r = value mod P. The value times 10^s must be ≡ 0.
  const ints = Array.from({ length: P }, (_, r) => b.addState((r * pow10(s)) % P === 0));
  const dots = Array.from({ length: P }, () => b.addState(false));
  // After k fraction digits (1 ≤ k ≤ s): value·10^k mod P; then only zeros.
  const fracs = Array.from({ length: P }, (_, r) => Array.from({ length: s }, (_, i) => b.addState((r * pow10(s - i - 1)) % P === 0)));
  const zeros = Array.from({ length: P }, (_, r) => b.addState(r === 0));
  b.addEdge(start, [[MINUS, MINUS]], signed);
  for (const from of [start, signed]) for (let d = 0; d <= 9; d++) b.addEdge(from, D(d), ints[d % P]!);
  for (let r = 0; r < P; r++) {
    for (let d = 0; d <= 9; d++) b.addEdge(ints[r]!, D(d), ints[(r * 10 + d) % P]!);
    b.addEdge(ints[r]!, [[DOT, DOT]], dots[r]!);
    if (s === 0) b.addEdge(dots[r]!, D(0), zeros[r]!);
    else for (let d = 0; d <= 9; d++) b.addEdge(dots[r]!, D(d), fracs[(r * 10 + d) % P]![0]!);
    for (let k = 1; k <= s; k++) {
      const st = fracs[r]![k - 1]!;
      if (k < s) for (let d = 0; d <= 9; d++) b.addEdge(st, D(d), fracs[(r * 10 + d) % P]![k]!);
      else b.addEdge(st, D(0), zeros[r]!);
    }
    b.addEdge(zeros[r]!, D(0), zeros[r]!);
  }
  return intersect(b.build(start), regionsDfa(PLAIN | PLAIN_WIDE));
}
