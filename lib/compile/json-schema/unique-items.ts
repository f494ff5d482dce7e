/**
 * `uniqueItems: true` where the items come from a finite, small set of values (enums, booleans,
 * `null`, const unions). Every item is then one of n known values, all distinct, so the array is
 * a sequence of distinct members of that set:
 *
 * - in any order, a *subset automaton*: the state is the set of values used so far (its size is
 *   the number of items, which also decides `minItems`, `maxItems` and the `prefixItems`
 *   position), one rule per reachable set — used whenever the reachable sets fit the budget;
 * - otherwise, unless `anyOrder` asks for every order, the items in the order the values were
 *   declared: a chain that takes or skips each value once, one rule per (value, count). Sound
 *   (only distinct items), like declared member order for objects.
 *
 * Where the item values are not a known finite set (free strings, numbers in ranges, objects),
 * equality of items is beyond a grammar and the keyword is refused with the reason.
 */
import { choice, lit, never, seq, type IrExpr } from "../ir.js";
import { numberText } from "../../format/exact-numbers.js";
import { MAX_MACHINE_STATES, type EmitContext } from "./emit-context.js";
import { decimalValue, shortestDecimal } from "./numbers.js";
import type { SchemaLoc, SchemaRegistry } from "./resolve.js";
import { conjAnd, conjOf, type ArrAlt, type Conj } from "./shape.js";

/** What unique arrays need beyond emission: the schemas themselves and const locations. */
export interface UniqueContext extends EmitContext {
  readonly registry: SchemaRegistry;
  constLoc(container: object, key: string | number, at: SchemaLoc): SchemaLoc;
}

/** The most values the chain (declared order) walks; the most (value, count) rules. */
const MAX_VALUES = 4096;
const MAX_CHAIN_RULES = 65536;

type Obj = { readonly [key: string]: unknown };
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

/** One candidate value: where it is written (for exact numbers) and its identity under JSON equality. */
interface Value {
  container: object;
  key: string | number;
  at: SchemaLoc;
  id: string;
}

/** A key equal for equal JSON values: numbers by exact value, objects without key order. */
function identity(v: unknown, container: object | null, key: string | number): string {
  if (typeof v === "number") {
    const text = container === null ? undefined : numberText(container, key);
    const r = text === undefined ? shortestDecimal(v) : decimalValue(text);
    let { n, d } = r;
    const g = gcd(n < 0n ? -n : n, d);
    n /= g;
    d /= g;
    return `n${n}/${d}`;
  }
  if (Array.isArray(v)) return `[${v.map((x, i) => identity(x, v, i)).join(",")}]`;
  if (isObj(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${identity(v[k], v, k)}`).join(",")}}`;
  return JSON.stringify(v);
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

const BOOLEAN_NULL: Record<string, unknown[]> = { boolean: [true, false], null: [null] };

/**
 * A finite set of values containing every value the schema allows, read from its keywords
 * (`enum`, `const`, `type` boolean/null, and `$ref`, `allOf`, `anyOf`, `oneOf` over those), or
 * null when the keywords do not bound it. Keywords that only narrow (`not`, `if`, bounds) are
 * left to the item schema itself, which every item still has to match.
 */
function candidates(reg: SchemaRegistry, loc: SchemaLoc, seen: Set<number>): Value[] | null {
  const s = loc.schema;
  if (s === false) return [];
  if (s === true || seen.has(loc.id)) return null;
  seen = new Set(seen).add(loc.id);
  const o = s as Obj;
  const sets: Value[][] = [];
  const child = (v: unknown, ...tokens: string[]): SchemaLoc | null => (isObj(v) || typeof v === "boolean" ? reg.child(loc, v as Obj, ...tokens) : null);
  const add = (set: Value[] | null): void => {
    if (set !== null) sets.push(set);
  };
  if (typeof o.$ref === "string") {
    add(candidates(reg, reg.resolveRef(o.$ref, loc), seen));
    if (reg.refOverridesSiblings) return sets[0] ?? null;
  }
  if (Array.isArray(o.enum)) add(o.enum.map((_, i) => ({ container: o.enum as object, key: i, at: loc, id: identity((o.enum as unknown[])[i], o.enum as object, i) })));
  if (o.const !== undefined && reg.defines("const")) add([{ container: o, key: "const", at: loc, id: identity(o.const, o, "const") }]);
  if (o.type !== undefined) {
    const types = typeof o.type === "string" ? [o.type] : Array.isArray(o.type) ? o.type : [];
    if (types.length > 0 && types.every((t) => typeof t === "string" && BOOLEAN_NULL[t] !== undefined)) {
      const values = types.flatMap((t) => BOOLEAN_NULL[t as string]!);
      add(values.map((v, i) => ({ container: values, key: i, at: loc, id: JSON.stringify(v) })));
    }
  }
  if (Array.isArray(o.allOf)) o.allOf.forEach((x, i) => {
    const l = child(x, "allOf", String(i));
    if (l) add(candidates(reg, l, seen));
  });
  for (const kw of ["anyOf", "oneOf"]) {
    const list = o[kw];
    if (!Array.isArray(list)) continue;
    const parts = list.map((x, i) => {
      const l = child(x, kw, String(i));
      return l === null ? null : candidates(reg, l, seen);
    });
    if (parts.every((p): p is Value[] => p !== null)) add(parts.flat());
  }
  if (sets.length === 0) return null;
  // Values in every finite set (the narrowest bound), first set's order.
  let out = sets.reduce((a, b) => (a.length <= b.length ? a : b));
  for (const set of sets) {
    const ids = new Set(set.map((v) => v.id));
    out = out.filter((v) => ids.has(v.id));
  }
  return out;
}

/** The candidate values of a conjunction: the narrowest finite bound among its schemas, or null. */
function conjCandidates(reg: SchemaRegistry, c: Conj): Value[] | null {
  if (c.isFalse) return [];
  let best: Value[] | null = null;
  for (const part of c.parts) {
    let set: Value[] | null = null;
    if (part.kind === "loc") {
      if (!part.neg) set = candidates(reg, part.loc, new Set());
    } else {
      const items = part.items.map((x) => conjCandidates(reg, x));
      if (items.every((x): x is Value[] => x !== null)) set = items.flat();
    }
    if (set !== null && (best === null || set.length < best.length)) best = set;
  }
  return best;
}

/** The IR of an array alternative with `uniqueItems`, or null when its items are no finite set (refused by the caller). */
export function emitUniqueArray(ctx: UniqueContext, alt: ArrAlt, where: string): IrExpr | null {
  // The positions an item can take (the rest only when the array may go past the prefix).
  const positions = alt.max !== null && alt.max <= alt.prefix.length ? alt.prefix.slice(0, alt.max) : [...alt.prefix, alt.rest];
  const found = positions.map((c) => conjCandidates(ctx.registry, c));
  if (found.some((f) => f === null)) {
    ctx.unsupported(alt.uniquePath ?? where, "uniqueItems", "uniqueItems is enforced only where every item is one of a finite set of values (enum, const, boolean, null); items here can take unboundedly many values, which a grammar cannot compare with each other");
    return null;
  }
  if (alt.contains.length > 0) {
    ctx.unsupported(alt.uniquePath ?? where, "uniqueItems", "uniqueItems together with contains is not supported");
    return null;
  }
  // The distinct values, in order of first declaration.
  const values: Value[] = [];
  const seenIds = new Set<string>();
  for (const list of found) {
    for (const v of list!) {
      if (!seenIds.has(v.id)) {
        seenIds.add(v.id);
        values.push(v);
      }
    }
  }
  const n = values.length;
  const k = alt.prefix.length;
  const posConj = (i: number): Conj => alt.prefix[i] ?? alt.rest;
  // Item i as value j (never when the value is not allowed there).
  const elemCache = new Map<string, IrExpr>();
  const elem = (i: number, j: number): IrExpr => {
    const key = `${Math.min(i, k)}:${j}`;
    let e = elemCache.get(key);
    if (e === undefined) {
      const v = values[j]!;
      const conj = conjAnd(posConj(i), conjOf(ctx.constLoc(v.container, v.key, v.at)));
      e = conj.isFalse || ctx.conjEmpty(conj) ? never() : ctx.valueRef(conj);
      elemCache.set(key, e);
    }
    return e;
  };
  const max = Math.min(alt.max ?? n, n);
  if (max < alt.min) return never();
  const { text, b } = ctx;
  const close = (first: boolean): IrExpr => (first ? lit("]") : seq(text.ws(), lit("]")));
  const item = (first: boolean, e: IrExpr, next: IrExpr): IrExpr => (first ? seq(e, next) : seq(text.punct(","), e, next));
  const alts = (list: IrExpr[]): IrExpr => {
    const live = list.filter((x) => x.kind !== "never");
    return live.length === 0 ? never() : live.length === 1 ? live[0]! : choice(...live);
  };

  // Any order: one rule per reachable set of values used (sets of at most `max` values).
  let sets = 0;
  let binom = 1;
  for (let i = 0; i <= max && sets <= MAX_MACHINE_STATES; i++) {
    sets += binom;
    binom = (binom * (n - i)) / (i + 1);
  }
  if (sets <= MAX_MACHINE_STATES && n <= 30) {
    const rules = new Map<number, IrExpr>();
    const pending: Array<[string, number]> = [];
    const ref = (set: number): IrExpr => {
      let r = rules.get(set);
      if (!r) {
        const name = ctx.ruleName("unique_items");
        r = b.ruleRef(name);
        rules.set(set, r);
        pending.push([name, set]);
      }
      return r;
    };
    const body = (set: number): IrExpr => {
      let count = 0;
      for (let j = 0; j < n; j++) if (set & (1 << j)) count++;
      const list: IrExpr[] = [];
      if (count >= alt.min) list.push(close(count === 0));
      if (count < max) {
        for (let j = 0; j < n; j++) {
          if (set & (1 << j)) continue;
          const e = elem(count, j);
          if (e.kind !== "never") list.push(item(count === 0, e, ref(set | (1 << j))));
        }
      }
      return alts(list);
    };
    const start = body(0);
    for (let i = 0; i < pending.length; i++) {
      const [name, set] = pending[i]!;
      b.define(name, body(set));
    }
    return seq(lit("["), text.ws(), start);
  }
  if (ctx.anyOrder || n > MAX_VALUES) {
    ctx.unsupported(alt.uniquePath ?? where, "uniqueItems", `unique items in any order from ${n} values need ${sets > MAX_MACHINE_STATES ? `over ${MAX_MACHINE_STATES}` : sets} grammar rules (one per set of values used)`);
    return null;
  }
  // Declared order: take or skip each value once. State (j, c): values from j on are still
  // available, c items written (capped where the count no longer matters).
  const cap = alt.max !== null ? max : Math.max(alt.min, k, 1);
  if ((n + 1) * (cap + 1) > MAX_CHAIN_RULES) {
    ctx.unsupported(alt.uniquePath ?? where, "uniqueItems", `unique items from ${n} values with these counts need over ${MAX_CHAIN_RULES} grammar rules`);
    return null;
  }
  const rules = new Map<string, IrExpr>();
  const pending: Array<[string, number, number]> = [];
  const ref = (j: number, c: number): IrExpr => {
    const key = `${j}:${c}`;
    let r = rules.get(key);
    if (!r) {
      const name = ctx.ruleName("unique_items");
      r = b.ruleRef(name);
      rules.set(key, r);
      pending.push([name, j, c]);
    }
    return r;
  };
  const body = (j: number, c: number): IrExpr => {
    const list: IrExpr[] = [];
    if (j === n) {
      if (c >= alt.min) list.push(close(c === 0));
      return alts(list);
    }
    list.push(ref(j + 1, c));
    if (alt.max === null || c < alt.max) {
      const e = elem(c, j);
      if (e.kind !== "never") list.push(item(c === 0, e, ref(j + 1, Math.min(c + 1, cap))));
    }
    return alts(list);
  };
  const start = ref(0, 0);
  for (let i = 0; i < pending.length; i++) {
    const [name, j, c] = pending[i]!;
    b.define(name, body(j, c));
  }
  return seq(lit("["), text.ws(), start);
}
