/**
 * An exact decimal oracle for the number keywords of JSON Schema, in BigInt arithmetic: whether a
 * JSON numeral, by the value it is written with, satisfies a schema made of `type`, the bounds,
 * `multipleOf`, `enum`/`const` and the applicators `not`/`anyOf`/`allOf`/`oneOf`. Bounds are also
 * checked on the numeral's double, as the compiler promises (docs/json-schema.md, "Numbers").
 * With the numerals that exercise such a schema: its numbers, their neighbours and multiples, in
 * plain and exponent spellings.
 */
import { rng } from "../helpers/random.js";

/** n · 10^e. */
export interface Decimal {
  n: bigint;
  e: number;
}

const NUMERAL = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The exact value of a JSON numeral; null for text that is not one. */
export function parseDecimal(text: string): Decimal | null {
  const m = NUMERAL.exec(text);
  if (!m) return null;
  const frac = m[3] ?? "";
  const n = BigInt(`${m[2]}${frac}`);
  return { n: m[1] === "-" ? -n : n, e: Number(m[4] ?? "0") - frac.length };
}

function decimalOf(x: number): Decimal {
  const d = parseDecimal(String(x));
  if (d === null) throw new RangeError(`not a finite number: ${x}`);
  return d;
}

const pow10 = (k: number): bigint => 10n ** BigInt(k);

/** a − b's sign. */
export function compareDecimal(a: Decimal, b: Decimal): number {
  const e = Math.min(a.e, b.e);
  const x = a.n * pow10(a.e - e);
  const y = b.n * pow10(b.e - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether a / d is an integer (d > 0). */
export function isMultiple(a: Decimal, d: Decimal): boolean {
  if (a.n === 0n) return true;
  return a.e >= d.e ? (a.n * pow10(a.e - d.e)) % d.n === 0n : a.n % (d.n * pow10(d.e - a.e)) === 0n;
}

const isInteger = (a: Decimal): boolean => a.e >= 0 || a.n % pow10(-a.e) === 0n;

type Schema = boolean | { readonly [key: string]: unknown };

/** Whether the numeral `text` satisfies `schema` (only the keywords listed above; others throw). */
export function numberSatisfies(schema: Schema, text: string): boolean {
  if (typeof schema === "boolean") return schema;
  const x = parseDecimal(text);
  if (x === null) throw new RangeError(`not a JSON numeral: ${text}`);
  const v = Number(text);
  const ok: boolean[] = [];
  for (const [key, value] of Object.entries(schema)) {
    const num = value as number;
    switch (key) {
      case "type":
        ok.push(value === "number" || (value === "integer" && isInteger(x)));
        break;
      case "minimum":
        ok.push(compareDecimal(x, decimalOf(num)) >= 0 && v >= num);
        break;
      case "maximum":
        ok.push(compareDecimal(x, decimalOf(num)) <= 0 && v <= num);
        break;
      case "exclusiveMinimum":
        ok.push(compareDecimal(x, decimalOf(num)) > 0 && v > num);
        break;
      case "exclusiveMaximum":
        ok.push(compareDecimal(x, decimalOf(num)) < 0 && v < num);
        break;
      case "multipleOf":
        ok.push(isMultiple(x, decimalOf(num)));
        break;
      case "const":
        ok.push(compareDecimal(x, decimalOf(num)) === 0);
        break;
      case "enum":
        ok.push((value as number[]).some((e) => compareDecimal(x, decimalOf(e)) === 0));
        break;
      case "not":
        ok.push(!numberSatisfies(value as Schema, text));
        break;
      case "allOf":
        ok.push((value as Schema[]).every((s) => numberSatisfies(s, text)));
        break;
      case "anyOf":
        ok.push((value as Schema[]).some((s) => numberSatisfies(s, text)));
        break;
      case "oneOf":
        ok.push((value as Schema[]).filter((s) => numberSatisfies(s, text)).length === 1);
        break;
      default:
        throw new RangeError(`the oracle does not know ${key}`);
    }
  }
  return ok.every(Boolean);
}

/**
 * Whether the numeral is in the language number keywords constrain (docs/json-schema.md,
 * "Numbers"): plain numerals, and exponent forms with one leading digit of magnitude 1e21 to
 * 1.6…e308 or 1e-307 to 1e-7 (what JSON.stringify writes). Other spellings (`1e3`, `2.5E-2`) are
 * left out of every constrained number set; the oracle checks completeness on these only.
 */
export function inNumeralRegions(text: string): boolean {
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) return true;
  const m = /^-?([1-9])(?:\.(\d+))?[eE]([+-]?)(\d+)$/.exec(text);
  if (!m || m[4]!.length > 3 || (m[4]!.startsWith("0"))) return false;
  const e = Number(m[4]);
  if (m[3] === "-") return e >= 7 && e <= 307;
  return (e >= 21 && e <= 307) || (e === 308 && m[1] === "1" && /^([0-6]\d*)?$/.test(m[2] ?? ""));
}

/** Plain spelling of n · 10^e ("-12.5", "0.003", "1200"). */
export function plainText(d: Decimal): string {
  const neg = d.n < 0n;
  const digits = (neg ? -d.n : d.n).toString();
  let body: string;
  if (d.e >= 0) body = d.n === 0n ? "0" : digits + "0".repeat(d.e);
  else {
    const padded = digits.padStart(-d.e + 1, "0");
    body = `${padded.slice(0, d.e)}.${padded.slice(d.e)}`;
  }
  return (neg ? "-" : "") + body;
}

/** Exponent spellings of the same value: "125e-1", "1.25E+1". */
function exponentTexts(d: Decimal): string[] {
  const neg = d.n < 0n ? "-" : "";
  const digits = (d.n < 0n ? -d.n : d.n).toString();
  const lead = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const e = d.e + digits.length - 1;
  return [`${neg}${digits}e${d.e}`, `${neg}${lead}E${e >= 0 ? "+" : ""}${e}`];
}

/** Every number that occurs in the schema. */
function schemaNumbers(schema: unknown, out: number[] = []): number[] {
  if (typeof schema === "number") out.push(schema);
  else if (Array.isArray(schema)) for (const s of schema) schemaNumbers(s, out);
  else if (typeof schema === "object" && schema !== null) for (const v of Object.values(schema)) schemaNumbers(v, out);
  return out;
}

const FIXED = ["0", "-0", "0.0", "1", "-1", "1.5", "1e3", "1E3", "2.5E-2", "2.5e-2", "1e21", "1E+21", "7e21", "1e-7", "0.1", "0.3", "1e308", "-1e308", "1.7976931348623157e308", "9007199254740993", "123456789012345678901234"];

/**
 * Numerals around a schema: the fixed list, and for each of its numbers c (and the divisors d
 * among them) c, −c, c ± d, c ± 1, c ± a tenth of its last digit, small and large multiples k·d,
 * each in its plain spelling, with trailing zeros, and in exponent form.
 */
export function sampleNumerals(schema: unknown, seed: number, count = 12): string[] {
  const random = rng(seed);
  const numbers = schemaNumbers(schema).map(decimalOf);
  const values: Decimal[] = [];
  const add = (a: Decimal, b: Decimal, sign: bigint): void => {
    const e = Math.min(a.e, b.e);
    values.push({ n: a.n * pow10(a.e - e) + sign * b.n * pow10(b.e - e), e });
  };
  const ONE = { n: 1n, e: 0 };
  for (const c of numbers) {
    values.push(c, { n: -c.n, e: c.e }, { n: c.n * 10n, e: c.e }, { n: c.n, e: c.e - 1 });
    add(c, ONE, 1n);
    add(c, ONE, -1n);
    add(c, { n: 1n, e: c.e - 1 }, 1n);
    add(c, { n: 1n, e: c.e - 1 }, -1n);
    for (const d of numbers) {
      if (d.n <= 0n) continue;
      add(c, d, 1n);
      add(c, d, -1n);
    }
    if (c.n > 0n) {
      for (let i = 0; i < count; i++) {
        const k = BigInt(Math.floor((random() - 0.5) * (i < count / 2 ? 200 : 2e12)));
        values.push({ n: c.n * k, e: c.e });
      }
    }
  }
  const texts = new Set(FIXED);
  for (const v of values) {
    const plain = plainText(v);
    texts.add(plain);
    texts.add(plain.includes(".") ? `${plain}00` : `${plain}.0`);
    for (const t of exponentTexts(v)) texts.add(t);
  }
  return [...texts];
}
