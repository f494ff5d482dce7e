/**
 * Objects: named members (declared, required or mentioned by a dependency) each at most once,
 * other keys split into regions by `patternProperties` and `propertyNames`, and member counts.
 *
 * Declared order (the default) walks the names in order, each present or skipped, then any
 * additional members. `anyOrder` tracks the set of names used so far, so each name still occurs
 * at most once; that costs a rule per reachable set and is refused past a budget.
 *
 * Keys of regions are canonical strings (see json-text.ts), so an escaped spelling of a declared
 * name can never pass as an additional key.
 */
import { choice, lit, never, seq, type IrExpr } from "../ir.js";
import { dfaAll, dfaMatches, dfaOfStrings, difference, intersect, isEmpty, isUniversal, AutomatonTooLarge, type Dfa } from "./automaton.js";
import { MAX_MACHINE_STATES, type EmitContext } from "./emit-context.js";
import { canonicalString } from "./json-text.js";
import { conjAnd, isTrue, type Conj, type ObjAlt } from "./shape.js";
import { strDfa, strIsAll } from "./strings.js";

/** The most key regions (combinations of matching patterns) one object may have. */
const MAX_REGIONS = 64;

interface Named {
  name: string;
  conj: Conj;
  required: boolean;
}

interface Region {
  dfa: Dfa;
  matched: number[];
}

/** The IR of one object alternative; `where` names the schema for refusals. */
export function emitObject(ctx: EmitContext, alt: ObjAlt, where: string): IrExpr {
  const { text } = ctx;
  // Candidate names: declared order first, then every layer's properties, then required.
  const candidates: string[] = [];
  const seen = new Set<string>();
  const add = (n: string): void => {
    if (!seen.has(n)) {
      seen.add(n);
      candidates.push(n);
    }
  };
  alt.order.forEach(add);
  for (const l of alt.layers) for (const n of l.props.keys()) add(n);
  alt.required.forEach(add);
  alt.forbidden.forEach(add);

  let namesDfa: Dfa | null = null;
  try {
    namesDfa = strIsAll(alt.names) ? null : strDfa(alt.names);
  } catch (err) {
    if (!(err instanceof AutomatonTooLarge)) throw err;
    ctx.unsupported(where, "propertyNames", "the property-name set is too large an automaton");
  }
  const nameAllowed = (n: string): boolean => namesDfa === null || dfaMatches(namesDfa, n);

  const named: Named[] = [];
  for (const name of candidates) {
    const required = alt.required.has(name);
    if (alt.forbidden.has(name) || !nameAllowed(name)) {
      if (required) return never();
      continue;
    }
    const conj = ctx.nameConj(alt, name);
    if (conj.isFalse || ctx.conjEmpty(conj)) {
      if (required) return never();
      continue;
    }
    named.push({ name, conj, required });
  }

  // Regions of other keys.
  const patterns = alt.layers.flatMap((l) => l.patterns);
  const layerConjFor = (matched: number[]): Conj => {
    let offset = 0;
    const parts: Conj[] = [];
    for (const l of alt.layers) {
      const hits = matched.filter((m) => m >= offset && m < offset + l.patterns.length).map((m) => l.patterns[m - offset]!.conj);
      parts.push(hits.length > 0 ? conjAnd(...hits) : l.additional);
      offset += l.patterns.length;
    }
    return conjAnd(...parts);
  };
  const regions: Array<{ key: IrExpr; conj: Conj }> = [];
  const noRegionsPossible = alt.max !== null && named.filter((n) => n.required).length >= alt.max;
  if (!noRegionsPossible) {
    const universalKeys = namesDfa === null && candidates.length === 0;
    if (universalKeys && patterns.length === 0) {
      const conj = layerConjFor([]);
      if (!conj.isFalse && !ctx.conjEmpty(conj)) regions.push({ key: text.anyString(), conj });
    } else {
      try {
        let base = namesDfa ?? dfaAll();
        if (candidates.length > 0) base = difference(base, dfaOfStrings(candidates));
        let parts: Region[] = isEmpty(base) ? [] : [{ dfa: base, matched: [] }];
        patterns.forEach((p, i) => {
          const next: Region[] = [];
          for (const r of parts) {
            const inside = intersect(r.dfa, p.dfa);
            const outside = difference(r.dfa, p.dfa);
            if (!isEmpty(inside)) next.push({ dfa: inside, matched: [...r.matched, i] });
            if (!isEmpty(outside)) next.push({ dfa: outside, matched: r.matched });
          }
          parts = next;
          if (parts.length > MAX_REGIONS) throw new AutomatonTooLarge(MAX_REGIONS);
        });
        for (const r of parts) {
          const conj = layerConjFor(r.matched);
          if (conj.isFalse || ctx.conjEmpty(conj)) continue;
          const key = isUniversal(r.dfa) && candidates.length === 0 ? text.anyString() : seq(lit('"'), ctx.dfaIr(r.dfa, "key", "string"), lit('"'));
          regions.push({ key, conj });
        }
      } catch (err) {
        if (!(err instanceof AutomatonTooLarge)) throw err;
        ctx.unsupported(where, "patternProperties", "the key sets of these patternProperties need too large an automaton");
        regions.push({ key: text.anyString(), conj: { parts: [], key: "T", isFalse: false } });
      }
    }
  }
  if (alt.min >= 2 && regions.length > 0) {
    ctx.unsupported(where, "minProperties", "minProperties above 1 cannot be enforced when additional properties may make up the count (a repeated name would count twice)");
  }
  const member = (key: IrExpr, conj: Conj): IrExpr => seq(key, text.punct(":"), ctx.valueRef(conj));
  const namedMembers = named.map((n) => member(lit(canonicalString(n.name)), n.conj));
  const regionMember = regions.length === 0 ? null : regions.length === 1 ? member(regions[0]!.key, regions[0]!.conj) : choice(...regions.map((r) => member(r.key, r.conj)));
  void isTrue;
  return ctx.anyOrder ? anyOrderMachine(ctx, alt, named, namedMembers, regionMember, where) : orderedMachine(ctx, alt, named, namedMembers, regionMember, where);
}

function orderedMachine(ctx: EmitContext, alt: ObjAlt, named: Named[], members: IrExpr[], regionMember: IrExpr | null, where: string): IrExpr {
  const { text, b } = ctx;
  const n = named.length;
  const cap = alt.max ?? alt.min;
  if ((n + 1) * (cap + 1) * 2 > MAX_MACHINE_STATES) {
    ctx.unsupported(where, "maxProperties", `counting ${cap} members over ${n} properties needs more than ${MAX_MACHINE_STATES} grammar rules`);
  }
  const rules = new Map<string, IrExpr>();
  const pending: Array<[string, number, number, boolean]> = [];
  const ref = (i: number, c: number, first: boolean): IrExpr => {
    const key = `${i}:${c}:${first}`;
    let r = rules.get(key);
    if (!r) {
      const name = ctx.ruleName(first ? "object" : "members");
      r = b.ruleRef(name);
      rules.set(key, r);
      pending.push([name, i, c, first]);
    }
    return r;
  };
  const sep = (first: boolean): IrExpr => (first ? seq() : text.punct(","));
  const body = (i: number, c: number, first: boolean): IrExpr => {
    const alts: IrExpr[] = [];
    if (i < n) {
      const nc = Math.min(c + 1, cap);
      if (alt.max === null || c + 1 <= alt.max) alts.push(seq(sep(first), members[i]!, ref(i + 1, nc, false)));
      if (!named[i]!.required) alts.push(ref(i + 1, c, first));
    } else {
      if (c >= alt.min) alts.push(first ? lit("}") : seq(text.ws(), lit("}")));
      if (regionMember && (alt.max === null || c + 1 <= alt.max)) alts.push(seq(sep(first), regionMember, ref(n, Math.min(c + 1, cap), false)));
    }
    return alts.length === 0 ? never() : alts.length === 1 ? alts[0]! : choice(...alts);
  };
  const start = ref(0, 0, true);
  for (let k = 0; k < pending.length; k++) {
    const [name, i, c, first] = pending[k]!;
    b.define(name, body(i, c, first));
  }
  return seq(lit("{"), text.ws(), start);
}

function anyOrderMachine(ctx: EmitContext, alt: ObjAlt, named: Named[], members: IrExpr[], regionMember: IrExpr | null, where: string): IrExpr {
  const { text, b } = ctx;
  const n = named.length;
  const cap = alt.max ?? alt.min;
  const requiredMask = named.reduce((m, x, i) => (x.required ? m | (1n << BigInt(i)) : m), 0n);
  const rules = new Map<string, IrExpr>();
  const pending: Array<[string, bigint, number, boolean]> = [];
  const ref = (used: bigint, c: number, first: boolean): IrExpr => {
    const key = `${used}:${c}:${first}`;
    let r = rules.get(key);
    if (!r) {
      if (rules.size >= MAX_MACHINE_STATES) {
        throw new AnyOrderTooLarge();
      }
      const name = ctx.ruleName(first ? "object" : "members");
      r = b.ruleRef(name);
      rules.set(key, r);
      pending.push([name, used, c, first]);
    }
    return r;
  };
  const sep = (first: boolean): IrExpr => (first ? seq() : text.punct(","));
  const body = (used: bigint, c: number, first: boolean): IrExpr => {
    const alts: IrExpr[] = [];
    if ((used & requiredMask) === requiredMask && c >= alt.min) alts.push(first ? lit("}") : seq(text.ws(), lit("}")));
    const canAdd = alt.max === null || c + 1 <= alt.max;
    const nc = Math.min(c + 1, cap);
    if (canAdd) {
      for (let i = 0; i < n; i++) {
        const bit = 1n << BigInt(i);
        if (used & bit) continue;
        alts.push(seq(sep(first), members[i]!, ref(used | bit, nc, false)));
      }
      if (regionMember) alts.push(seq(sep(first), regionMember, ref(used, nc, false)));
    }
    return alts.length === 0 ? never() : alts.length === 1 ? alts[0]! : choice(...alts);
  };
  try {
    const start = ref(0n, 0, true);
    for (let k = 0; k < pending.length; k++) {
      const [name, used, c, first] = pending[k]!;
      b.define(name, body(used, c, first));
    }
    return seq(lit("{"), text.ws(), start);
  } catch (err) {
    if (!(err instanceof AnyOrderTooLarge)) throw err;
    ctx.unsupported(where, "properties", `any property order over ${n} properties needs more than ${MAX_MACHINE_STATES} grammar rules; use declared order`);
    // Lenient fallback: rules already referenced must still be defined.
    for (let k = 0; k < pending.length; k++) {
      const [name] = pending[k]!;
      if (!b.has(name)) b.define(name, never());
    }
    return orderedMachine(ctx, alt, named, members, regionMember, where);
  }
}

class AnyOrderTooLarge extends Error {}
