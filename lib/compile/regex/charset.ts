/**
 * Code-point sets as sorted, non-overlapping, non-adjacent inclusive ranges: the form IR `class`
 * nodes use. The regex front end builds classes with these helpers (union, complement) and the
 * predefined sets of ECMAScript (`\d \w \s`, `.`).
 */
import { MAX_CODE_POINT } from "../ir.js";

/** An inclusive code-point range. */
export type Range = readonly [number, number];

/** Sorts and merges ranges (overlapping or adjacent ones become one). */
export function normalize(ranges: Iterable<Range>): Range[] {
  const list = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of list) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** The code points in none of the (normalized) ranges, within U+0000–U+10FFFF. */
export function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** Removes the surrogate block U+D800–U+DFFF (UTF-8 text never contains those code points). */
export function withoutSurrogates(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  for (const [lo, hi] of ranges) {
    if (hi < 0xd800 || lo > 0xdfff) {
      out.push([lo, hi]);
      continue;
    }
    if (lo < 0xd800) out.push([lo, 0xd7ff]);
    if (hi > 0xdfff) out.push([0xe000, hi]);
  }
  return out;
}

/** `\d`: the ASCII digits. */
export const DIGIT: readonly Range[] = [[0x30, 0x39]];
/** `\w`: ASCII letters, digits and underscore (no `i`/`u` case folding applies without flags). */
export const WORD: readonly Range[] = normalize([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]);
/**
 * `\s`: ECMAScript's WhiteSpace and LineTerminator productions — tab, LF, VT, FF, CR, space,
 * NBSP, U+1680, U+2000–U+200A, LS, PS, U+202F, U+205F, U+3000 and the BOM U+FEFF.
 */
export const SPACE: readonly Range[] = normalize([
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
]);
/** The line terminators `.` does not match (no `s` flag): LF, CR, LS, PS. */
export const LINE_TERMINATORS: readonly Range[] = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];
