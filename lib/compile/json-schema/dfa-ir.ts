/**
 * Turns a code-point DFA into grammar IR: a right-linear grammar with one rule per state that is
 * entered from several places, every other state inlined into its single predecessor, and
 * self-loops written as `class*`. Edge labels go through an encoder, so the same automaton can be
 * emitted as raw text (numbers) or as the canonical inside of a JSON string.
 */
import { charClass, choice, empty, never, repeat, seq, type GrammarBuilder, type IrExpr } from "../ir.js";
import { minimize, type Dfa } from "./automaton.js";

/** How an edge label (a set of code points) becomes IR. */
export type RangeEncoder = (ranges: ReadonlyArray<readonly [number, number]>) => IrExpr;

/** The plain encoder: one code point of the ranges, as UTF-8. */
export const plainRanges: RangeEncoder = (ranges) => charClass(ranges);

/** Inlining deeper than this makes a rule instead (keeps expression trees shallow). */
const MAX_INLINE_DEPTH = 64;

function flatSeq(items: IrExpr[]): IrExpr {
  const out: IrExpr[] = [];
  for (const it of items) {
    if (it.kind === "seq") out.push(...it.items);
    else if (it.kind !== "empty") out.push(it);
  }
  return out.length === 1 ? out[0]! : seq(...out);
}

/**
 * IR for the language of `dfa`. Rules are named `${name}_s${state}` (made unique by the builder).
 */
export function dfaToIr(dfaIn: Dfa, b: GrammarBuilder, name: string, encode: RangeEncoder): IrExpr {
  return minimalDfaToIr(minimize(dfaIn), b, name, (ranges) => encode(ranges));
}

/**
 * The same for an automaton minimized already, whose edges `edge` writes knowing their target
 * state (a loop's target is its own state).
 */
export function minimalDfaToIr(dfa: Dfa, b: GrammarBuilder, name: string, edge: (ranges: ReadonlyArray<readonly [number, number]>, to: number) => IrExpr): IrExpr {
  const n = dfa.accept.length;
  if (n === 1 && !dfa.accept[0] && dfa.edges[0]!.length === 0) return never();
  const indegree = new Array<number>(n).fill(0);
  dfa.edges.forEach((list, s) => {
    const seen = new Set<number>();
    for (const [, , to] of list) {
      if (to !== s && !seen.has(to)) {
        seen.add(to);
        indegree[to]!++;
      }
    }
  });
  const ruleOf = new Map<number, IrExpr>();
  const needsRule = (s: number): boolean => indegree[s]! >= 2 || (s === dfa.start && indegree[s]! >= 1);
  const pending: number[] = [];
  const refTo = (s: number): IrExpr => {
    let r = ruleOf.get(s);
    if (r === undefined) {
      const rn = b.freshName(`${name}_s${s}`);
      r = b.ruleRef(rn);
      ruleOf.set(s, r);
      pending.push(s);
      names.set(s, rn);
    }
    return r;
  };
  const names = new Map<number, string>();

  const body = (s: number, depth: number): IrExpr => {
    const byTarget = new Map<number, Array<[number, number]>>();
    for (const [lo, hi, to] of dfa.edges[s]!) {
      let list = byTarget.get(to);
      if (!list) byTarget.set(to, (list = []));
      list.push([lo, hi]);
    }
    const loop = byTarget.get(s);
    byTarget.delete(s);
    const alts: IrExpr[] = [];
    if (dfa.accept[s]) alts.push(empty());
    for (const [to, ranges] of byTarget) {
      const cont = needsRule(to) || depth >= MAX_INLINE_DEPTH ? refTo(to) : body(to, depth + 1);
      alts.push(flatSeq([edge(ranges, to), cont]));
    }
    const rest = alts.length === 1 ? alts[0]! : choice(...alts);
    return loop ? flatSeq([repeat(edge(loop, s), 0, null), rest]) : rest;
  };

  const top = needsRule(dfa.start) ? refTo(dfa.start) : body(dfa.start, 0);
  for (let i = 0; i < pending.length; i++) {
    const s = pending[i]!;
    b.define(names.get(s)!, body(s, 0));
  }
  return top;
}
