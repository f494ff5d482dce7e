/**
 * Numbers as regular languages of their JSON text, exact by value.
 *
 * A number keyword (`minimum`, `multipleOf`, `const`, `type: integer`, …) becomes an automaton
 * over numerals. Values are compared as JavaScript compares them after `JSON.parse`: a numeral
 * satisfies `maximum: C` when the double nearest to it is at most C (so `18446744073709552000`
 * satisfies `maximum: 18446744073709551615`, whose double is 2^64). The thresholds are exact
 * midpoints between adjacent doubles.
 *
 * Constrained numbers use a restricted numeral language N, covering everything JSON.stringify
 * writes: plain numerals `-?(0|[1-9]\d{0,20})(\.\d{1,22})?` (region "plain") and exponent forms
 * with a mantissa of at most 17 digits, for values from 1e21 up (regions "large+", "large-") and
 * below 1e-6 ("small+", "small-"). Each constraint is exact on the regions it can decide; a
 * region it cannot (a bound inside the exponent range, a divisor the exponent forms do not
 * settle) is dropped from its *domain*. Complements are taken within the domain, so every
 * operation stays sound: a numeral accepted always satisfies the schema.
 */
import { DfaBuilder, dfaNone, intersect, minimize, difference, union, isEmpty, type Dfa } from "./automaton.js";
import { regexToDfa } from "./regex.js";

/** The most fraction digits of a plain numeral in N. */
export const MAX_FRACTION_DIGITS = 22;
/** The most integer digits of a plain numeral in N (values below 1e21). */
export const MAX_INTEGER_DIGITS = 21;

/** Region bits of N. */
export const PLAIN = 1;
export const LARGE_POS = 2;
export const LARGE_NEG = 4;
export const SMALL_POS = 8;
export const SMALL_NEG = 16;
export const ALL_REGIONS = 31;

const EXP_LARGE = "e\\+(2[1-9]|[3-9][0-9]|[12][0-9][0-9]|30[0-7])";
const EXP_SMALL = "e-([7-9]|[1-9][0-9]|[12][0-9][0-9]|30[0-7])";
const MANTISSA = "[1-9](\\.[0-9]{1,16})?";

let regionCache: Map<number, Dfa> | null = null;

/** The numerals of one region (a single bit). */
function regionDfa(bit: number): Dfa {
  regionCache ??= new Map();
  let d = regionCache.get(bit);
  if (!d) {
    const large = `(${MANTISSA}${EXP_LARGE}|1(\\.[0-6][0-9]{0,15})?e\\+308)`;
    const small = `${MANTISSA}${EXP_SMALL}`;
    const src =
      bit === PLAIN
        ? `-?(0|[1-9][0-9]{0,${MAX_INTEGER_DIGITS - 1}})(\\.[0-9]{1,${MAX_FRACTION_DIGITS}})?`
        : bit === LARGE_POS
          ? large
          : bit === LARGE_NEG
            ? `-${large}`
            : bit === SMALL_POS
              ? small
              : `-${small}`;
    d = regexToDfa(`^${src}$`, true);
    regionCache.set(bit, d);
  }
  return d;
}

/** The numerals of the regions in `mask`. */
export function regionsDfa(mask: number): Dfa {
  let out = dfaNone();
  for (const bit of [PLAIN, LARGE_POS, LARGE_NEG, SMALL_POS, SMALL_NEG]) if (mask & bit) out = union(out, regionDfa(bit));
  return out;
}

/**
 * A set of numerals: `all` is every JSON number (emitted with the general number grammar), `int`
 * every integer (emitted compactly), `dfa` an automaton exact within `domain` (region bits).
 */
export type NumSet =
  | { kind: "none" }
  | { kind: "all" }
  | { kind: "int" }
  | { kind: "dfa"; dfa: Dfa; domain: number };

export const NUM_NONE: NumSet = { kind: "none" };
export const NUM_ALL: NumSet = { kind: "all" };
export const NUM_INT: NumSet = { kind: "int" };

let integerCache: { dfa: Dfa; domain: number } | null = null;

function asDfa(s: NumSet): { dfa: Dfa; domain: number } {
  switch (s.kind) {
    case "none":
      return { dfa: dfaNone(), domain: ALL_REGIONS };
    case "all":
      return { dfa: regionsDfa(ALL_REGIONS), domain: ALL_REGIONS };
    case "int":
      return (integerCache ??= multipleOfAtom(1n, 0));
    case "dfa":
      return s;
  }
}

function normalize(dfa: Dfa, domain: number): NumSet {
  return isEmpty(dfa) ? NUM_NONE : { kind: "dfa", dfa, domain };
}

/** Intersection. */
export function numAnd(a: NumSet, b: NumSet): NumSet {
  if (a.kind === "none" || b.kind === "none") return NUM_NONE;
  if (a.kind === "all") return b;
  if (b.kind === "all") return a;
  if (a.kind === "int" && b.kind === "int") return a;
  const x = asDfa(a);
  const y = asDfa(b);
  return normalize(intersect(x.dfa, y.dfa), x.domain & y.domain);
}

/** Union. */
export function numOr(a: NumSet, b: NumSet): NumSet {
  if (a.kind === "all" || b.kind === "all") return NUM_ALL;
  if (a.kind === "none") return b;
  if (b.kind === "none") return a;
  if (a.kind === "int" && b.kind === "int") return a;
  const x = asDfa(a);
  const y = asDfa(b);
  return normalize(union(x.dfa, y.dfa), x.domain & y.domain);
}

/** Complement (within the domain). */
export function numNot(a: NumSet): NumSet {
  if (a.kind === "none") return NUM_ALL;
  if (a.kind === "all") return NUM_NONE;
  const x = asDfa(a);
  return normalize(difference(regionsDfa(x.domain), x.dfa), x.domain);
}

// ---- exact doubles ---------------------------------------------------------------------------

/** A non-negative-denominator rational n / 2^k. */
interface Dyadic {
  n: bigint;
  k: bigint;
}

function bitsOf(x: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0);
}

function fromBits(b: bigint): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, b);
  return view.getFloat64(0);
}

/** The exact value of a finite double. */
function exact(x: number): Dyadic {
  const bits = bitsOf(x);
  const sign = bits >> 63n ? -1n : 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = e === 0 ? frac : frac | (1n << 52n);
  const exp = (e === 0 ? 1 : e) - 1075; // value = mant * 2^exp
  return exp >= 0 ? { n: sign * (mant << BigInt(exp)), k: 0n } : { n: sign * mant, k: BigInt(-exp) };
}

/** The next double up (toward +Infinity). */
function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  const b = bitsOf(x);
  return x > 0 ? fromBits(b + 1n) : fromBits(b - 1n);
}

/** The next double down. */
function nextDown(x: number): number {
  return -nextUp(-x);
}

function isEvenDouble(x: number): boolean {
  return (bitsOf(x) & 1n) === 0n;
}

function midpoint(a: number, b: number): Dyadic {
  const x = exact(a);
  const y = exact(b);
  const k = x.k > y.k ? x.k : y.k;
  const n = (x.n << (k - x.k)) + (y.n << (k - y.k));
  return { n, k: k + 1n };
}

/** floor / ceil of d * 10^MAX_FRACTION_DIGITS, and whether it is exact. */
function scaled(d: Dyadic): { floor: bigint; ceil: bigint; exact: boolean } {
  const num = d.n * 10n ** BigInt(MAX_FRACTION_DIGITS);
  const den = 1n << d.k;
  let q = num / den;
  const r = num % den;
  if (r !== 0n && num < 0n) q -= 1n; // floor toward -inf
  return { floor: q, ceil: r === 0n ? q : q + 1n, exact: r === 0n };
}

/** Whether a dyadic is ≥ / ≤ a plain number, compared exactly. */
function cmpDyadic(d: Dyadic, x: number): number {
  const e = exact(x);
  const k = d.k > e.k ? d.k : e.k;
  const l = d.n << (k - d.k);
  const r = e.n << (k - e.k);
  return l < r ? -1 : l > r ? 1 : 0;
}

// ---- plain-region automata -------------------------------------------------------------------

const DIGITS: Array<[number, number]> = [[0x30, 0x39]];
const D = (d: number): Array<[number, number]> => [[0x30 + d, 0x30 + d]];
const DOT = 0x2e;
const MINUS = 0x2d;

/**
 * Magnitudes (unsigned plain numerals) whose value scaled by 10^MAX_FRACTION_DIGITS is ≥ K
 * (`ge`) or ≤ K; syntax is left to the region automaton it is intersected with.
 */
function magnitudeCompare(K: bigint, ge: boolean): Dfa {
  const F = MAX_FRACTION_DIGITS;
  const s = K.toString().padStart(F + 1, "0");
  const I = s.slice(0, s.length - F).replace(/^0+(?=.)/, "");
  const Fd = s.slice(s.length - F);
  const b = new DfaBuilder();
  const ok = (rel: number): boolean => (ge ? rel >= 0 : rel <= 0);
  // Fraction states once the integer part decided the comparison (rel = -1 or 1).
  const fracDecided = new Map<number, number>();
  const decided = (rel: number): number => {
    let st = fracDecided.get(rel);
    if (st === undefined) {
      st = b.addState(ok(rel));
      fracDecided.set(rel, st);
      b.addEdge(st, DIGITS, st);
    }
    return st;
  };
  // Integer part: states keyed by (length, rel); lengths beyond |I| are "longer" (greater).
  const intStates = new Map<string, number>();
  const intState = (len: number, rel: number): number => {
    const key = len > I.length ? "long" : `${len},${rel}`;
    let st = intStates.get(key);
    if (st === undefined) {
      const intRel = len < I.length ? -1 : len > I.length ? 1 : rel;
      // With no fraction the value is I.000…: equal only if K has no fraction digits.
      st = b.addState(ok(intRel !== 0 ? intRel : tailZero(0) ? 0 : -1));
      intStates.set(key, st);
      pendingInt.push([st, len, rel]);
    }
    return st;
  };
  // Fraction states while equal so far: (position, rel).
  const fracStates = new Map<string, number>();
  const tailZero = (pos: number): boolean => /^0*$/.test(Fd.slice(pos));
  const fracState = (pos: number, rel: number): number => {
    const key = `${pos},${rel}`;
    let st = fracStates.get(key);
    if (st === undefined) {
      const finalRel = rel !== 0 ? rel : tailZero(pos) ? 0 : -1;
      st = b.addState(ok(finalRel) && pos > 0);
      fracStates.set(key, st);
      pendingFrac.push([st, pos, rel]);
    }
    return st;
  };
  const pendingInt: Array<[number, number, number]> = [];
  const pendingFrac: Array<[number, number, number]> = [];
  const start = b.addState(false);
  // The integer part: digits, the first compared with I[0], and so on.
  const firstDigitEdges = (from: number): void => {
    for (let d = 0; d <= 9; d++) {
      const rel = I.length === 0 ? 1 : Math.sign(d - Number(I[0]));
      b.addEdge(from, D(d), intState(1, rel));
    }
  };
  firstDigitEdges(start);
  for (let i = 0; i < pendingInt.length; i++) {
    const [st, len, rel] = pendingInt[i]!;
    for (let d = 0; d <= 9; d++) {
      const nlen = len + 1;
      const nrel = rel !== 0 || nlen > I.length ? rel : Math.sign(d - Number(I[nlen - 1]));
      b.addEdge(st, D(d), intState(nlen, nrel));
    }
    const finalRel = len < I.length ? -1 : len > I.length ? 1 : rel;
    const afterDot = finalRel !== 0 ? decidedEntry(finalRel) : fracState(0, 0);
    b.addEdge(st, [[DOT, DOT]], afterDot);
  }
  function decidedEntry(rel: number): number {
    // The dot itself: not accepting (a fraction needs digits), then the decided digit loop.
    const key = rel * 10;
    let st = fracDecided.get(key);
    if (st === undefined) {
      st = b.addState(false);
      fracDecided.set(key, st);
      b.addEdge(st, DIGITS, decided(rel));
    }
    return st;
  }
  for (let i = 0; i < pendingFrac.length; i++) {
    const [st, pos, rel] = pendingFrac[i]!;
    for (let d = 0; d <= 9; d++) {
      let nrel = rel;
      if (rel === 0) nrel = pos < F ? Math.sign(d - Number(Fd[pos])) : d > 0 ? 1 : 0;
      if (nrel !== 0) b.addEdge(st, D(d), decided(nrel));
      else b.addEdge(st, D(d), fracState(Math.min(pos + 1, F), 0));
    }
  }
  return minimize(b.build(start));
}

/** Plain numerals (signed) with value ≥ T or ≤ T, T given by its scaled floor/ceil. */
function plainCompare(bound: { floor: bigint; ceil: bigint; exact: boolean }, ge: boolean, inclusive: boolean): Dfa {
  // Integer threshold K on scaled values: t ≥ K (ge) or t ≤ K.
  let K: bigint;
  if (ge) K = inclusive || !bound.exact ? bound.ceil : bound.ceil + 1n;
  else K = inclusive || !bound.exact ? bound.floor : bound.floor - 1n;
  const plain = regionDfa(PLAIN);
  // sign-prefixed magnitudes: build "-" + M for negatives.
  const withMinus = (m: Dfa): Dfa => {
    const out = new DfaBuilder();
    const s0 = out.addState(false);
    const offset = 1;
    m.accept.forEach((acc) => out.addState(acc));
    m.edges.forEach((list, s) => {
      for (const [lo, hi, to] of list) out.edges[s + offset]!.push([lo, hi, to + offset]);
    });
    out.edges[s0]!.push([MINUS, MINUS, m.start + offset]);
    return out.build(s0);
  };
  let dfa: Dfa;
  if (ge) {
    // t ≥ K: non-negatives with magnitude ≥ K (all when K ≤ 0), negatives with magnitude ≤ -K.
    const pos = K <= 0n ? magnitudeCompare(0n, true) : magnitudeCompare(K, true);
    dfa = K <= 0n ? union(pos, withMinus(magnitudeCompare(-K, false))) : pos;
  } else {
    // t ≤ K: non-negatives with magnitude ≤ K (none when K < 0), negatives with magnitude ≥ -K.
    const neg = withMinus(magnitudeCompare(K >= 0n ? 0n : -K, true));
    dfa = K >= 0n ? union(magnitudeCompare(K, false), neg) : neg;
  }
  return intersect(dfa, plain);
}

/** The value ranges of the exponent regions, for deciding bounds on them. */
const REGION_RANGES: Array<[number, number, number]> = [
  [LARGE_POS, 1e21, Number.MAX_VALUE],
  [LARGE_NEG, -Number.MAX_VALUE, -1e21],
  [SMALL_POS, 1e-307, 1e-6],
  [SMALL_NEG, -1e-6, -1e-307],
];

/**
 * The numerals whose double compares with `c` as `op` says: `ge` (≥ c) or `le` (≤ c).
 */
export function compareAtom(c: number, op: "ge" | "le"): NumSet {
  const cc = c === 0 ? 0 : c; // -0 is 0
  // The exact threshold between numerals that round to at least cc and those that do not.
  const t = op === "ge" ? midpoint(nextDown(cc), cc) : midpoint(cc, nextUp(cc));
  const inclusive = isEvenDouble(cc);
  let dfa = plainCompare(scaled(t), op === "ge", inclusive);
  let domain = PLAIN;
  for (const [bit, lo, hi] of REGION_RANGES) {
    // Whole region on one side of the threshold?
    const allAbove = cmpDyadic(t, lo) < 0;
    const allBelow = cmpDyadic(t, hi) > 0;
    if (op === "ge" ? allAbove : allBelow) {
      dfa = union(dfa, regionDfa(bit));
      domain |= bit;
    } else if (op === "ge" ? allBelow : allAbove) {
      domain |= bit;
    }
  }
  return normalize(dfa, domain);
}

/** `minimum` / `exclusiveMinimum` / `maximum` / `exclusiveMaximum` as a NumSet. */
export function boundAtom(value: number, keyword: "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum"): NumSet {
  switch (keyword) {
    case "minimum":
      return compareAtom(value, "ge");
    case "exclusiveMinimum":
      return compareAtom(nextUp(value), "ge");
    case "maximum":
      return compareAtom(value, "le");
    case "exclusiveMaximum":
      return compareAtom(nextDown(value), "le");
  }
}

/** Numerals whose double equals `value`. */
export function equalAtom(value: number): NumSet {
  return numAnd(compareAtom(value, "ge"), compareAtom(value, "le"));
}

/** A positive number as p / 10^s with integer p, from its shortest decimal text. */
export function decimalParts(value: number): { p: bigint; s: number } {
  const text = String(value);
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!m) throw new RangeError(`not a positive finite number: ${text}`);
  const digits = `${m[1]}${m[2] ?? ""}`;
  let s = (m[2] ?? "").length - Number(m[3] ?? "0");
  let p = BigInt(digits);
  if (s < 0) {
    p *= 10n ** BigInt(-s);
    s = 0;
  }
  while (s > 0 && p % 10n === 0n) {
    p /= 10n;
    s--;
  }
  return { p, s };
}

/** The most states of a divisibility automaton. */
const MAX_MOD_STATES = 20000;

/** Thrown when `multipleOf` would need too large an automaton. */
export class MultipleOfTooLarge extends Error {}

/**
 * Numerals whose value is a multiple of p / 10^s (`multipleOf`; p = 1, s = 0 is "integer").
 */
export function multipleOfAtom(p: bigint, s: number): { dfa: Dfa; domain: number } {
  if ((Number(p) + 1) * (s + 3) > MAX_MOD_STATES || p > BigInt(MAX_MOD_STATES)) throw new MultipleOfTooLarge();
  const P = Number(p);
  const b = new DfaBuilder();
  const start = b.addState(false);
  // Integer phase: r = value mod P of the digits so far. Accept when r * 10^s ≡ 0.
  const pow10mod = (k: number): number => {
    let r = 1 % P;
    for (let i = 0; i < k; i++) r = (r * 10) % P;
    return r;
  };
  const intStates: number[] = [];
  for (let r = 0; r < P; r++) intStates.push(b.addState((r * pow10mod(s)) % P === 0));
  // Fraction phase: (r, k) with k digits read, k ≤ s; after s digits only zeros.
  const dotStates: number[] = [];
  const fracStates: number[][] = [];
  for (let r = 0; r < P; r++) {
    dotStates.push(b.addState(false));
    const row: number[] = [];
    for (let k = 1; k <= s; k++) row.push(b.addState((r * pow10mod(s - k)) % P === 0));
    fracStates.push(row);
  }
  const zeroTail: number[] = [];
  for (let r = 0; r < P; r++) zeroTail.push(b.addState(r === 0));
  const signed = b.addState(false);
  b.addEdge(start, [[MINUS, MINUS]], signed);
  for (const from of [start, signed]) for (let d = 0; d <= 9; d++) b.addEdge(from, D(d), intStates[d % P]!);
  for (let r = 0; r < P; r++) {
    for (let d = 0; d <= 9; d++) b.addEdge(intStates[r]!, D(d), intStates[(r * 10 + d) % P]!);
    b.addEdge(intStates[r]!, [[DOT, DOT]], dotStates[r]!);
    for (let d = 0; d <= 9; d++) {
      b.addEdge(dotStates[r]!, D(d), s >= 1 ? fracStates[(r * 10 + d) % P]![0]! : d === 0 ? zeroTail[r]! : -1);
    }
    for (let k = 1; k <= s; k++) {
      const st = fracStates[r]![k - 1]!;
      for (let d = 0; d <= 9; d++) {
        const nr = (r * 10 + d) % P;
        if (k < s) b.addEdge(st, D(d), fracStates[nr]![k]!);
      }
      if (k === s) b.addEdge(st, D(0), zeroTail[r]!);
    }
    b.addEdge(zeroTail[r]!, D(0), zeroTail[r]!);
  }
  // Drop the placeholder edges to -1 (d ≠ 0 with s = 0).
  b.edges.forEach((list, i) => (b.edges[i] = list.filter((e) => e[2] >= 0)));
  let dfa = intersect(b.build(start), regionDfa(PLAIN));
  let domain = PLAIN;
  // Large forms are M * 10^(E-f) with E - f ≥ 5: all multiples when p divides 10^(5+s).
  if ((10n ** BigInt(5 + s)) % p === 0n) {
    dfa = union(dfa, union(regionDfa(LARGE_POS), regionDfa(LARGE_NEG)));
    domain |= LARGE_POS | LARGE_NEG;
  }
  // Small forms are below 1e-6: never a multiple of q ≥ 1e-6 (s ≤ 6).
  if (s <= 6) domain |= SMALL_POS | SMALL_NEG;
  return { dfa: minimize(dfa), domain };
}

/** `multipleOf: value` as a NumSet. */
export function multipleOfSet(value: number): NumSet {
  const { p, s } = decimalParts(value);
  const { dfa, domain } = multipleOfAtom(p, s);
  return normalize(dfa, domain);
}

/** Whether the set contains no numeral. */
export function numIsEmpty(s: NumSet): boolean {
  return s.kind === "none";
}

/** The DFA of a set (for emission), with the integer marker expanded. */
export function numDfa(s: NumSet): Dfa {
  return asDfa(s).dfa;
}

/** Large exponent forms (≥ 1e21 in magnitude), for emitting unconstrained integers. */
export function largeFormsDfa(): Dfa {
  return regionsDfa(LARGE_POS | LARGE_NEG);
}
