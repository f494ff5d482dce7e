/**
 * Arrays: `[` items `]` with per-position schemas (`prefixItems`), a schema for the rest
 * (`items`), counted bounds (`minItems`/`maxItems`) and `contains` counters. Without `contains`
 * the grammar is a short chain plus a counted repeat; with it, an automaton over (position,
 * counts), one rule per reachable state.
 */
import { choice, lit, never, repeat, seq, type IrExpr } from "../ir.js";
import { MAX_MACHINE_STATES, type EmitContext } from "./emit-context.js";
import { conjAnd, conjNot, type ArrAlt, type Conj, type Contains } from "./shape.js";

/** The IR of one array alternative; `where` names the schema for refusals. */
export function emitArray(ctx: EmitContext, alt: ArrAlt, where: string): IrExpr {
  const k = alt.prefix.length;
  const conjAt = (i: number): Conj => alt.prefix[i] ?? alt.rest;
  // An impossible position caps the length.
  let max = alt.max;
  for (let i = 0; i <= k && (max === null || i < max); i++) {
    const c = conjAt(i);
    if (ctx.valueEmpty(c)) {
      max = i;
      break;
    }
  }
  if (max !== null && max < alt.min) return never();
  if (alt.contains.length === 0) return simpleArray(ctx, alt, max);
  return containsArray(ctx, alt, max, where);
}

function simpleArray(ctx: EmitContext, alt: ArrAlt, max: number | null): IrExpr {
  const { text } = ctx;
  const k = alt.prefix.length;
  const close = seq(text.ws(), lit("]"));
  const comma = text.punct(",");
  const item = (i: number): IrExpr => ctx.valueRef(alt.prefix[i] ?? alt.rest);
  // tail(i): what follows after i ≥ 1 items.
  const tail = (i: number): IrExpr => {
    if (i >= k) {
      const lo = Math.max(0, alt.min - i);
      const hi = max === null ? null : max - i;
      if (hi !== null && hi <= 0) return close;
      // Each repeated item starts with its comma and ends with the whitespace after it, so the
      // engine can count it from its first byte (docs/engine.md, "Counted repetition"): a
      // whitespace that might precede either "," or "]" is never where an item starts.
      const ws = text.ws();
      return seq(ws, repeat(seq(lit(","), ws, item(i), ws), lo, hi), lit("]"));
    }
    const alts: IrExpr[] = [];
    if (i >= alt.min) alts.push(close);
    if (max === null || i < max) alts.push(seq(comma, item(i), tail(i + 1)));
    return alts.length === 1 ? alts[0]! : choice(...alts);
  };
  const first: IrExpr[] = [];
  if (alt.min === 0) first.push(lit("]"));
  if (max === null || max > 0) first.push(seq(item(0), tail(1)));
  return seq(lit("["), text.ws(), first.length === 1 ? first[0]! : choice(...first));
}

/**
 * Refuses a contains whose rules (one per position and count) would pass the limit, naming the
 * count keyword that weighs most and the largest value it could take with the others unchanged.
 */
function tooManyCounts(ctx: EmitContext, cs: readonly Contains[], countCap: readonly number[], posCap: number, total: number, where: string): void {
  let worst = -1;
  cs.forEach((c, i) => {
    if (worst < 0 || countCap[i]! > countCap[worst]!) worst = i;
  });
  const c = cs[worst];
  if (c === undefined || c.path === undefined || countCap[worst]! < posCap) {
    ctx.unsupported(where, "contains", `contains counting up to ${countCap[worst] ?? 0} over ${posCap + 1} array position${posCap === 0 ? "" : "s"} needs more than ${MAX_MACHINE_STATES} grammar rules (one per position and count)`);
    return;
  }
  // countCap is maxContains + 1 where there is one, else minContains.
  const fit = Math.floor(MAX_MACHINE_STATES / (total / (countCap[worst]! + 1))) - 1;
  const keyword = c.max !== null ? "maxContains" : "minContains";
  const value = c.max ?? c.min;
  const most = c.max !== null ? fit - 1 : fit;
  ctx.unsupported(
    `${c.path}/${keyword}`,
    keyword,
    `${keyword} ${value} needs more than ${MAX_MACHINE_STATES} grammar rules (one per array position and count); ${most < 0 ? "no value fits" : `at most ${most} fits`} with this schema's other bounds`,
  );
}

interface State {
  pos: number;
  counts: number[];
}

function containsArray(ctx: EmitContext, alt: ArrAlt, max: number | null, where: string): IrExpr {
  const { text, b } = ctx;
  const k = alt.prefix.length;
  const cs = alt.contains;
  // Positions past `posCap` behave alike (unless max bounds them).
  const posCap = max ?? Math.max(k, alt.min, ...cs.map((c) => c.from));
  const countCap = cs.map((c) => (c.max !== null ? c.max + 1 : c.min));
  let total = posCap + 1;
  for (const c of countCap) total *= c + 1;
  if (total > MAX_MACHINE_STATES) {
    tooManyCounts(ctx, cs, countCap, posCap, total, where);
    return seq(lit("["), text.ws(), choice(lit("]"), seq(ctx.valueRef(alt.rest), repeat(seq(text.punct(","), ctx.valueRef(alt.rest)), 0, null), text.ws(), lit("]"))));
  }
  // Element kinds at a position: which contains-schemas the item is counted for.
  const kindCache = new Map<string, Array<{ counted: boolean[]; conj: Conj }>>();
  const kinds = (pos: number): Array<{ counted: boolean[]; conj: Conj }> => {
    const active = cs.map((c) => pos >= c.from);
    const key = `${Math.min(pos, k)}:${active.join(",")}`;
    let list = kindCache.get(key);
    if (list) return list;
    list = [];
    const base = alt.prefix[pos] ?? alt.rest;
    const n = cs.length;
    for (let mask = 0; mask < 1 << n; mask++) {
      const counted = cs.map((_, i) => (mask & (1 << i)) !== 0);
      if (counted.some((x, i) => x && !active[i])) continue;
      let conj = base;
      counted.forEach((x, i) => {
        const c = cs[i]!;
        // Items counted must match; items not counted must not match when there is an upper bound.
        if (x) conj = conjAnd(conj, c.conj);
        else if (active[i] && c.max !== null) conj = conjAnd(conj, conjNot(c.conj));
      });
      if (!conj.isFalse && !ctx.conjEmpty(conj)) list.push({ counted, conj });
    }
    kindCache.set(key, list);
    return list;
  };
  const rules = new Map<string, IrExpr>();
  const pending: Array<[string, State, boolean]> = [];
  const keyOf = (s: State, first: boolean): string => `${first ? "f" : "a"}${s.pos}:${s.counts.join(",")}`;
  const ref = (s: State, first: boolean): IrExpr => {
    const key = keyOf(s, first);
    let r = rules.get(key);
    if (!r) {
      const name = ctx.ruleName("array_state");
      r = b.ruleRef(name);
      rules.set(key, r);
      pending.push([name, s, first]);
    }
    return r;
  };
  const accepting = (s: State): boolean => s.pos >= alt.min && cs.every((c, i) => s.counts[i]! >= c.min && (c.max === null || s.counts[i]! <= c.max));
  const body = (s: State, first: boolean): IrExpr => {
    const alts: IrExpr[] = [];
    if (accepting(s)) alts.push(first ? lit("]") : seq(text.ws(), lit("]")));
    if (max === null || s.pos < max) {
      for (const kind of kinds(s.pos)) {
        const counts = s.counts.map((n, i) => (kind.counted[i] ? n + 1 : n));
        if (counts.some((n, i) => cs[i]!.max !== null && n > cs[i]!.max!)) continue;
        const next: State = { pos: Math.min(s.pos + 1, posCap), counts: counts.map((n, i) => Math.min(n, countCap[i]!)) };
        const item = ctx.valueRef(kind.conj);
        alts.push(first ? seq(item, ref(next, false)) : seq(text.punct(","), item, ref(next, false)));
      }
    }
    return alts.length === 0 ? never() : alts.length === 1 ? alts[0]! : choice(...alts);
  };
  const start = ref({ pos: 0, counts: cs.map(() => 0) }, true);
  for (let i = 0; i < pending.length; i++) {
    const [name, s, first] = pending[i]!;
    b.define(name, body(s, first));
  }
  return seq(lit("["), text.ws(), start);
}
