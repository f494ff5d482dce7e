/**
 * Random string-enum values for the minimization tests: a small alphabet (ASCII, escapes,
 * multi-byte characters) and a few endings, so that prefixes and suffixes are shared.
 */
import { rng } from "../helpers/random.js";

/** `count` distinct values drawn from `seed`. */
export function randomValues(seed: number, count: number): string[] {
  const rnd = rng(seed);
  const parts = ["a", "b", "ab", "é", "€", "1", "x", "\\", '"'];
  const out = new Set<string>();
  while (out.size < count) {
    let s = "";
    const n = Math.floor(rnd() * 6);
    for (let i = 0; i < n; i++) s += parts[Math.floor(rnd() * parts.length)]!;
    out.add(s + ["", "ing", "ed", "ab"][Math.floor(rnd() * 4)]!);
  }
  return [...out];
}

/** The issue 12 bench's kind of values: `count` distinct strings of 15-24 characters of [A-Za-z0-9_-] drawn from `seed`. */
export function alphanumericValues(seed: number, count: number): string[] {
  const random = rng(seed);
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
  const out = new Set<string>();
  while (out.size < count) {
    const n = 15 + Math.floor(random() * 10);
    out.add(Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join(""));
  }
  return [...out];
}
