/**
 * Automata over JSON numerals: the regions numerals are sorted into, value comparisons against a
 * decimal threshold, and divisibility. numbers.ts builds the keyword semantics on top.
 *
 * Regions (bits): PLAIN — plain numerals `-?(0|[1-9]\d{0,20})(\.\d{1,30})?` with at most 15
 * significant digits; PLAIN_WIDE — every other plain numeral (more significant digits, longer
 * integer parts or fractions); LARGE_POS / LARGE_NEG — exponent forms `[1-9](\.\d+)?e+E` with E
 * in 21..307 (and 1.0–1.6…e308: the forms JSON.stringify writes from 1e21 up, `E`/`e`, `+`
 * optional); SMALL_POS / SMALL_NEG — `…e-E` with E in 7..307. Within PLAIN, comparing a
 * numeral's decimal value and comparing the double JSON.parse makes of it always agree (distinct
 * decimals of 15 significant digits are distinct doubles, in the same order, and none is an
 * integer double unless it is an integer); in PLAIN_WIDE they can disagree. Only PLAIN counts
 * digits; the other regions, and so the automata of most keywords, have no counters.
 */
import { canonical, DfaBuilder, dfaFromKey, dfaNone, intersect, minimize, difference, union, type Dfa } from "./automaton.js";
import { markMinimal } from "./minimize.js";
import { NUMERAL_REGION_AUTOMATA } from "./numeral-regions.data.js";
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

const MANTISSA = "[1-9](\\.[0-9]+)?";
// Up to 1.6…e308 (below the largest double), and down to 1e-307 (normal doubles).
const LARGE = `(${MANTISSA}[eE]\\+?(2[1-9]|[3-9][0-9]|[12][0-9][0-9]|30[0-7])|1(\\.[0-6][0-9]*)?[eE]\\+?308)`;
const SMALL = `${MANTISSA}[eE]-([7-9]|[1-9][0-9]|[12][0-9][0-9]|30[0-7])`;
const PLAIN_SYNTAX = `-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,${FRACTION_DIGITS}})?`;
const WIDE_SYNTAX = `-?(0|[1-9][0-9]*)(\\.[0-9]+)?`;

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

/**
 * The automaton of one region, or of the union of the regions in `mask`, built from the
 * definitions above. Building them is the costliest part of a process's first number schema (the
 * PLAIN region is the product of its syntax with a significant-digit counter, ~400 states;
 * PLAIN_WIDE its difference from all plain numerals): ~250 ms, paid by a one-shot CLI run and a
 * server's first request. So the automata are stored, precomputed, in numeral-regions.data.ts
 * (scripts/generate-numeral-regions.mjs writes it from this function; a test checks that the
 * stored ones equal what this builds).
 */
export function buildRegionsDfa(mask: number): Dfa {
  const single = (bit: number): Dfa => {
    switch (bit) {
      case PLAIN:
        return intersect(regexToDfa(`^${PLAIN_SYNTAX}$`, true), significantAtMost(SIGNIFICANT_DIGITS));
      case PLAIN_WIDE:
        return difference(regexToDfa(`^${WIDE_SYNTAX}$`, true), single(PLAIN));
      case LARGE_POS:
        return regexToDfa(`^${LARGE}$`, true);
      case LARGE_NEG:
        return regexToDfa(`^-${LARGE}$`, true);
      case SMALL_POS:
        return regexToDfa(`^${SMALL}$`, true);
      default:
        return regexToDfa(`^-${SMALL}$`, true);
    }
  };
  let d = dfaNone();
  for (const bit of REGION_BITS) if (mask & bit) d = union(d, single(bit));
  return minimize(d);
}

/** The masks stored precomputed: each region, all plain numerals, every numeral. */
export const STORED_REGION_MASKS = [...REGION_BITS, PLAIN | PLAIN_WIDE, ALL_REGIONS];

const regionsCache = new Map<number, Dfa>();

function regionDfa(bit: number): Dfa {
  return regionsDfa(bit);
}

/** The numerals of the regions in `mask` (stored or cached). */
export function regionsDfa(mask: number): Dfa {
  let d = regionsCache.get(mask);
  if (d) return d;
  const stored = NUMERAL_REGION_AUTOMATA[mask];
  if (stored !== undefined) {
    d = markMinimal(dfaFromKey(stored));
  } else {
    // All plain numerals are one small automaton: never the product of PLAIN with PLAIN_WIDE.
    let rest = mask;
    d = dfaNone();
    if ((mask & (PLAIN | PLAIN_WIDE)) === (PLAIN | PLAIN_WIDE)) {
      d = regionsDfa(PLAIN | PLAIN_WIDE);
      rest &= ~(PLAIN | PLAIN_WIDE);
    }
    for (const bit of REGION_BITS) if (rest & bit) d = union(d, regionsDfa(bit));
  }
  regionsCache.set(mask, d);
  return d;
}

// ---- comparisons -----------------------------------------------------------------------------

/**
 * Adds to `b` the unsigned plain numerals (`(0|[1-9][0-9]*)(\.[0-9]+)?`) whose value times
 * 10^FRACTION_DIGITS is ≥ K (`ge`) or ≤ K, for K ≥ 0, and returns the start state (not
 * accepting, digit edges only). A comparison of digit strings: O(digits of K) states, built
 * directly with the numerals' syntax, so a bound needs no product with the region automata.
 */
function addMagnitudeCompare(b: DfaBuilder, K: bigint, ge: boolean): number {
  const F = FRACTION_DIGITS;
  const s = K.toString().padStart(F + 1, "0");
  const I = s.slice(0, s.length - F).replace(/^0+(?=.)/, "");
  const Fd = s.slice(s.length - F);
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
  // Past the last non-zero digit of Fd (every position of an integer threshold), the positions
  // are one state: equal so far, equal if it ends here, greater on any non-zero digit. Building
  // them apart made a 30-state chain that minimization then merged, for every bound.
  const zeroFrom = Math.max(1, Fd.replace(/0+$/, "").length);
  // Fraction digits while equal so far: position `pos` in Fd.
  const fracState = (at: number): number => {
    const pos = Math.min(at, zeroFrom);
    let st = fracStates.get(pos);
    if (st === undefined) {
      st = b.addState(pos > 0 && ok(tailZero(pos) ? 0 : -1));
      fracStates.set(pos, st);
      pendingFrac.push([st, pos]);
    }
    return st;
  };
  // The relation of an integer part of `len` digits, lexicographically `rel` to I so far.
  const intRelOf = (len: number, rel: number): number => (len < I.length ? -1 : len > I.length ? 1 : rel);
  const intAccepts = (intRel: number): boolean => ok(intRel !== 0 ? intRel : tailZero(0) ? 0 : -1);
  const dotTarget = (intRel: number): number => (intRel !== 0 ? afterDotDecided(intRel) : fracState(0));
  const pendingInt: Array<[number, number, number]> = [];
  const intStates = new Map<string, number>();
  // Integer digits: (length, lexicographic relation to I so far); longer than I is greater.
  const intState = (len: number, rel: number): number => {
    const key = len > I.length ? "long" : `${len},${rel}`;
    let st = intStates.get(key);
    if (st === undefined) {
      st = b.addState(intAccepts(intRelOf(len, rel)));
      intStates.set(key, st);
      pendingInt.push([st, len, rel]);
    }
    return st;
  };
  const start = b.addState(false);
  // A leading 0 is the whole integer part: only the point may follow.
  const zeroRel = intRelOf(1, Math.sign(0 - Number(I[0])));
  const zero = b.addState(intAccepts(zeroRel));
  b.addEdge(start, D(0), zero);
  b.addEdge(zero, [[DOT, DOT]], dotTarget(zeroRel));
  addDigitRuns(b, start, 1, (d) => intState(1, Math.sign(d - Number(I[0]))));
  for (let i = 0; i < pendingInt.length; i++) {
    const [st, len, rel] = pendingInt[i]!;
    const nlen = len + 1;
    addDigitRuns(b, st, 0, (d) => intState(nlen, rel !== 0 || nlen > I.length ? rel : Math.sign(d - Number(I[nlen - 1]))));
    b.edges[st]!.push([DOT, DOT, dotTarget(intRelOf(len, rel))]);
  }
  for (let i = 0; i < pendingFrac.length; i++) {
    const [st, pos] = pendingFrac[i]!;
    addDigitRuns(b, st, 0, (d) => {
      const rel = pos < F ? Math.sign(d - Number(Fd[pos])) : d > 0 ? 1 : 0;
      return rel !== 0 ? decided(rel) : fracState(Math.min(pos + 1, F));
    });
  }
  return start;
}

/** Edges from `st` on the digits `from`..9 to `target(d)`, consecutive digits with one target as one range. */
function addDigitRuns(b: DfaBuilder, st: number, from: number, target: (d: number) => number): void {
  const list = b.edges[st]!;
  let lo = from;
  let to = target(from);
  for (let d = from + 1; d <= 10; d++) {
    const next = d <= 9 ? target(d) : -1;
    if (next === to) continue;
    list.push([0x30 + lo, 0x30 + d - 1, to]);
    lo = d;
    to = next;
  }
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
  // Non-negatives with magnitude ≥ K (all when K ≤ 0) or ≤ K (none when K < 0); negatives
  // with magnitude ≤ -K or ≥ -K (all when the threshold is on the other side of zero). Each side
  // is a comparison automaton of its own; the start reads the sign. Built directly (one
  // minimization) instead of as products with the region automata: ~10× cheaper per bound.
  const positive: [bigint, boolean] | null = ge ? (K <= 0n ? [0n, true] : [K, true]) : K < 0n ? null : [K, false];
  const negative: [bigint, boolean] | null = ge ? (K <= 0n ? [-K, false] : null) : K >= 0n ? [0n, true] : [-K, true];
  const b = new DfaBuilder(Infinity);
  const start = b.addState(false);
  if (negative) b.addEdge(start, [[MINUS, MINUS]], addMagnitudeCompare(b, negative[0], negative[1]));
  if (positive) {
    const from = addMagnitudeCompare(b, positive[0], positive[1]);
    for (const e of b.edges[from]!) b.edges[start]!.push(e);
  }
  return minimize(b.build(start));
}

// ---- exponent forms ------------------------------------------------------------------------

/** Exponent range and syntax of each exponent region: [sign of the exponent, least, greatest]. */
const EXPONENTS: Record<number, [sign: 1 | -1, min: number, max: number]> = {
  [LARGE_POS]: [1, 21, 308],
  [LARGE_NEG]: [1, 21, 308],
  [SMALL_POS]: [-1, 7, 307],
  [SMALL_NEG]: [-1, 7, 307],
};

/** u = m · 10^e with 1 ≤ m < 10, for u > 0. */
function scientific(u: Rational): { m: Rational; e: number } {
  let e = u.n.toString().length - u.d.toString().length;
  const at = (k: number): Rational => (k >= 0 ? { n: u.n, d: u.d * 10n ** BigInt(k) } : { n: u.n * 10n ** BigInt(-k), d: u.d });
  const one: Rational = { n: 1n, d: 1n };
  while (cmpRational(at(e), one) < 0) e--;
  while (cmpRational(at(e + 1), one) >= 0) e++;
  return { m: at(e), e };
}

/** The DFA of `a` then one of `sep`, then `b` (`a`'s accepting states have no edge on `sep`). */
function concatOn(a: Dfa, sep: Array<[number, number]>, b: Dfa): Dfa {
  const out = new DfaBuilder(Infinity);
  const off = a.accept.length;
  a.accept.forEach(() => out.addState(false));
  b.accept.forEach((acc) => out.addState(acc));
  a.edges.forEach((list, st) => {
    for (const [lo, hi, to] of list) out.edges[st]!.push([lo, hi, to]);
    if (a.accept[st]) out.addEdge(st, sep, b.start + off);
  });
  b.edges.forEach((list, st) => {
    for (const [lo, hi, to] of list) out.edges[st + off]!.push([lo, hi, to + off]);
  });
  return minimize(out.build(a.start));
}

const MANTISSA_DFA = regexToDfa(`^${MANTISSA}$`, true);

/**
 * The numerals of one exponent region whose value is ≥ t (`ge`) or ≤ t, inclusive or not, when
 * t lies inside the region's range: by exponent first, then by mantissa (a plain comparison) at
 * t's own exponent.
 */
export function exponentCompare(bit: number, t: Rational, ge: boolean, inclusive: boolean): Dfa {
  const [expSign, min, max] = EXPONENTS[bit]!;
  const negative = bit === LARGE_NEG || bit === SMALL_NEG;
  // Compare magnitudes: in a negative region x ≥ t ⟺ |x| ≤ |t|.
  const up = negative ? !ge : ge;
  const u: Rational = t.n < 0n ? { n: -t.n, d: t.d } : t;
  if (u.n === 0n) return negative === ge ? dfaNone() : regionDfa(bit);
  const { m, e } = scientific(u);
  const beyond: string[] = [];
  let at: string | null = null;
  for (let E = min; E <= max; E++) {
    const v = expSign * E;
    if (v === e) at = String(E);
    else if (up ? v > e : v < e) beyond.push(String(E));
  }
  const expPrefix = expSign > 0 ? "\\+?" : "-";
  const E_CHARS: Array<[number, number]> = [[0x45, 0x45], [0x65, 0x65]];
  let out = dfaNone();
  if (beyond.length > 0) out = union(out, concatOn(MANTISSA_DFA, E_CHARS, regexToDfa(`^${expPrefix}(${beyond.join("|")})$`, true)));
  if (at !== null) {
    const mant = intersect(MANTISSA_DFA, plainCompare(m, up, inclusive));
    out = union(out, concatOn(mant, E_CHARS, regexToDfa(`^${expPrefix}${at}$`, true)));
  }
  if (negative) out = negated(out);
  return intersect(out, regionDfa(bit));
}

// ---- divisibility ----------------------------------------------------------------------------

/**
 * The most states of a divisibility automaton. Every remainder class becomes a rule of a
 * right-linear group that the engine inlines once per place the number appears, and its mask
 * cache walks every state: with Llama 3 a prime near 4000 compiles in about 1 s. Larger divisors
 * wait for a remainder counter in the matcher (issue 13).
 */
export const MAX_MOD_STATES = 4096;
/** The most states built before minimizing (a decimal divisor's fraction digits multiply them). */
const MAX_MOD_BUILD_STATES = 8 * MAX_MOD_STATES;

/**
 * Thrown when a divisibility automaton would exceed MAX_MOD_STATES; `states` is how many it needs
 * (at least): the divisor's part coprime to 10 when that alone is over the budget (found before
 * anything is built), otherwise the count reached when the budget ran out.
 */
export class DivisorTooLarge extends RangeError {
  constructor(readonly states: bigint) {
    super(`the divisibility automaton needs at least ${states} states`);
  }
}

/**
 * The states of "the digits read so far, as an integer, modulo p" up to equivalence: p is
 * split as m·q with q = 2^a·5^b and m coprime to 10. The residue modulo m is needed whole (any
 * two differ on some continuation), but modulo q only what decides the continuations shorter
 * than c = max(a, b) digits (10^c is a multiple of q, so longer ones depend on their last c
 * digits alone): for each length k < c, the continuation value w < 10^k with
 * w ≡ −r·10^k (mod q), if there is one. 10^6 needs 7 states (how many trailing zeros, up to 6),
 * 1024 about 513, a prime near 10^4 all of its residues.
 */
class ResidueClasses {
  private readonly m: bigint;
  private readonly q: bigint;
  private readonly c: number;
  private readonly ids = new Map<string, number>();
  /** Per class: a residue modulo m and a representative residue modulo q. */
  readonly reps: Array<[bigint, bigint]> = [];

  constructor(p: bigint) {
    let q = 1n;
    let m = p;
    let a = 0;
    let b = 0;
    while (m % 2n === 0n) {
      m /= 2n;
      q *= 2n;
      a++;
    }
    while (m % 5n === 0n) {
      m /= 5n;
      q *= 5n;
      b++;
    }
    // Every remainder modulo m is a class of its own (and is reached): refuse before building.
    if (m > BigInt(MAX_MOD_STATES)) throw new DivisorTooLarge(m);
    this.m = m;
    this.q = q;
    this.c = Math.max(a, b);
  }

  /** Whether p is coprime to 10 (no q part). */
  get coprime(): boolean {
    return this.q === 1n;
  }

  /** The class of residues (rm mod m, rq mod q), numbered on first sight. */
  classOf(rm: bigint, rq: bigint): number {
    let key = `${rm}`;
    const q = this.q;
    key += rq === 0n ? "|0" : "|x";
    let pow = 10n;
    for (let k = 1; k < this.c; k++, pow *= 10n) {
      const v = (((-rq * pow) % q) + q) % q;
      key += v < pow ? `,${v}` : ",-";
    }
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.reps.length;
      if (id >= MAX_MOD_STATES) throw new DivisorTooLarge(BigInt(id + 1));
      this.ids.set(key, id);
      this.reps.push([rm, rq]);
    }
    return id;
  }

  /** The class after one more digit. */
  next(cls: number, digit: number): number {
    const [rm, rq] = this.reps[cls]!;
    const d = BigInt(digit);
    return this.classOf((rm * 10n + d) % this.m, (rq * 10n + d) % this.q);
  }

  /** Whether the digits of the class, followed by `zeros` zeros, are a multiple of p. */
  zeroAfter(cls: number, zeros: number): boolean {
    const [rm, rq] = this.reps[cls]!;
    const f = 10n ** BigInt(zeros);
    return (rm * f) % this.m === 0n && (rq * f) % this.q === 0n;
  }
}

/**
 * Plain numerals (`-?(0|[1-9][0-9]*)(\.[0-9]{1,30})?`, integer parts of any length) whose
 * decimal value is a multiple of p / 10^s — the digits of the numeral, its fraction padded with
 * zeros to s places, read as an integer, are a multiple of p. Built directly from the residue
 * classes (see ResidueClasses), so its size follows the divisor, not the length of numerals:
 * states are (class, fraction digits read) plus one state of trailing zeros. Throws DivisorTooLarge
 * when the automaton (minimized) has more than MAX_MOD_STATES states, or building it would pass
 * MAX_MOD_BUILD_STATES.
 */
export function plainMultipleOf(p: bigint, s: number): Dfa {
  const classes = new ResidueClasses(p);
  const tracked = s;
  const b = new DfaBuilder(Infinity);
  const budget = (): void => {
    if (b.accept.length > MAX_MOD_BUILD_STATES) throw new DivisorTooLarge(BigInt(b.accept.length));
  };
  const start = b.addState(false);
  const signed = b.addState(false);
  // The integer part 0: only a fraction may follow.
  const zero = b.addState(s === 0 || classes.zeroAfter(classes.classOf(0n, 0n), s));
  // After the fraction's `tracked` digits, only zeros.
  const zeros = b.addState(true);
  b.addEdge(zeros, D(0), zeros);
  // States per (class, fraction digits read): k = 0 is the integer part, -1 just after the dot.
  const ids = new Map<string, number>();
  const pending: Array<[number, number, number]> = [];
  const state = (cls: number, k: number): number => {
    const key = `${cls},${k}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = b.addState(k >= 0 && classes.zeroAfter(cls, s - k));
      budget();
      ids.set(key, id);
      pending.push([id, cls, k]);
    }
    return id;
  };
  const c0 = classes.classOf(0n, 0n);
  b.addEdge(start, [[MINUS, MINUS]], signed);
  for (const from of [start, signed]) {
    b.addEdge(from, D(0), zero);
    for (let d = 1; d <= 9; d++) b.addEdge(from, D(d), state(classes.next(c0, d), 0));
  }
  b.addEdge(zero, [[DOT, DOT]], state(c0, -1));
  for (let i = 0; i < pending.length; i++) {
    const [id, cls, k] = pending[i]!;
    if (k === 0) {
      for (let d = 0; d <= 9; d++) b.addEdge(id, D(d), state(classes.next(cls, d), 0));
      if (s > 0 || classes.zeroAfter(cls, 0)) b.addEdge(id, [[DOT, DOT]], state(cls, -1));
      continue;
    }
    const read = Math.max(k, 0);
    if (read < tracked) {
      for (let d = 0; d <= 9; d++) b.addEdge(id, D(d), state(classes.next(cls, d), read + 1));
    } else if (classes.zeroAfter(cls, s - read)) {
      // Every digit that matters is read: only zeros may follow.
      b.addEdge(id, D(0), zeros);
    }
  }
  // A divisor coprime to 10 has minimal states already (any two residues differ on some
  // continuation; the dot only follows a multiple; every state can still reach one). Otherwise
  // short continuations may not tell some (residue mod m, class mod q) pairs apart, and a
  // decimal divisor's fraction states may merge: minimize.
  const dfa = s === 0 && classes.coprime ? canonical(b.build(start)) : minimize(b.build(start));
  if (dfa.accept.length > MAX_MOD_STATES) throw new DivisorTooLarge(BigInt(dfa.accept.length));
  return dfa;
}
