/**
 * Number keywords as sets of numerals (see numerals.ts for the regions).
 *
 * A numeral is accepted only if it satisfies the keyword both by its exact decimal value and by
 * the double JSON.parse makes of it, so the output is valid for JavaScript validators and for
 * arbitrary-precision ones alike. Schema numbers are read as their shortest decimal (what the
 * schema author wrote and JSON.stringify prints): `maximum: 0.1` admits "0.1", and
 * `maximum: 18446744073709551615` (whose double is 2^64, printed 18446744073709552000) admits
 * "18446744073709551600". Exclusive bounds use the midpoint to the neighbouring double, so
 * "2.99999999999999999999" (which parses to 3) fails `exclusiveMaximum: 3`.
 *
 * Every set is exact on its *domain* (region bits): there, satisfying by value and by double
 * coincide and the set holds exactly the numerals that satisfy. Complements are taken within the
 * domain, which keeps `not` and `oneOf` sound: wide numerals (over 15 significant digits, where
 * "1.0000000000000001" is a decimal non-integer but parses to the integer 1) never enter a
 * complement. `multipleOf` is by decimal value, of the numeral and of the double's shortest
 * decimal alike (JavaScript's float division is not exact, so float-based checks may disagree).
 */
import { dfaNone, intersect, isEmpty, minimize, difference, union, type Dfa } from "./automaton.js";
import {
  ALL_REGIONS, LARGE_NEG, LARGE_POS, PLAIN, REGION_RANGES, SMALL_NEG, SMALL_POS,
  cmpRational, plainCompare, plainMultipleOf, regionsDfa, type Rational,
} from "./numerals.js";

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

/** An empty set stays a (domain-limited) automaton unless its domain is everything: its complement must stay within the domain. */
function normalize(dfa: Dfa, domain: number): NumSet {
  return domain === ALL_REGIONS && isEmpty(dfa) ? NUM_NONE : { kind: "dfa", dfa, domain };
}

/** Intersection. */
export function numAnd(a: NumSet, b: NumSet): NumSet {
  if (a.kind === "none" || b.kind === "none") return NUM_NONE;
  if (numIsEmpty(a)) return a;
  if (numIsEmpty(b)) return b;
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

// ---- doubles and their decimals -------------------------------------------------------------

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
function exactValue(x: number): Rational {
  const bits = bitsOf(x);
  const sign = bits >> 63n ? -1n : 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = e === 0 ? frac : frac | (1n << 52n);
  const exp = (e === 0 ? 1 : e) - 1075;
  return exp >= 0 ? { n: sign * (mant << BigInt(exp)), d: 1n } : { n: sign * mant, d: 1n << BigInt(-exp) };
}

function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  const b = bitsOf(x);
  return x > 0 ? fromBits(b + 1n) : fromBits(b - 1n);
}

const nextDown = (x: number): number => -nextUp(-x);
const isEven = (x: number): boolean => (bitsOf(x) & 1n) === 0n;

function midpoint(a: number, b: number): Rational {
  const x = exactValue(a);
  const y = exactValue(b);
  return { n: x.n * y.d + y.n * x.d, d: 2n * x.d * y.d };
}

/** The shortest decimal of a double (its JavaScript string), as a rational. */
export function shortestDecimal(x: number): Rational {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x === 0 ? 0 : x));
  if (!m) throw new RangeError(`not a finite number: ${x}`);
  const digits = BigInt(`${m[2]}${m[3] ?? ""}`) * (m[1] ? -1n : 1n);
  const scale = (m[3] ?? "").length - Number(m[4] ?? "0");
  return scale >= 0 ? { n: digits, d: 10n ** BigInt(scale) } : { n: digits * 10n ** BigInt(-scale), d: 1n };
}

const pow10 = (k: number): Rational => (k >= 0 ? { n: 10n ** BigInt(k), d: 1n } : { n: 1n, d: 10n ** BigInt(-k) });
const neg = (r: Rational): Rational => ({ n: -r.n, d: r.d });

/** The value ranges of the exponent regions, exactly. */
const RANGES: Array<[number, Rational, Rational]> = REGION_RANGES.map(([bit, sign, lo, hi]) =>
  sign > 0 ? [bit, pow10(lo), pow10(hi)] : [bit, neg(pow10(hi)), neg(pow10(lo))],
);

// ---- atoms -----------------------------------------------------------------------------------

/**
 * Numerals at least (`ge`) or at most (`le`) the threshold `t`, inclusive or not, decided on the
 * exponent regions the threshold lies outside of.
 */
function compareSet(t: Rational, ge: boolean, inclusive: boolean): NumSet {
  let dfa = plainCompare(t, ge, inclusive);
  let domain = PLAIN;
  for (const [bit, lo, hi] of RANGES) {
    const above = cmpRational(t, lo) < 0; // every value of the region is above t
    const below = cmpRational(t, hi) > 0; // every value is below t
    if (ge ? above : below) {
      dfa = union(dfa, regionsDfa(bit));
      domain |= bit;
    } else if (ge ? below : above) domain |= bit;
  }
  return normalize(minimize(dfa), domain);
}

/** `minimum` / `exclusiveMinimum` / `maximum` / `exclusiveMaximum` as a NumSet. */
export function boundAtom(value: number, keyword: "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum"): NumSet {
  const c = value === 0 ? 0 : value;
  switch (keyword) {
    case "minimum":
      return compareSet(shortestDecimal(c), true, true);
    case "maximum":
      return compareSet(shortestDecimal(c), false, true);
    case "exclusiveMinimum": {
      // Parses above c ⟺ at least the midpoint to the next double (which wins a tie when even).
      const up = nextUp(c);
      return compareSet(midpoint(c, up), true, isEven(up));
    }
    case "exclusiveMaximum": {
      const down = nextDown(c);
      return compareSet(midpoint(down, c), false, isEven(down));
    }
  }
}

/** Numerals equal to `value` (by its shortest decimal, hence also by double). */
export function equalAtom(value: number): NumSet {
  return numAnd(boundAtom(value, "minimum"), boundAtom(value, "maximum"));
}

/** A positive number as p / 10^s with integer p, from its shortest decimal text. */
export function decimalParts(value: number): { p: bigint; s: number } {
  const r = shortestDecimal(value);
  if (r.n <= 0n) throw new RangeError(`not a positive number: ${value}`);
  let p = r.n;
  let s = r.d.toString().length - 1;
  while (s > 0 && p % 10n === 0n) {
    p /= 10n;
    s--;
  }
  return { p, s };
}

/** Thrown when `multipleOf` would need too large an automaton. */
export class MultipleOfTooLarge extends Error {}

/** Numerals whose decimal value is a multiple of p / 10^s (p = 1, s = 0: the integers). */
export function multipleOfAtom(p: bigint, s: number): { dfa: Dfa; domain: number } {
  let dfa: Dfa;
  try {
    dfa = plainMultipleOf(p, s);
  } catch (err) {
    if (err instanceof RangeError) throw new MultipleOfTooLarge();
    throw err;
  }
  // A wide numeral's double prints as another decimal, which need not be a multiple (integers
  // excepted: the double of an integer is an integer).
  if (!(p === 1n && s === 0)) dfa = intersect(dfa, regionsDfa(PLAIN));
  let domain = PLAIN;
  // Large forms are M·10^(E−f) with E − f ≥ 5: all multiples when p divides 10^(5+s).
  if ((10n ** BigInt(5 + s)) % p === 0n) {
    dfa = union(dfa, regionsDfa(LARGE_POS | LARGE_NEG));
    domain |= LARGE_POS | LARGE_NEG;
  }
  // Small forms are below 1e-6: never a multiple of p/10^s ≥ 1e-6.
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
  return s.kind === "none" || (s.kind === "dfa" && isEmpty(s.dfa));
}

/** The DFA of a set (for emission), with the integer marker expanded. */
export function numDfa(s: NumSet): Dfa {
  return asDfa(s).dfa;
}

/** Large exponent forms (≥ 1e21 in magnitude), for emitting unconstrained integers. */
export function largeFormsDfa(): Dfa {
  return regionsDfa(LARGE_POS | LARGE_NEG);
}
