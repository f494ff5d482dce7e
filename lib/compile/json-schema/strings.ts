/**
 * Sets of strings (by code points, after JSON unescaping): an automaton plus length bounds kept
 * apart until an operation needs them together, so `maxLength: 10000` alone stays a counted
 * repeat instead of ten thousand states.
 */
import { ALPHABET, complement, dfaAll, dfaLength, dfaNone, intersect, isEmpty, union, type Dfa } from "./automaton.js";

/** `dfa` null means every string. Lengths are in code points. */
export type StrSet = { kind: "none" } | { kind: "lang"; dfa: Dfa | null; min: number; max: number | null };

export const STR_NONE: StrSet = { kind: "none" };
export const STR_ALL: StrSet = { kind: "lang", dfa: null, min: 0, max: null };

/** Strings of the automaton. */
export function strOfDfa(dfa: Dfa): StrSet {
  return isEmpty(dfa) ? STR_NONE : { kind: "lang", dfa, min: 0, max: null };
}

/** Strings with length in [min, max]. */
export function strOfLength(min: number, max: number | null): StrSet {
  return max !== null && max < min ? STR_NONE : { kind: "lang", dfa: null, min, max };
}

/** The set as one automaton (lengths folded in); may throw AutomatonTooLarge. */
export function strDfa(s: StrSet): Dfa {
  if (s.kind === "none") return dfaNone();
  const len = s.min === 0 && s.max === null ? null : dfaLength(s.min, s.max, ALPHABET);
  if (s.dfa === null) return len ?? dfaAll();
  return len === null ? s.dfa : intersect(s.dfa, len);
}

export function strAnd(a: StrSet, b: StrSet): StrSet {
  if (a.kind === "none" || b.kind === "none") return STR_NONE;
  const min = Math.max(a.min, b.min);
  const max = a.max === null ? b.max : b.max === null ? a.max : Math.min(a.max, b.max);
  if (max !== null && max < min) return STR_NONE;
  const dfa = a.dfa === null ? b.dfa : b.dfa === null ? a.dfa : intersect(a.dfa, b.dfa);
  if (dfa !== null && isEmpty(dfa)) return STR_NONE;
  return { kind: "lang", dfa, min, max };
}

export function strOr(a: StrSet, b: StrSet): StrSet {
  if (a.kind === "none") return b;
  if (b.kind === "none") return a;
  if (a.min === b.min && a.max === b.max) {
    const dfa = a.dfa === null || b.dfa === null ? null : union(a.dfa, b.dfa);
    return { kind: "lang", dfa, min: a.min, max: a.max };
  }
  return strOfDfa(union(strDfa(a), strDfa(b)));
}

export function strNot(a: StrSet): StrSet {
  if (a.kind === "none") return STR_ALL;
  if (a.dfa === null && a.min === 0 && a.max === null) return STR_NONE;
  return strOfDfa(complement(strDfa(a)));
}

/** Whether the set is empty (exact; may build the automaton with its lengths). */
export function strIsEmpty(s: StrSet): boolean {
  if (s.kind === "none") return true;
  if (s.max !== null && s.max < s.min) return true;
  if (s.dfa === null) return false;
  if (s.min === 0 && s.max === null) return isEmpty(s.dfa);
  try {
    return isEmpty(strDfa(s));
  } catch {
    return false;
  }
}

/** Whether `s` is every string. */
export function strIsAll(s: StrSet): boolean {
  return s.kind === "lang" && s.dfa === null && s.min === 0 && s.max === null;
}
