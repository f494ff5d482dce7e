/**
 * A number set whose remainder the matcher keeps (a `multipleOf` with a large part coprime to 10,
 * docs/json-schema.md "The remainder counter for large divisors") as grammar IR: the numeral
 * automaton (syntax and the 2^a·5^b part) inside a `residue` node, its digit edges folding the
 * digit into the remainder (`rdigit`), and a liveness check wherever only a bounded number of
 * free digits lies ahead, so that masks never lead into a numeral that cannot end as a multiple.
 */
import { charClass, choice, MAX_RESIDUE_BUDGET, rdigit, residue, rlive, seq, type GrammarBuilder, type IrExpr } from "../ir.js";
import type { Dfa } from "./automaton.js";
import { minimalDfaToIr } from "./dfa-ir.js";

/** Thrown when a numeral automaton's shape has no budgets of free digits (see freeDigitBudgets). */
export class ResidueShapeError extends RangeError {}

const ZERO = 0x30;
const NINE = 0x39;

/**
 * Per state of a minimized numeral automaton: how many free digits (any of the ten) may still be
 * read before only zeros or the end (Infinity where a loop over all ten digits lies ahead). The
 * liveness check `alive(r, t)` is exact where every state that can hold a non-zero remainder
 * either reads all ten digits into states of unbounded budget (an integer part), or all ten into
 * one state, or only `0`. Any other shape (a decimal divisor whose last fraction digits are
 * constrained, digit counts bounded by minimum/maximum) is refused.
 */
export function freeDigitBudgets(dfa: Dfa): number[] {
  const n = dfa.accept.length;
  const digitTargets = dfa.edges.map((edges) => {
    const targets = new Map<number, number>();  // digit -> target
    for (const [lo, hi, to] of edges) {
      for (let c = Math.max(lo, ZERO); c <= Math.min(hi, NINE); c++) targets.set(c - ZERO, to);
    }
    return targets;
  });
  const allTen = digitTargets.map((t) => t.size === 10);
  // Longest count of free-digit steps ahead; past n steps a loop is involved.
  let budget = new Array<number>(n).fill(0);
  for (let round = 0; round <= n + 1; round++) {
    const next = budget.map((_, s) => {
      let best = 0;
      for (const [lo, hi, to] of dfa.edges[s]!) best = Math.max(best, budget[to]! + (allTen[s] && lo <= NINE && hi >= ZERO ? 1 : 0));
      return best > n ? Infinity : best;
    });
    if (next.every((v, i) => v === budget[i])) break;
    budget = next;
  }
  // States that may hold a non-zero remainder: entered by a non-zero digit, or from such a state.
  const nonZero = new Array<boolean>(n).fill(false);
  for (let changed = true; changed; ) {
    changed = false;
    dfa.edges.forEach((edges, s) => {
      for (const [lo, hi, to] of edges) {
        if (nonZero[to]) continue;
        if (nonZero[s] || (lo <= NINE && hi >= ZERO + 1)) (nonZero[to] = true), (changed = true);
      }
    });
  }
  digitTargets.forEach((targets, s) => {
    if (!nonZero[s] || targets.size === 0 || (targets.size === 1 && targets.has(0))) return;
    const tos = new Set(targets.values());
    const unbounded = [...tos].every((t) => budget[t] === Infinity);
    if (targets.size !== 10 || (!unbounded && tos.size !== 1)) {
      throw new ResidueShapeError("this divisor constrains digits in a way the remainder counter's budgets of free digits cannot describe (a decimal divisor with factors 2 or 5, or bounds)");
    }
  });
  for (const t of budget) {
    if (t !== Infinity && t > MAX_RESIDUE_BUDGET) throw new ResidueShapeError(`a numeral state would need a budget of ${t} free digits (at most ${MAX_RESIDUE_BUDGET})`);
  }
  return budget;
}

/** IR for the numerals of `dfa` (minimized) whose digits are a multiple of `modulus`. */
export function residueNumberIr(dfa: Dfa, modulus: bigint, b: GrammarBuilder, name: string): IrExpr {
  const budgets = freeDigitBudgets(dfa);
  const m = Number(modulus);
  const body = minimalDfaToIr(dfa, b, name, (ranges, to) => {
    const t = budgets[to]!;
    const finite = t !== Infinity ? t : null;
    const alts: IrExpr[] = [];
    const other: Array<[number, number]> = [];
    for (const [lo, hi] of ranges) {
      if (hi < ZERO || lo > NINE) {
        other.push([lo, hi]);
        continue;
      }
      if (lo < ZERO) other.push([lo, ZERO - 1]);
      if (hi > NINE) other.push([NINE + 1, hi]);
      for (let c = Math.max(lo, ZERO); c <= Math.min(hi, NINE); c++) alts.push(rdigit(c - ZERO, m, finite));
    }
    if (other.length > 0) alts.push(finite === null ? charClass(other) : seq(rlive(m, finite), charClass(other)));
    return alts.length === 1 ? alts[0]! : choice(...alts);
  });
  return residue(body, m);
}
