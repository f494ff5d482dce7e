/**
 * Test helpers: a seeded random generator of strings from IR expressions (members of the
 * language, when generation succeeds), mutations of strings (mostly non-members), and a pool of
 * characters that exercise ASCII, multi-byte UTF-8 and JavaScript's line terminators and spaces.
 * The generator only proposes inputs; the tests decide membership with the reference recognizer
 * and compare it with an independent oracle (RegExp, node-llama-cpp).
 */
import type { IrExpr, IrRule } from "../../../lib/compile/ir.js";

/** Characters worth trying anywhere: ASCII, controls, 2/3/4-byte UTF-8, line terminators, spaces. */
export const POOL: readonly string[] = [
  "a", "b", "c", "x", "z", "A", "Q", "Z", "0", "1", "5", "9", "_", "-", "+", ".", ",", ":", "@", "#", "/", "\\",
  '"', "'", "<", ">", "(", ")", "[", "]", "{", "}", " ", "\t", "\n", "\r", "\u000b", "\f", "\u0000", "\u0008",
  "é", "ß", "ü", "Ж", "ж", "Ω", "中", "文", "😀", "🙂", "\u00a0", "\u2028", "\u2029", "\ufeff", "\u3000", "\u200b",
];

const decoder = new TextDecoder("utf-8", { fatal: true });

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

function inRanges(ranges: ReadonlyArray<readonly [number, number]>, cp: number): boolean {
  return ranges.some(([lo, hi]) => lo <= cp && cp <= hi);
}

function sampleClass(e: Extract<IrExpr, { kind: "class" }>, rand: () => number): string | undefined {
  const ok = (cp: number): boolean => !(cp >= 0xd800 && cp <= 0xdfff) && inRanges(e.ranges, cp) !== e.negated;
  for (let attempt = 0; attempt < 64; attempt++) {
    let cp: number;
    if (!e.negated && rand() < 0.7) {
      const [lo, hi] = pick(rand, e.ranges);
      cp = lo + Math.floor(rand() * (hi - lo + 1));
    } else if (rand() < 0.6) {
      cp = pick(rand, POOL).codePointAt(0)!;
    } else {
      cp = Math.floor(rand() * 0x110000);
    }
    if (ok(cp)) return String.fromCodePoint(cp);
  }
  return undefined;
}

/** Options of {@link sampleExpr}. */
export interface SampleOptions {
  /** Rules that `ref` nodes point into. */
  rules?: readonly IrRule[];
  /** Largest repeat count to generate beyond the minimum. */
  extra?: number;
  /** Recursion budget through refs. */
  depth?: number;
}

/** A random string the expression should match, or undefined when generation gave up. */
export function sampleExpr(e: IrExpr, rand: () => number, options: SampleOptions = {}, depth = options.depth ?? 12): string | undefined {
  const again = (x: IrExpr, d = depth): string | undefined => sampleExpr(x, rand, options, d);
  switch (e.kind) {
    case "empty":
      return "";
    case "never":
      return undefined;
    case "bytes":
      try {
        return decoder.decode(e.bytes);
      } catch {
        return undefined;
      }
    case "class":
      return sampleClass(e, rand);
    case "seq": {
      let out = "";
      for (const item of e.items) {
        const s = again(item);
        if (s === undefined) return undefined;
        out += s;
      }
      return out;
    }
    case "choice": {
      const order = e.items.map((x) => ({ x, k: rand() })).sort((p, q) => p.k - q.k);
      for (const { x } of order) {
        const s = again(x);
        if (s !== undefined) return s;
      }
      return undefined;
    }
    case "repeat": {
      if (e.min > 200) return undefined;
      const room = e.max === null ? (options.extra ?? 3) : Math.min(e.max - e.min, options.extra ?? 3);
      const n = e.min + Math.floor(rand() * (room + 1));
      let out = "";
      for (let i = 0; i < n; i++) {
        const s = again(e.item);
        if (s === undefined) return i >= e.min ? out : undefined;
        out += s;
      }
      return out;
    }
    case "ref": {
      const rule = options.rules?.[e.rule];
      if (rule === undefined || depth <= 0) return undefined;
      return again(rule.body, depth - 1);
    }
    case "text": {
      const max = Math.min(e.maxChars ?? 6, 6);
      const n = Math.floor(rand() * (max + 1));
      let out = "";
      for (let i = 0; i < n; i++) out += pick(rand, POOL);
      const bytes = new TextEncoder().encode(out);
      const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
      // Hex strings only line up at even offsets, so check byte-aligned occurrences exactly.
      const hay = hex(bytes);
      for (const x of e.excludes) {
        const needle = hex(x);
        for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) if (i % 2 === 0) return "";
      }
      return out;
    }
  }
}

/** Small edits of a string: deletions, insertions, replacements, swaps, truncation. */
export function mutate(s: string, rand: () => number, extraChars: readonly string[] = []): string {
  const cps = [...s];
  const chars = extraChars.length > 0 && rand() < 0.5 ? extraChars : POOL;
  const at = Math.floor(rand() * (cps.length + 1));
  switch (Math.floor(rand() * 6)) {
    case 0:
      if (cps.length > 0) cps.splice(Math.min(at, cps.length - 1), 1);
      break;
    case 1:
      cps.splice(at, 0, pick(rand, chars));
      break;
    case 2:
      if (cps.length > 0) cps[Math.min(at, cps.length - 1)] = pick(rand, chars);
      else cps.push(pick(rand, chars));
      break;
    case 3:
      if (cps.length > 1) {
        const i = Math.min(at, cps.length - 2);
        [cps[i], cps[i + 1]] = [cps[i + 1]!, cps[i]!];
      } else cps.push(pick(rand, chars));
      break;
    case 4:
      cps.length = Math.floor(rand() * cps.length);
      break;
    default:
      cps.push(...cps.slice(0, 1 + Math.floor(rand() * 2)));
  }
  return cps.join("");
}
