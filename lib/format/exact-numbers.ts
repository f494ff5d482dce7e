/**
 * The decimal text of JSON numbers that a double cannot hold. JSON text read by this package
 * (`parseJsonText`, structural tags, `tagmask … --schema FILE`) gives plain JavaScript values, so
 * `9223372036854775807` becomes the double 2^63; the text as written is kept here, beside the
 * value, for the JSON Schema compiler, which compares numbers as exact decimals. Only numbers
 * whose written value differs from their double's shortest decimal are recorded (`1.0` and
 * `1e2` are not: their doubles print as the same value), keyed weakly by the array or object
 * holding them, so the values stay ordinary and nothing is kept alive.
 */

const texts = new WeakMap<object, Map<string, string>>();
/** Whether any text was ever recorded in this process (until then, JSON.stringify is exact). */
let anyRecorded = false;

/**
 * Whether this process has recorded the text of any number (read from JSON text that a double
 * cannot hold). Until it has, `JSON.stringify` of any value equals {@link stringifyExact}: the
 * lowering cache keys formats and the lowering worker receives them the cheap way.
 */
export function hasRecordedNumberTexts(): boolean {
  return anyRecorded;
}

/** A decimal as sign, digits without leading or trailing zeros, and the power of ten of the last digit. */
function decimalParts(text: string): { neg: boolean; digits: string; exp: number } | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) return null;
  let digits = `${m[2]}${m[3] ?? ""}`;
  let exp = Number(m[4] ?? "0") - (m[3] ?? "").length;
  digits = digits.replace(/^0+/, "");
  const trimmed = digits.replace(/0+$/, "");
  exp += digits.length - trimmed.length;
  digits = trimmed;
  return digits === "" ? { neg: false, digits: "0", exp: 0 } : { neg: m[1] === "-", digits, exp };
}

/** Whether the decimal text `text` has exactly the value of `value`'s shortest decimal. */
export function isShortestDecimal(text: string, value: number): boolean {
  const a = decimalParts(text);
  const b = decimalParts(String(value === 0 ? 0 : value));
  return a !== null && b !== null && a.neg === b.neg && a.digits === b.digits && a.exp === b.exp;
}

/** Records the text of the number at `container[key]` when its double does not hold it exactly. */
export function recordNumberText(container: object, key: string | number, text: string, value: number): void {
  if (isShortestDecimal(text, value)) return;
  anyRecorded = true;
  let map = texts.get(container);
  if (!map) texts.set(container, (map = new Map()));
  map.set(String(key), text);
}

/** The text written for the number at `container[key]`, when its double does not hold it. */
export function numberText(container: object, key: string | number): string | undefined {
  return texts.get(container)?.get(String(key));
}

/** Carries a recorded text along when a value is copied from `from[fromKey]` to `to[toKey]`. */
export function copyNumberText(from: object, fromKey: string | number, to: object, toKey: string | number): void {
  const text = numberText(from, fromKey);
  if (text === undefined) return;
  let map = texts.get(to);
  if (!map) texts.set(to, (map = new Map()));
  map.set(String(toKey), text);
}

/** JSON text of a value with recorded numbers written as they were read. */
export function stringifyExact(value: unknown): string {
  const write = (v: unknown, container: object | null, key: string | number): string => {
    if (typeof v === "number" && container !== null) {
      const text = numberText(container, key);
      if (text !== undefined) return text;
    }
    if (Array.isArray(v)) return `[${v.map((x, i) => write(x === undefined ? null : x, v, i)).join(",")}]`;
    if (v !== null && typeof v === "object") {
      const parts: string[] = [];
      for (const [k, x] of Object.entries(v)) if (x !== undefined) parts.push(`${JSON.stringify(k)}:${write(x, v, k)}`);
      return `{${parts.join(",")}}`;
    }
    return JSON.stringify(v);
  };
  return write(value, null, "");
}
