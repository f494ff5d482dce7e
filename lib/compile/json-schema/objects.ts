/**
 * Objects: named members (declared, required or mentioned by a dependency) each at most once,
 * other keys split into regions by `patternProperties`, `propertyNames` and witness key sets,
 * member counts, and witnesses (members that must exist, from complements).
 *
 * Declared order (the default) walks the names in order, each present or skipped, then any
 * additional members. `anyOrder` is a loop over the members in which each name is a mark (IR
 * `marks`, docs/engine.md "Marks"): the matcher remembers which names it has seen, so each still
 * occurs at most once and the required ones occur, at a cost linear in the number of names. Where
 * marks cannot follow the schema exactly (witnesses from complements, or a maxProperties that
 * the required names could overflow), the set of names used so far is tracked in the automaton
 * instead, a rule per reachable set, refused past a budget.
 *
 * `minProperties` / `maxProperties` are a counted node around the members, each member a unit
 * (docs/engine.md, "Counted repetition"): the matcher counts them, the automaton does not.
 *
 * Keys of regions are canonical strings (see json-text.ts), so an escaped spelling of a declared
 * name can never pass as an additional key.
 */
import { choice, counted, lit, mark, marks, MAX_MARKS, never, optional, seq, star, unit, type IrExpr } from "../ir.js";
import { AutomatonTooLarge, dfaAll, dfaMatches, dfaOfStrings, difference, intersect, isEmpty, isUniversal, type Dfa } from "./automaton.js";
import { MAX_MACHINE_STATES, type EmitContext } from "./emit-context.js";
import { canonicalString } from "./json-text.js";
import { conjAnd, TRUE, type Conj, type ObjAlt, type Witness } from "./shape.js";
import { strDfa, strIsAll } from "./strings.js";

/** The most key regions (combinations of matching patterns) one object may have. */
const MAX_REGIONS = 64;
/** The most witnesses one member may serve at once. */
const MAX_WITNESSES = 4;

/** One way to write a member: its IR and the witnesses it satisfies (bits). */
interface Variant {
  expr: IrExpr;
  mask: number;
}

interface Named {
  name: string;
  required: boolean;
  /** The value's schema (of the variant that serves no witness). */
  conj: Conj;
  variants: Variant[];
}

interface Region {
  dfa: Dfa;
  /** Patterns (all layers) matching every key of the region. */
  matched: number[];
  /** Witnesses whose key set contains the region. */
  witnessKeys: number[];
  /** Witnesses whose `outside` layer has a pattern matching the region (not additional there). */
  outsideMatched: number[];
}

class AnyOrderTooLarge extends Error {}

/** The IR of one object alternative; `where` names the schema for refusals. */
export function emitObject(ctx: EmitContext, alt: ObjAlt, where: string): IrExpr {
  // No member count fits (the shape's intersection keeps a lone alternative unchecked).
  if (alt.max !== null && alt.max < alt.min) return never();
  const { text } = ctx;
  const witnesses = alt.witnesses;
  if (witnesses.length > MAX_WITNESSES) {
    ctx.unsupported(where, "not", `more than ${MAX_WITNESSES} required members from complements in one object`);
  }
  const wcount = Math.min(witnesses.length, MAX_WITNESSES);
  const allMask = (1 << wcount) - 1;

  // Candidate names: declared order first, then every layer's properties, required, forbidden.
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
  // Names a witness's layer declares are not additional for it: keep them out of the regions.
  for (const w of alt.witnesses) if (w.outside) for (const n of w.outside.props.keys()) add(n);

  let namesDfa: Dfa | null = null;
  try {
    namesDfa = strIsAll(alt.names) ? null : strDfa(alt.names);
  } catch (err) {
    if (!(err instanceof AutomatonTooLarge)) throw err;
    ctx.unsupported(where, "propertyNames", "the property-name set is too large an automaton");
  }
  const nameAllowed = (n: string): boolean => (namesDfa === null || dfaMatches(namesDfa, n)) && !ctx.keyExcluded(n);

  const member = (key: IrExpr, conj: Conj): IrExpr => seq(key, text.punct(":"), ctx.valueRef(conj));
  /** The variants of a member whose value is `base` and which may serve the witnesses `applicable`. */
  const variants = (key: IrExpr, base: Conj, applicable: number[]): Variant[] => {
    const out: Variant[] = [];
    for (let t = 0; t < 1 << applicable.length; t++) {
      let conj = base;
      let mask = 0;
      applicable.forEach((w, k) => {
        if (t & (1 << k)) {
          conj = conjAnd(conj, witnesses[w]!.conj);
          mask |= 1 << w;
        }
      });
      if (conj.isFalse || (t !== 0 && ctx.conjEmpty(conj))) continue;
      out.push({ expr: member(key, conj), mask });
    }
    return out;
  };

  const witnessAppliesToName = (w: Witness, name: string): boolean =>
    (w.keys === null || dfaMatches(w.keys, name)) &&
    (w.outside === null || (!w.outside.props.has(name) && !w.outside.patterns.some((p) => ctx.patternMatches(p, name))));

  const named: Named[] = [];
  for (const name of candidates) {
    const required = alt.required.has(name);
    if (alt.forbidden.has(name) || !nameAllowed(name)) {
      if (required) return never();
      continue;
    }
    const conj = ctx.nameConj(alt, name);
    if (ctx.valueEmpty(conj)) {
      if (required) return never();
      continue;
    }
    const applicable = witnesses.slice(0, wcount).flatMap((w, i) => (witnessAppliesToName(w, name) ? [i] : []));
    named.push({ name, required, conj, variants: variants(lit(canonicalString(name)), conj, applicable) });
  }

  // Regions of other keys: split by every pattern (values) and witness key set.
  const patterns = alt.layers.flatMap((l) => l.patterns);
  const layerOffsets: number[] = [];
  alt.layers.reduce((off, l) => (layerOffsets.push(off), off + l.patterns.length), 0);
  const layerConjFor = (matched: number[]): Conj => {
    const parts: Conj[] = alt.layers.map((l, li) => {
      const off = layerOffsets[li]!;
      const hits = matched.filter((m) => m >= off && m < off + l.patterns.length).map((m) => l.patterns[m - off]!.conj);
      return hits.length > 0 ? conjAnd(...hits) : l.additional;
    });
    return conjAnd(...parts);
  };
  const regionVariants: Variant[] = [];
  const witnessKeySets = witnesses.slice(0, wcount).map((w) => w.keys);
  const outsidePatterns = witnesses.slice(0, wcount).map((w) => (w.outside === null ? [] : w.outside.patterns));
  // Without patterns and witness key sets, every other key falls in one region whose value is
  // the layers' additional schema: when that admits no value (undeclared members forbidden, the
  // usual tool schema), there are no regions, and the automaton of every key but the names (a
  // difference over the whole alphabet) need not be built.
  const oneRegion = patterns.length === 0 && witnessKeySets.every((k) => k === null) && outsidePatterns.every((l) => l.length === 0);
  const oneRegionConj = oneRegion ? layerConjFor([]) : null;
  const noRegionsPossible =
    (alt.max !== null && named.filter((n) => n.required).length >= alt.max) || (oneRegionConj !== null && (oneRegionConj.isFalse || ctx.conjEmpty(oneRegionConj)));
  if (!noRegionsPossible) {
    const universalKeys = namesDfa === null && candidates.length === 0;
    if (universalKeys && oneRegion) {
      const conj = oneRegionConj!;
      if (!conj.isFalse && !ctx.conjEmpty(conj)) {
        regionVariants.push(...variants(text.anyString(), conj, witnesses.slice(0, wcount).map((_, i) => i)));
      }
    } else {
      try {
        let baseDfa = namesDfa ?? dfaAll();
        if (candidates.length > 0) baseDfa = difference(baseDfa, dfaOfStrings(candidates));
        let parts: Region[] = isEmpty(baseDfa) ? [] : [{ dfa: baseDfa, matched: [], witnessKeys: [], outsideMatched: [] }];
        const split = (dfa: Dfa, onInside: (r: Region) => Region): void => {
          const next: Region[] = [];
          for (const r of parts) {
            const inside = intersect(r.dfa, dfa);
            const outside = difference(r.dfa, dfa);
            if (!isEmpty(inside)) next.push(onInside({ ...r, dfa: inside }));
            if (!isEmpty(outside)) next.push({ ...r, dfa: outside });
          }
          parts = next;
          if (parts.length > MAX_REGIONS) throw new AutomatonTooLarge(MAX_REGIONS);
        };
        patterns.forEach((p, i) => split(p.dfa, (r) => ({ ...r, matched: [...r.matched, i] })));
        witnessKeySets.forEach((k, i) => {
          if (k !== null) split(k, (r) => ({ ...r, witnessKeys: [...r.witnessKeys, i] }));
        });
        outsidePatterns.forEach((list, i) => {
          for (const p of list) split(p.dfa, (r) => (r.outsideMatched.includes(i) ? r : { ...r, outsideMatched: [...r.outsideMatched, i] }));
        });
        for (const r of parts) {
          const conj = layerConjFor(r.matched);
          if (conj.isFalse || ctx.conjEmpty(conj)) continue;
          // Any key (JsonText's any string, itself filtered) or the region's canonical keys less the excluded ones.
          const universal = isUniversal(r.dfa) && candidates.length === 0;
          const keys = universal ? null : ctx.keyLanguage(r.dfa);
          if (keys !== null && isEmpty(keys)) continue;
          const key = keys === null ? text.anyString() : seq(lit('"'), ctx.dfaIr(keys, "key", "string"), lit('"'));
          // Regions never hold names, so a key is additional for a witness's layer unless one of its patterns matches.
          const applicable = witnesses.slice(0, wcount).flatMap((w, i) =>
            (w.keys !== null && !r.witnessKeys.includes(i)) || r.outsideMatched.includes(i) ? [] : [i],
          );
          regionVariants.push(...variants(key, conj, applicable));
        }
      } catch (err) {
        if (!(err instanceof AutomatonTooLarge)) throw err;
        ctx.unsupported(where, "patternProperties", "the key sets of these patternProperties need too large an automaton");
        regionVariants.push({ expr: member(text.anyString(), TRUE), mask: 0 });
      }
    }
  }
  const machine = { ctx, alt, named, regionVariants, allMask, where };
  if (!ctx.anyOrder) return orderedMachine(machine);
  const looped = markedLoop(machine);
  if (looped !== null) return looped;
  try {
    return anyOrderMachine(machine);
  } catch (err) {
    if (!(err instanceof AnyOrderTooLarge)) throw err;
    ctx.unsupported(where, "properties", `any property order over ${named.length} properties needs more than ${MAX_MACHINE_STATES} grammar rules; use declared order`);
    return orderedMachine(machine);
  }
}

interface Machine {
  ctx: EmitContext;
  alt: ObjAlt;
  named: Named[];
  regionVariants: Variant[];
  allMask: number;
  where: string;
}

/** Rules of a member automaton, one per reachable state, defined after the walk. */
class Rules<S> {
  private readonly refs = new Map<string, IrExpr>();
  private readonly pending: Array<[string, S]> = [];
  constructor(
    private readonly ctx: EmitContext,
    private readonly key: (s: S) => string,
    private readonly limit: number,
  ) {}
  ref(s: S, hint: string): IrExpr {
    const k = this.key(s);
    let r = this.refs.get(k);
    if (!r) {
      if (this.refs.size >= this.limit) throw new AnyOrderTooLarge();
      const name = this.ctx.ruleName(hint);
      r = this.ctx.b.ruleRef(name);
      this.refs.set(k, r);
      this.pending.push([name, s]);
    }
    return r;
  }
  /** Defines every rule referenced (bodies may reference more). */
  define(body: (s: S) => IrExpr): void {
    for (let i = 0; i < this.pending.length; i++) {
      const [name, s] = this.pending[i]!;
      this.ctx.b.define(name, body(s));
    }
  }
}

const oneOf = (alts: IrExpr[]): IrExpr => (alts.length === 0 ? never() : alts.length === 1 ? alts[0]! : choice(...alts));

/**
 * The members and the closing brace, with the member count bounded: a counted node whose units
 * are the members, when the bounds say anything the structure does not already.
 */
function countMembers(alt: ObjAlt, named: Named[], regionVariants: Variant[], body: IrExpr): IrExpr {
  const required = named.filter((x) => x.required).length;
  const most = regionVariants.length > 0 ? null : named.length;
  const needed = alt.min > required || (alt.max !== null && (most === null || alt.max < most));
  return needed ? counted(body, alt.min, alt.max) : body;
}

/** One member: counted as a unit when the object bounds its member count. */
const memberOf = (v: Variant, counting: boolean): IrExpr => (counting ? unit(v.expr) : v.expr);

function orderedMachine(m: Machine): IrExpr {
  const { ctx, alt, named, regionVariants, allMask } = m;
  const { text } = ctx;
  const n = named.length;
  const probe = countMembers(alt, named, regionVariants, lit("}"));
  const counting = probe.kind === "counted";
  type S = { i: number; first: boolean; mask: number };
  const rules = new Rules<S>(ctx, (s) => `${s.i}:${s.first}:${s.mask}`, Number.MAX_SAFE_INTEGER);
  const sep = (first: boolean): IrExpr => (first ? seq() : text.punct(","));
  const body = ({ i, first, mask }: S): IrExpr => {
    const alts: IrExpr[] = [];
    if (i < n) {
      for (const v of named[i]!.variants) alts.push(seq(sep(first), memberOf(v, counting), rules.ref({ i: i + 1, first: false, mask: mask | v.mask }, "members")));
      if (!named[i]!.required) alts.push(rules.ref({ i: i + 1, first, mask }, first ? "object" : "members"));
    } else {
      if (mask === allMask) alts.push(first ? lit("}") : seq(text.ws(), lit("}")));
      for (const v of regionVariants) alts.push(seq(sep(first), memberOf(v, counting), rules.ref({ i: n, first: false, mask: mask | v.mask }, "members")));
    }
    return oneOf(alts);
  };
  const start = rules.ref({ i: 0, first: true, mask: 0 }, "object");
  rules.define(body);
  return seq(lit("{"), text.ws(), countMembers(alt, named, regionVariants, start));
}

/**
 * Any order as a loop over the members, each name a mark (its index in `named`), the required
 * names required marks. The mark rides on the key's closing quote, where the name is known (an
 * additional key or a longer name may share the bytes before it). Null when marks cannot follow
 * the schema exactly:
 * - witnesses (members that must exist, from complements) are tracked by the automaton;
 * - with a member count, counting and marks are checked apart; that is exact unless required
 *   names could overflow a maxProperties, so that case goes to the automaton too. (Without
 *   other members, enough names for minProperties must exist: otherwise no object matches.)
 */
function markedLoop(m: Machine): IrExpr | null {
  const { ctx, alt, named, regionVariants, allMask } = m;
  const { text } = ctx;
  if (allMask !== 0 || named.length > MAX_MARKS) return null;
  const counting = countMembers(alt, named, regionVariants, lit("}")).kind === "counted";
  const required = named.flatMap((x, i) => (x.required ? [i] : []));
  if (counting && required.length > 0 && alt.max !== null) return null;
  if (regionVariants.length === 0 && alt.min > named.length) return never();
  const members: IrExpr[] = named.map((x, i) => {
    const key = canonicalString(x.name);
    const expr = seq(lit(key.slice(0, -1)), mark(i, seq(lit('"'), text.punct(":"), ctx.valueRef(x.conj))));
    return memberOf({ expr, mask: 0 }, counting);
  });
  for (const v of regionVariants) members.push(memberOf(v, counting));
  if (members.length === 0) return seq(lit("{"), text.ws(), lit("}"));
  const member = oneOf(members);
  const body = marks(optional(seq(member, star(seq(text.punct(","), member)), text.ws())), required);
  return seq(lit("{"), text.ws(), countMembers(alt, named, regionVariants, body), lit("}"));
}

function anyOrderMachine(m: Machine): IrExpr {
  const { ctx, alt, named, regionVariants, allMask } = m;
  const { text } = ctx;
  const n = named.length;
  const counting = countMembers(alt, named, regionVariants, lit("}")).kind === "counted";
  const requiredMask = named.reduce((acc, x, i) => (x.required ? acc | (1n << BigInt(i)) : acc), 0n);
  type S = { used: bigint; first: boolean; mask: number };
  const rules = new Rules<S>(ctx, (s) => `${s.used}:${s.first}:${s.mask}`, MAX_MACHINE_STATES);
  const sep = (first: boolean): IrExpr => (first ? seq() : text.punct(","));
  const body = ({ used, first, mask }: S): IrExpr => {
    const alts: IrExpr[] = [];
    if ((used & requiredMask) === requiredMask && mask === allMask) alts.push(first ? lit("}") : seq(text.ws(), lit("}")));
    for (let i = 0; i < n; i++) {
      const bit = 1n << BigInt(i);
      if (used & bit) continue;
      for (const v of named[i]!.variants) alts.push(seq(sep(first), memberOf(v, counting), rules.ref({ used: used | bit, first: false, mask: mask | v.mask }, "members")));
    }
    for (const v of regionVariants) alts.push(seq(sep(first), memberOf(v, counting), rules.ref({ used, first: false, mask: mask | v.mask }, "members")));
    return oneOf(alts);
  };
  // Walk all states first (throws AnyOrderTooLarge before any rule is defined).
  const states: S[] = [];
  const seenStates = new Set<string>();
  const visit = (s: S): void => {
    const k = `${s.used}:${s.first}:${s.mask}`;
    if (seenStates.has(k)) return;
    if (seenStates.size >= MAX_MACHINE_STATES) throw new AnyOrderTooLarge();
    seenStates.add(k);
    states.push(s);
  };
  visit({ used: 0n, first: true, mask: 0 });
  for (let k = 0; k < states.length; k++) {
    const { used, mask } = states[k]!;
    for (let i = 0; i < n; i++) {
      const bit = 1n << BigInt(i);
      if (!(used & bit)) for (const v of named[i]!.variants) visit({ used: used | bit, first: false, mask: mask | v.mask });
    }
    for (const v of regionVariants) visit({ used, first: false, mask: mask | v.mask });
  }
  const start = rules.ref({ used: 0n, first: true, mask: 0 }, "object");
  rules.define(body);
  return seq(lit("{"), text.ws(), countMembers(alt, named, regionVariants, start));
}
