/**
 * Unicode property escapes (`\p{…}`, `\P{…}`) as code-point ranges. The property data comes from
 * the JavaScript engine itself: the property is validated and evaluated by a `u`-flag RegExp, so
 * every property JavaScript knows (General_Category values such as `L`, `Lu`, `Nd`, `P`, `S`,
 * `Z`; scripts such as `Script=Latin`, `sc=Han`, `Script_Extensions=Cyrillic`; binary properties
 * such as `Alphabetic`, `White_Space`, `Emoji`) agrees with `new RegExp(…, "u")` by construction.
 */
import type { Range } from "./charset.js";

const cache = new Map<string, Range[]>();

/** Where the supplementary planes start in {@link allCodePoints}: after the BMP minus surrogates. */
const ASTRAL_START = 0x10000 - 0x800;

/**
 * Every code point but the surrogates, in order, as one string. Built on demand and not kept:
 * it is 2.2 M UTF-16 units, needed only the first time each property is used.
 */
function allCodePoints(): string {
  const parts: string[] = [];
  const chunk: number[] = [];
  const flush = (): void => {
    parts.push(String.fromCodePoint(...chunk));
    chunk.length = 0;
  };
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp === 0xd800) cp = 0xe000;
    chunk.push(cp);
    if (chunk.length === 4096) flush();
  }
  flush();
  return parts.join("");
}

/** The code point at UTF-16 index `i` of {@link allCodePoints} (the length maps to 0x110000). */
function codePointAt(i: number): number {
  if (i < 0xd800) return i;
  if (i < ASTRAL_START) return i + 0x800;
  return 0x10000 + (i - ASTRAL_START) / 2;
}

/**
 * The ranges of `\p{body}`, or undefined when JavaScript does not know the property (the caller
 * reports the error). Surrogates are never included: UTF-8 text cannot contain them.
 */
export function propertyRanges(body: string): Range[] | undefined {
  const known = cache.get(body);
  if (known !== undefined) return known;
  let re: RegExp;
  try {
    // The body was scanned up to the first '}', so it cannot close the escape early; a RegExp
    // SyntaxError here means an unknown property name or value.
    re = new RegExp(`\\p{${body}}+`, "gu");
  } catch {
    return undefined;
  }
  const ranges: Range[] = [];
  for (const m of allCodePoints().matchAll(re)) {
    const start = m.index;
    ranges.push([codePointAt(start), codePointAt(start + m[0].length) - 1]);
  }
  cache.set(body, ranges);
  return ranges;
}
