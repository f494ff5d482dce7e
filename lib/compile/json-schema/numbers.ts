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
import { dfaNone, intersect, isEmpty, minimize, difference, union, unionFresh, type Dfa } from "./automaton.js";
import { integerRangeDfa } from "./integer-range.js";
import { freeDigitBudgets, ResidueShapeError } from "./residue-ir.js";
import { regexToDfa } from "./regex.js";
import {
  ALL_REGIONS, LARGE_NEG, LARGE_POS, PLAIN, PLAIN_WIDE, REGION_RANGES, SMALL_NEG, SMALL_POS,
  DivisorTooLarge, MAX_MOD_STATES, SIGNIFICANT_DIGITS, cmpRational, exponentCompare, plainCompare, plainMultipleOf, regionsDfa, type Rational,
} from "./numerals.js";

/**
 * A set of numerals: `all` is every JSON number (emitted with the general number grammar), `int`
 * every integer (emitted compactly), `dfa` an automaton exact within `domain` (region bits).
 */
export type NumSet =
  | { kind: "none" }
  | { kind: "all" }
  | { kind: "int" }
  | { kind: "dfa"; dfa: Dfa; domain: number; integral?: boolean; residue?: bigint };

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

/**
 * An empty set stays a (domain-limited) automaton unless its domain is everything: its
 * complement must stay within the domain. `integral`: every numeral of the set is one of the
 * integer automaton's (so intersecting with the integers changes nothing).
 */
function normalize(dfa: Dfa, domain: number, integral = false): NumSet {
  return domain === ALL_REGIONS && isEmpty(dfa) ? NUM_NONE : { kind: "dfa", dfa, domain, ...(integral ? { integral } : {}) };
}

/** The remainder a set keeps in the matcher (see {@link multipleOfSet}), or 1n. */
function residueOf(s: NumSet): bigint {
  return s.kind === "dfa" && s.residue !== undefined ? s.residue : 1n;
}

const gcd = (x: bigint, y: bigint): bigint => (y === 0n ? x : gcd(y, x % y));

/** Intersection. */
export function numAnd(a: NumSet, b: NumSet): NumSet {
  const ra = residueOf(a);
  const rb = residueOf(b);
  if (ra === 1n && rb === 1n) return numAndPlain(a, b);
  // A remainder kept in the matcher meets: the type's sets, or another multipleOf (lcm).
  const plain = (s: NumSet, r: bigint): NumSet => {
    if (r === 1n) {
      if (s.kind !== "all" && s.kind !== "int" && s.kind !== "none") {
        throw new MultipleOfTooLarge(ra > rb ? ra : rb, RESIDUE_ALONE);
      }
      return s;
    }
    const { residue: _, ...rest } = s as Extract<NumSet, { kind: "dfa" }>;
    return rest;
  };
  const out = numAndPlain(plain(a, ra), plain(b, rb));
  const m = (ra / gcd(ra, rb)) * rb;
  if (m > BigInt(MAX_RESIDUE_MODULUS)) throw new MultipleOfTooLarge(m, `the divisors' remainders together need a modulus of ${m}, over 2^31 - 1`);
  if (out.kind === "none" || numIsEmpty(out)) return out;
  const x = asDfa(out);
  return withResidue({ kind: "dfa", dfa: minimize(x.dfa), domain: x.domain, integral: out.kind === "int" || (out.kind === "dfa" && out.integral === true) }, m);
}

/** A set (minimized automaton) with its remainder kept by the matcher, checked for a budget of free digits per state. */
function withResidue(s: Extract<NumSet, { kind: "dfa" }>, m: bigint): NumSet {
  try {
    freeDigitBudgets(s.dfa);
  } catch (err) {
    if (err instanceof ResidueShapeError) throw new MultipleOfTooLarge(m, err.message);
    throw err;
  }
  return { ...s, residue: m };
}

/**
 * Why a remainder kept in the matcher (a multipleOf with a large divisor) is refused beside other
 * number keywords: the numerals a bound allows have bounded digit counts, which make the live
 * remainders an arbitrary set, not a budget of free digits.
 */
const RESIDUE_ALONE = "a multipleOf whose divisor needs a remainder counter (its part coprime to 10 is past the automaton's budget) is only enforced with `type` and other such multipleOf keywords: not with minimum/maximum, enum/const, a smaller multipleOf, not, or in a union with other numbers";

function numAndPlain(a: NumSet, b: NumSet): NumSet {
  if (a.kind === "none" || b.kind === "none") return NUM_NONE;
  if (numIsEmpty(a)) return a;
  if (numIsEmpty(b)) return b;
  if (a.kind === "all") return b;
  if (b.kind === "all") return a;
  if (a.kind === "int" && b.kind === "int") return a;
  // Multiples of an integer are integers already: no product with the integer automaton.
  if (a.kind === "int" && b.kind === "dfa" && b.integral) return normalize(b.dfa, b.domain & asDfa(a).domain, true);
  if (b.kind === "int" && a.kind === "dfa" && a.integral) return normalize(a.dfa, a.domain & asDfa(b).domain, true);
  const x = asDfa(a);
  const y = asDfa(b);
  const integral = a.kind === "int" || b.kind === "int" || (a.kind === "dfa" && a.integral === true) || (b.kind === "dfa" && b.integral === true);
  return normalize(intersect(x.dfa, y.dfa), x.domain & y.domain, integral);
}

/** Union. */
export function numOr(a: NumSet, b: NumSet): NumSet {
  if (a.kind === "none") return b;
  if (b.kind === "none") return a;
  if (residueOf(a) !== 1n || residueOf(b) !== 1n) {
    if (a === b) return a;
    throw new MultipleOfTooLarge(residueOf(a) > residueOf(b) ? residueOf(a) : residueOf(b), RESIDUE_ALONE);
  }
  if (a.kind === "all" || b.kind === "all") return NUM_ALL;
  if (a.kind === "int" && b.kind === "int") return a;
  const x = asDfa(a);
  const y = asDfa(b);
  return normalize(union(x.dfa, y.dfa), x.domain & y.domain);
}

/** Complement (within the domain). */
export function numNot(a: NumSet): NumSet {
  if (residueOf(a) !== 1n) throw new MultipleOfTooLarge(residueOf(a), RESIDUE_ALONE);
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

/** The exact value of a JSON number's text, as a rational (RangeError when it is not one). */
export function decimalValue(text: string): Rational {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) throw new RangeError(`not a decimal number: ${text}`);
  const digits = BigInt(`${m[2]}${m[3] ?? ""}`) * (m[1] ? -1n : 1n);
  const scale = (m[3] ?? "").length - Number(m[4] ?? "0");
  return scale >= 0 ? { n: digits, d: 10n ** BigInt(scale) } : { n: digits * 10n ** BigInt(-scale), d: 1n };
}

/** The shortest decimal of a double (its JavaScript string), as a rational. */
export function shortestDecimal(x: number): Rational {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  return decimalValue(String(x === 0 ? 0 : x));
}

/**
 * A number of the schema: the decimal its author wrote (the text, when the schema was read
 * from JSON text and the double does not hold it; otherwise the double's shortest decimal) and
 * the double JavaScript validators compare with.
 */
export interface SchemaNumber {
  value: Rational;
  double: number;
}

/** A schema number from its double and, where recorded, its text. */
export function schemaNumber(double: number, text?: string): SchemaNumber {
  return { value: text === undefined ? shortestDecimal(double) : decimalValue(text), double: double === 0 ? 0 : double };
}

const asSchemaNumber = (n: number | SchemaNumber): SchemaNumber => (typeof n === "number" ? schemaNumber(n) : n);

function significantDigits(r: Rational): number {
  let n = r.n < 0n ? -r.n : r.n;
  if (n === 0n) return 1;
  while (n % 10n === 0n) n /= 10n;
  return n.toString().length;
}

/**
 * Whether comparing a PLAIN numeral with the written value and comparing its double with the
 * schema's double always agree. They can only disagree on a numeral that rounds to the schema's
 * double without being the written value, and the one PLAIN numeral (at most 15 significant
 * digits) that can round to a double is that double's shortest decimal when it is that short.
 */
function plainAgrees(n: SchemaNumber): boolean {
  const shortest = shortestDecimal(n.double);
  return cmpRational(shortest, n.value) === 0 || significantDigits(shortest) > SIGNIFICANT_DIGITS;
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
function compareSet(t: Rational, ge: boolean, inclusive: boolean, plainExact = true): NumSet {
  const plain = plainCompare(t, ge, inclusive);
  const { whole, domain, inside } = regionSides(t, ge, plainExact);
  let dfa: Dfa | null = null;
  // t inside the region's range: compared numeral by numeral, exact by value (and so by double
  // for inclusive bounds); not a domain (doubles round within the region).
  for (const bit of inside) dfa = dfa === null ? exponentCompare(bit, t, ge, inclusive) : union(dfa, exponentCompare(bit, t, ge, inclusive));
  // The regions decided whole (the usual case: a threshold between 1e-6 and 1e21 leaves the
  // exponent forms on one side or the other) and the plain comparison, just built, united in one
  // product and one minimization.
  if (whole !== 0) dfa = dfa === null ? regionsDfa(whole) : union(dfa, regionsDfa(whole));
  return normalize(dfa === null ? plain : unionFresh(plain, dfa), domain);
}

/**
 * How the exponent regions lie to a threshold `t`: `whole`, the regions entirely on the accepted
 * side; `domain`, those entirely on either side (and PLAIN when `plainExact`); `inside`, those
 * whose value range holds t (compared numeral by numeral).
 */
function regionSides(t: Rational, ge: boolean, plainExact: boolean): { whole: number; domain: number; inside: number[] } {
  let domain = plainExact ? PLAIN : 0;
  let whole = 0;
  const inside: number[] = [];
  for (const [bit, lo, hi] of RANGES) {
    const above = cmpRational(t, lo) < 0; // every value of the region is above t
    const below = cmpRational(t, hi) > 0; // every value is below t
    if (ge ? above : below) {
      whole |= bit;
      domain |= bit;
    } else if (ge ? below : above) domain |= bit;
    else inside.push(bit);
  }
  return { whole, domain, inside };
}

/**
 * The integers from `min` to `max` (inclusive bounds): what `{"type": "integer", "minimum": min,
 * "maximum": max}` admits, i.e. the integer set intersected with both bound atoms, built straight
 * from the digits of the bounds (integer-range.ts) instead of three automaton products; the same
 * automaton and domain. Null when that shortcut does not apply: a bound that is not an integer as
 * written, one inside an exponent region's range (|bound| ≥ 1e21), or an empty range.
 */
export function integerRangeSet(min: SchemaNumber, max: SchemaNumber): NumSet | null {
  if (min.value.d !== 1n || max.value.d !== 1n || min.value.n > max.value.n) return null;
  const lo = regionSides(min.value, true, plainAgrees(min));
  const hi = regionSides(max.value, false, plainAgrees(max));
  if (lo.inside.length > 0 || hi.inside.length > 0) return null;
  const key = `${min.value.n} ${max.value.n} ${lo.domain & hi.domain}`;
  const known = integerRanges.get(key);
  if (known !== undefined) {
    integerRanges.delete(key);
    integerRanges.set(key, known);
    return known;
  }
  const made = normalize(integerRangeDfa(min.value.n, max.value.n), asDfa(NUM_INT).domain & lo.domain & hi.domain, true);
  if (integerRanges.size >= BOUND_ATOMS_MAX) integerRanges.delete(integerRanges.keys().next().value!);
  integerRanges.set(key, made);
  return made;
}

/** Integer ranges by bounds and domain, least recently used first (bounded like the bound atoms). */
const integerRanges = new Map<string, NumSet>();

/**
 * `minimum` / `exclusiveMinimum` / `maximum` / `exclusiveMaximum` as a NumSet: satisfied by the
 * numeral's exact value against the written value, and by its double against the schema's
 * double. For inclusive bounds the first implies the second (rounding is monotonic); for
 * exclusive ones the stricter of the two thresholds decides.
 */
export function boundAtom(number: number | SchemaNumber, keyword: BoundKeyword): NumSet {
  const n = asSchemaNumber(number);
  // A bound's automaton takes a millisecond or more to build (the comparison over the numeral
  // grid, united with the exponent regions and minimized), and schemas repeat their bounds: a
  // tool's parameter is compiled once as an argument and again inside the whole object, and many
  // tools share `minimum: 0` or `maximum: 100`. NumSets are never changed once built.
  const key = `${keyword} ${n.value.n}/${n.value.d} ${n.double}`;
  const known = boundAtoms.get(key);
  if (known !== undefined) {
    boundAtoms.delete(key);
    boundAtoms.set(key, known);
    return known;
  }
  const made = boundAtomUncached(n, keyword);
  if (boundAtoms.size >= BOUND_ATOMS_MAX) boundAtoms.delete(boundAtoms.keys().next().value!);
  boundAtoms.set(key, made);
  return made;
}

type BoundKeyword = "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum";

/** Bound atoms by keyword and value, least recently used first. */
const boundAtoms = new Map<string, NumSet>();
const BOUND_ATOMS_MAX = 1024;

function boundAtomUncached(n: SchemaNumber, keyword: BoundKeyword): NumSet {
  const c = n.double;
  const agrees = plainAgrees(n);
  switch (keyword) {
    case "minimum":
      return compareSet(n.value, true, true, agrees);
    case "maximum":
      return compareSet(n.value, false, true, agrees);
    case "exclusiveMinimum": {
      // Parses above c ⟺ at least the midpoint to the next double (which wins a tie when even).
      const up = nextUp(c);
      const mid = midpoint(c, up);
      const rel = cmpRational(mid, n.value);
      return rel > 0 ? compareSet(mid, true, isEven(up), agrees) : compareSet(n.value, true, false, agrees);
    }
    case "exclusiveMaximum": {
      const down = nextDown(c);
      const mid = midpoint(down, c);
      const rel = cmpRational(mid, n.value);
      return rel < 0 ? compareSet(mid, false, isEven(down), agrees) : compareSet(n.value, false, false, agrees);
    }
  }
}

/** Numerals equal to the written value (hence also by double). */
export function equalAtom(number: number | SchemaNumber): NumSet {
  return equalAny([asSchemaNumber(number)]);
}

/** The plain spelling of a decimal without superfluous zeros, and whether it is an integer. */
function plainSpelling(r: Rational): { text: string; integer: boolean } {
  let n = r.n < 0n ? -r.n : r.n;
  let d = r.d;
  // Decimal values only (written numbers and shortest decimals are): d = 2^a 5^b.
  let scale = 0;
  while (d % 10n !== 0n && d !== 1n) {
    const f = d % 2n === 0n ? 5n : 2n;
    n *= f;
    d *= f;
  }
  while (d > 1n) {
    d /= 10n;
    scale++;
  }
  while (scale > 0 && n % 10n === 0n) {
    n /= 10n;
    scale--;
  }
  const digits = n.toString().padStart(scale + 1, "0");
  const sign = r.n < 0n ? "-" : "";
  if (scale === 0) return { text: `${sign}${digits}`, integer: true };
  return { text: `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`, integer: false };
}

const escapeRegex = (t: string): string => t.replace(/[.\-]/g, (c) => `\\${c}`);

/** Number spellings per regex in equalAny (its NFA stays well under the regex compiler's budget). */
const SPELLINGS_PER_CHUNK = 1000;

/**
 * Numerals equal to any of the written values: one automaton for the plain spellings (each
 * value's digits, then trailing zeros; `-0` for zero), built in one pass however many values
 * there are, plus the exponent forms of values inside an exponent region's range. Exact on PLAIN
 * where every value's double agrees there, and on each exponent region no value lies in.
 */
export function equalAny(numbers: readonly SchemaNumber[]): NumSet {
  if (numbers.length === 0) return NUM_NONE;
  const alternatives = new Set<string>();
  let domain = ALL_REGIONS & ~PLAIN_WIDE;
  let exponents: NumSet = NUM_NONE;
  for (const n of numbers) {
    const { text, integer } = plainSpelling(n.value);
    if (n.value.n === 0n) alternatives.add("-?0(\\.0+)?");
    else alternatives.add(integer ? `${escapeRegex(text)}(\\.0+)?` : `${escapeRegex(text)}0*`);
    if (!plainAgrees(n)) domain &= ~PLAIN;
    for (const [bit, lo, hi] of RANGES) {
      if (cmpRational(n.value, lo) >= 0 && cmpRational(n.value, hi) <= 0) {
        // Inside the region's range: its exponent forms equal to the value, and no complement there.
        domain &= ~bit;
        const one = intersect(exponentCompare(bit, n.value, true, true), exponentCompare(bit, n.value, false, true));
        exponents = numOr(exponents, { kind: "dfa", dfa: one, domain: ALL_REGIONS });
      }
    }
  }
  // One automaton per chunk of spellings (a subset construction each), united in a balanced tree.
  const list = [...alternatives];
  let parts: Dfa[] = [];
  for (let i = 0; i < list.length; i += SPELLINGS_PER_CHUNK) parts.push(regexToDfa(`^(${list.slice(i, i + SPELLINGS_PER_CHUNK).join("|")})$`, true));
  while (parts.length > 1) {
    const next: Dfa[] = [];
    for (let i = 0; i < parts.length; i += 2) next.push(i + 1 < parts.length ? union(parts[i]!, parts[i + 1]!) : parts[i]!);
    parts = next;
  }
  let dfa = parts[0]!;
  if (exponents.kind === "dfa") dfa = union(dfa, exponents.dfa);
  return normalize(dfa, domain);
}

/** A positive decimal as p / 10^s with integer p. */
export function decimalParts(number: number | SchemaNumber): { p: bigint; s: number } {
  const r = asSchemaNumber(number).value;
  if (r.n <= 0n) throw new RangeError(`not a positive number: ${r.n}/${r.d}`);
  let p = r.n;
  let s = r.d.toString().length - 1;
  while (s > 0 && p % 10n === 0n) {
    p /= 10n;
    s--;
  }
  return { p, s };
}

/**
 * Thrown when `multipleOf` would need too large an automaton and cannot keep its remainder in
 * the matcher instead (`reason` says why; absent: the automaton alone was tried).
 */
export class MultipleOfTooLarge extends Error {
  constructor(readonly states: bigint, readonly reason?: string) {
    super(reason ?? `multipleOf needs an automaton of more than ${MAX_MOD_STATES} states (at least ${states})`);
  }
}

/** The largest remainder the matcher keeps (IR `residue`). */
export const MAX_RESIDUE_MODULUS = 0x7fffffff;

/**
 * Numerals whose decimal value is a multiple of p / 10^s (p = 1, s = 0: the integers), by the
 * numeral's exact value: plain numerals of any length (wide ones too: a JavaScript reader,
 * which rounds them to doubles, may see another value), and the exponent forms where every one
 * is a multiple. Exact on PLAIN (where the double's shortest decimal is the numeral's value), so
 * complements stay there.
 */
export function multipleOfAtom(p: bigint, s: number): { dfa: Dfa; domain: number } {
  let dfa: Dfa;
  try {
    dfa = plainMultipleOf(p, s);
  } catch (err) {
    if (err instanceof DivisorTooLarge) throw new MultipleOfTooLarge(err.states);
    throw err;
  }
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

/** `multipleOf: value` as a NumSet (by the written value). */
export function multipleOfSet(value: number | SchemaNumber): NumSet {
  const { p, s } = decimalParts(value);
  try {
    const { dfa, domain } = multipleOfAtom(p, s);
    return normalize(dfa, domain, s === 0);
  } catch (err) {
    if (!(err instanceof MultipleOfTooLarge)) throw err;
    const split = splitDivisor(p);
    if (split.m === 1n) throw err;  // the 2^a·5^b part and the fraction alone made it large
    if (split.m > BigInt(MAX_RESIDUE_MODULUS)) throw new MultipleOfTooLarge(split.m, `this divisor's part coprime to 10 (${split.m}) is over 2^31 - 1, the largest remainder the matcher keeps`);
    if (s > 0 && split.q !== 1n) {
      throw new MultipleOfTooLarge(split.m, `a decimal divisor whose numerator has factors 2 or 5 besides a part coprime to 10 over the automaton budget (${split.q}·${split.m}·10^-${s}) constrains the last fraction digits, which the remainder counter's budgets cannot describe`);
    }
    // The automaton keeps the numeral syntax and the q·10^-s part; the matcher keeps the
    // remainder of the digits modulo m (docs/json-schema.md, "The remainder counter"). Only plain
    // numerals: the exponent forms are left out (not all multiples), as for small divisors.
    const dfa = minimize(plainMultipleOf(split.q, s));
    let domain = PLAIN;
    if (s <= 6) domain |= SMALL_POS | SMALL_NEG;
    return withResidue({ kind: "dfa", dfa, domain, ...(s === 0 ? { integral: true } : {}) }, split.m);
  }
}

/** p = m·q with q = 2^a·5^b and m coprime to 10. */
export function splitDivisor(p: bigint): { m: bigint; q: bigint } {
  let m = p;
  let q = 1n;
  while (m % 2n === 0n) (m /= 2n), (q *= 2n);
  while (m % 5n === 0n) (m /= 5n), (q *= 5n);
  return { m, q };
}

/** The remainder modulus of a set (a multipleOf kept by the matcher), or null. */
export function numResidue(s: NumSet): number | null {
  return s.kind === "dfa" && s.residue !== undefined ? Number(s.residue) : null;
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
