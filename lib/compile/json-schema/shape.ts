/**
 * The normal form a schema is reduced to before it becomes grammar: for each JSON type, the set
 * of values allowed. Scalars are exact sets (automata for strings and numbers); arrays and
 * objects are unions of *alternatives*, each a conjunction of simple constraints whose element
 * and member schemas stay lazy (`Conj`, compiled to their own rules on demand, which is how
 * recursion works).
 *
 * Intersection, union and complement work on this form. Where a complement has no exact form
 * here (for example "some additional property violates a schema"), `Unsupported` is thrown and
 * the caller refuses the keyword.
 */
import { complement, isEmpty, type Dfa } from "./automaton.js";
import { NUM_ALL, NUM_NONE, numAnd, numIsEmpty, numNot, numOr, type NumSet } from "./numbers.js";
import type { SchemaLoc } from "./resolve.js";
import { STR_ALL, STR_NONE, strAnd, strDfa, strIsAll, strIsEmpty, strNot, strOr, type StrSet } from "./strings.js";

/** A keyword that cannot be enforced exactly; turned into a SchemaError (or listed when lenient). */
export class Unsupported extends Error {
  constructor(
    readonly keyword: string,
    message: string,
  ) {
    super(message);
  }
}

// ---- lazy schema conjunctions ----------------------------------------------------------------

/** One conjunct: a schema (or its negation) or a disjunction of conjunctions. */
export type Part = { kind: "loc"; loc: SchemaLoc; neg: boolean; key: string } | { kind: "or"; items: Conj[]; key: string };

/** A conjunction of parts; no parts is `true`; `isFalse` marks the empty set. */
export interface Conj {
  readonly parts: readonly Part[];
  readonly key: string;
  readonly isFalse: boolean;
}

export const TRUE: Conj = { parts: [], key: "T", isFalse: false };
export const FALSE: Conj = { parts: [], key: "F", isFalse: true };

function makeConj(parts: Part[]): Conj {
  const byKey = new Map<string, Part>();
  for (const p of parts) byKey.set(p.key, p);
  for (const p of byKey.values()) {
    if (p.kind === "loc" && byKey.has(p.neg ? String(p.loc.id) : `!${p.loc.id}`)) return FALSE;
  }
  const sorted = [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (sorted.length === 0) return TRUE;
  return { parts: sorted, key: sorted.map((p) => p.key).join("&"), isFalse: false };
}

/** The conjunction of one schema. */
export function conjOf(loc: SchemaLoc, neg = false): Conj {
  if (typeof loc.schema === "boolean") return loc.schema !== neg ? TRUE : FALSE;
  return makeConj([{ kind: "loc", loc, neg, key: `${neg ? "!" : ""}${loc.id}` }]);
}

export function conjAnd(...items: Conj[]): Conj {
  if (items.some((c) => c.isFalse)) return FALSE;
  return makeConj(items.flatMap((c) => [...c.parts]));
}

export function conjOr(items: Conj[]): Conj {
  const live = items.filter((c) => !c.isFalse);
  if (live.length === 0) return FALSE;
  if (live.some((c) => c.key === "T")) return TRUE;
  const unique = [...new Map(live.map((c) => [c.key, c])).values()];
  if (unique.length === 1) return unique[0]!;
  const key = `(${unique.map((c) => c.key).sort().join("|")})`;
  return makeConj([{ kind: "or", items: unique, key }]);
}

export function conjNot(c: Conj): Conj {
  if (c.isFalse) return TRUE;
  if (c.parts.length === 0) return FALSE;
  const negPart = (p: Part): Conj =>
    p.kind === "loc" ? makeConj([{ ...p, neg: !p.neg, key: `${p.neg ? "" : "!"}${p.loc.id}` }]) : conjAnd(...p.items.map(conjNot));
  if (c.parts.length === 1) return negPart(c.parts[0]!);
  return conjOr(c.parts.map(negPart));
}

export const isTrue = (c: Conj): boolean => c.key === "T";

// ---- arrays and objects ----------------------------------------------------------------------

/** At least `min` and at most `max` items from position `from` on satisfy `conj`. */
export interface Contains {
  conj: Conj;
  min: number;
  max: number | null;
  from: number;
  /** The schema whose minContains / maxContains set the counts, for messages. */
  path?: string;
}

/** One alternative of the array part: a conjunction of simple constraints. */
export interface ArrAlt {
  prefix: Conj[];
  rest: Conj;
  min: number;
  max: number | null;
  contains: Contains[];
  unique: boolean;
  /** Where the `uniqueItems` keyword is (for refusals). */
  uniquePath?: string;
}

export const ANY_ARR: ArrAlt = { prefix: [], rest: TRUE, min: 0, max: null, contains: [], unique: false };

/** A `patternProperties` entry: keys matching `dfa` (searched) must have values in `conj`. */
export interface PatternProp {
  source: string;
  dfa: Dfa;
  conj: Conj;
}

/** The member constraints one schema object states (`properties`, `patternProperties`, `additionalProperties`). */
export interface Layer {
  props: Map<string, Conj>;
  patterns: PatternProp[];
  additional: Conj;
}

/**
 * "Some member has a key in the set and a value in `conj`": the complement of a `for all
 * members` constraint. The key set is `keys` (null: any key) and, with `outside`, only keys that
 * layer does not name or match (its additional properties).
 */
export interface Witness {
  keys: Dfa | null;
  outside: Layer | null;
  conj: Conj;
}

/** One alternative of the object part. */
export interface ObjAlt {
  layers: Layer[];
  required: Set<string>;
  forbidden: Set<string>;
  /** `propertyNames`: every key is in this set. */
  names: StrSet;
  min: number;
  max: number | null;
  /** Declared name order (properties first, then required). */
  order: string[];
  /** Members that must exist (see Witness). */
  witnesses: Witness[];
}

export const ANY_OBJ: ObjAlt = { layers: [], required: new Set(), forbidden: new Set(), names: STR_ALL, min: 0, max: null, order: [], witnesses: [] };

/** The value constraint of member `name` under one layer. */
export function layerConj(layer: Layer, name: string, matches: (p: PatternProp, name: string) => boolean): Conj {
  const hits = layer.patterns.filter((p) => matches(p, name)).map((p) => p.conj);
  const own = layer.props.get(name);
  if (own) return conjAnd(own, ...hits);
  if (hits.length > 0) return conjAnd(...hits);
  return layer.additional;
}

// ---- shapes ----------------------------------------------------------------------------------

/** The values of a schema, per JSON type. `bool`: bit 0 false, bit 1 true. */
export interface Shape {
  nul: boolean;
  bool: number;
  num: NumSet;
  str: StrSet;
  arr: ArrAlt[];
  obj: ObjAlt[];
}

export const ANY: Shape = { nul: true, bool: 3, num: NUM_ALL, str: STR_ALL, arr: [ANY_ARR], obj: [ANY_OBJ] };
export const NONE: Shape = { nul: false, bool: 0, num: NUM_NONE, str: STR_NONE, arr: [], obj: [] };

/** Only the given parts; every other type empty. */
export function only(parts: Partial<Shape>): Shape {
  return { ...NONE, ...parts };
}

/** Every value except the given type parts are replaced (used for type-specific keywords). */
export function anyExcept(parts: Partial<Shape>): Shape {
  return { ...ANY, ...parts };
}

/** The largest number of alternatives a part may hold. */
export const MAX_ALTS = 256;

function isAnyArr(a: ArrAlt): boolean {
  return a.prefix.every(isTrue) && isTrue(a.rest) && a.min === 0 && a.max === null && a.contains.length === 0 && !a.unique;
}

function isAnyObj(o: ObjAlt): boolean {
  return (
    o.layers.every((l) => l.props.size === 0 && l.patterns.every((p) => isTrue(p.conj)) && isTrue(l.additional)) &&
    o.required.size === 0 &&
    o.forbidden.size === 0 &&
    strIsAll(o.names) &&
    o.min === 0 &&
    o.max === null &&
    o.witnesses.length === 0
  );
}

function minMax(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

export function arrAnd(a: ArrAlt, b: ArrAlt): ArrAlt {
  const k = Math.max(a.prefix.length, b.prefix.length);
  const prefix: Conj[] = [];
  for (let i = 0; i < k; i++) prefix.push(conjAnd(a.prefix[i] ?? a.rest, b.prefix[i] ?? b.rest));
  return {
    prefix,
    rest: conjAnd(a.rest, b.rest),
    min: Math.max(a.min, b.min),
    max: minMax(a.max, b.max),
    contains: [...a.contains, ...b.contains],
    unique: a.unique || b.unique,
    ...(a.uniquePath !== undefined || b.uniquePath !== undefined ? { uniquePath: a.uniquePath ?? b.uniquePath } : {}),
  };
}

export function objAnd(a: ObjAlt, b: ObjAlt): ObjAlt {
  return {
    layers: [...a.layers, ...b.layers],
    required: new Set([...a.required, ...b.required]),
    forbidden: new Set([...a.forbidden, ...b.forbidden]),
    names: strAnd(a.names, b.names),
    min: Math.max(a.min, b.min),
    max: minMax(a.max, b.max),
    order: [...new Set([...a.order, ...b.order])],
    witnesses: [...a.witnesses, ...b.witnesses],
  };
}

/** Cheap emptiness checks of alternatives (true only when certainly empty). */
export interface EmptinessOracle {
  conjEmpty(c: Conj): boolean;
  nameConj(alt: ObjAlt, name: string): Conj;
}

export function arrAltEmpty(a: ArrAlt, oracle: EmptinessOracle): boolean {
  if (a.max !== null && a.max < a.min) return true;
  for (let i = 0; i < a.min; i++) {
    const c = a.prefix[i] ?? a.rest;
    if (c.isFalse || oracle.conjEmpty(c)) return true;
    if (i >= a.prefix.length) break;
  }
  for (const c of a.contains) {
    if (c.max !== null && c.max < c.min) return true;
    if (c.min > 0 && (c.conj.isFalse || (a.max !== null && a.max - c.from < c.min))) return true;
  }
  return false;
}

export function objAltEmpty(o: ObjAlt, oracle: EmptinessOracle): boolean {
  if (o.max !== null && o.max < o.min) return true;
  if (o.witnesses.length > 0 && o.max === 0) return true;
  if (o.witnesses.some((w) => w.conj.isFalse || (w.keys !== null && isEmpty(w.keys)))) return true;
  if (o.max !== null && o.required.size > o.max) return true;
  if (o.names.kind === "none" && o.min > 0) return true;
  for (const r of o.required) {
    if (o.forbidden.has(r)) return true;
    const c = oracle.nameConj(o, r);
    if (c.isFalse || oracle.conjEmpty(c)) return true;
  }
  return false;
}

function cross<T>(xs: T[], ys: T[], and: (x: T, y: T) => T, empty: (t: T) => boolean, what: string): T[] {
  const out: T[] = [];
  for (const x of xs) {
    for (const y of ys) {
      const z = and(x, y);
      if (!empty(z)) out.push(z);
      if (out.length > MAX_ALTS) throw new Unsupported(what, `combining the subschemas needs more than ${MAX_ALTS} ${what === "items" ? "array" : "object"} alternatives`);
    }
  }
  return out;
}

export function shapeAnd(a: Shape, b: Shape, oracle: EmptinessOracle): Shape {
  const arr = a.arr.length === 1 && isAnyArr(a.arr[0]!) ? b.arr : b.arr.length === 1 && isAnyArr(b.arr[0]!) ? a.arr : cross(a.arr, b.arr, arrAnd, (x) => arrAltEmpty(x, oracle), "items");
  const obj = a.obj.length === 1 && isAnyObj(a.obj[0]!) ? b.obj : b.obj.length === 1 && isAnyObj(b.obj[0]!) ? a.obj : cross(a.obj, b.obj, objAnd, (x) => objAltEmpty(x, oracle), "properties");
  return { nul: a.nul && b.nul, bool: a.bool & b.bool, num: numAnd(a.num, b.num), str: strAnd(a.str, b.str), arr, obj };
}

export function shapeOr(a: Shape, b: Shape): Shape {
  const arr = a.arr.some(isAnyArr) || b.arr.some(isAnyArr) ? [ANY_ARR] : [...a.arr, ...b.arr];
  const obj = a.obj.some(isAnyObj) || b.obj.some(isAnyObj) ? [ANY_OBJ] : [...a.obj, ...b.obj];
  if (arr.length > MAX_ALTS) throw new Unsupported("anyOf", `the union needs more than ${MAX_ALTS} array alternatives`);
  if (obj.length > MAX_ALTS) throw new Unsupported("anyOf", `the union needs more than ${MAX_ALTS} object alternatives`);
  return { nul: a.nul || b.nul, bool: a.bool | b.bool, num: numOr(a.num, b.num), str: strOr(a.str, b.str), arr, obj };
}

/** The complement of one array alternative, as a union of alternatives. */
function arrAltNot(a: ArrAlt): ArrAlt[] {
  if (a.unique) throw new Unsupported("uniqueItems", "the complement of uniqueItems (some two items equal) cannot be enforced");
  const out: ArrAlt[] = [];
  if (a.min > 0) out.push({ ...ANY_ARR, max: a.min - 1 });
  if (a.max !== null) out.push({ ...ANY_ARR, min: a.max + 1 });
  a.prefix.forEach((c, i) => {
    if (isTrue(c)) return;
    const prefix: Conj[] = Array.from({ length: i }, () => TRUE);
    prefix.push(conjNot(c));
    out.push({ ...ANY_ARR, prefix, min: i + 1 });
  });
  const k = a.prefix.length;
  if (a.rest.isFalse) out.push({ ...ANY_ARR, min: k + 1 });
  else if (!isTrue(a.rest)) out.push({ ...ANY_ARR, min: k + 1, contains: [{ conj: conjNot(a.rest), min: 1, max: null, from: k }] });
  for (const c of a.contains) {
    // The negated counts are no longer what the schema's keywords say: no path.
    if (c.min > 0) out.push({ ...ANY_ARR, contains: [{ conj: c.conj, from: c.from, min: 0, max: c.min - 1 }] });
    if (c.max !== null) out.push({ ...ANY_ARR, contains: [{ conj: c.conj, from: c.from, min: c.max + 1, max: null }] });
  }
  return out;
}

/** The complement of one object alternative. */
function objAltNot(o: ObjAlt): ObjAlt[] {
  const out: ObjAlt[] = [];
  const base = (): ObjAlt => ({ ...ANY_OBJ, required: new Set(), forbidden: new Set(), layers: [], witnesses: [] });
  for (const layer of o.layers) {
    for (const [name, c] of layer.props) {
      if (isTrue(c)) continue;
      const alt = base();
      alt.required.add(name);
      alt.order = [name];
      alt.layers = [{ props: new Map([[name, conjNot(c)]]), patterns: [], additional: TRUE }];
      out.push(alt);
    }
    // Some key matching the pattern (declared or not) has a value outside its schema.
    for (const p of layer.patterns) {
      if (!isTrue(p.conj)) out.push({ ...base(), witnesses: [{ keys: p.dfa, outside: null, conj: conjNot(p.conj) }] });
    }
    // Some additional key (not named, not matched by this layer) has a value outside the schema.
    if (!isTrue(layer.additional)) out.push({ ...base(), witnesses: [{ keys: null, outside: layer, conj: conjNot(layer.additional) }] });
  }
  for (const r of o.required) {
    const alt = base();
    alt.forbidden.add(r);
    out.push(alt);
  }
  for (const f of o.forbidden) {
    const alt = base();
    alt.required.add(f);
    alt.order = [f];
    out.push(alt);
  }
  if (o.min > 0) out.push({ ...base(), max: o.min - 1 });
  if (o.max !== null) out.push({ ...base(), min: o.max + 1 });
  // Some key outside the property-name set.
  if (!strIsAll(o.names)) out.push({ ...base(), witnesses: [{ keys: complement(strDfa(o.names)), outside: null, conj: TRUE }] });
  // No member with such a key has such a value: a layer constraining those keys.
  for (const w of o.witnesses) {
    const layer: Layer =
      w.outside !== null
        ? {
            props: new Map([...w.outside.props.keys()].map((k) => [k, TRUE] as const)),
            patterns: w.outside.patterns.map((p) => ({ ...p, conj: TRUE })),
            additional: conjNot(w.conj),
          }
        : w.keys !== null
          ? { props: new Map(), patterns: [{ source: "(some key)", dfa: w.keys, conj: conjNot(w.conj) }], additional: TRUE }
          : { props: new Map(), patterns: [], additional: conjNot(w.conj) };
    if (w.outside !== null && w.keys !== null) throw new Unsupported("not", "the complement of a member constraint on a restricted key set cannot be enforced");
    out.push({ ...base(), layers: [layer] });
  }
  return out;
}

export function shapeNot(a: Shape, oracle: EmptinessOracle): Shape {
  let arr: ArrAlt[] = [ANY_ARR];
  for (const alt of a.arr) arr = cross(arr, arrAltNot(alt), arrAnd, (x) => arrAltEmpty(x, oracle), "items");
  let obj: ObjAlt[] = [ANY_OBJ];
  for (const alt of a.obj) obj = cross(obj, objAltNot(alt), objAnd, (x) => objAltEmpty(x, oracle), "properties");
  return { nul: !a.nul, bool: ~a.bool & 3, num: numNot(a.num), str: strNot(a.str), arr, obj };
}

/** Whether the shape certainly has no values. */
export function shapeEmpty(s: Shape, oracle: EmptinessOracle): boolean {
  return (
    !s.nul &&
    s.bool === 0 &&
    numIsEmpty(s.num) &&
    strIsEmpty(s.str) &&
    s.arr.every((a) => arrAltEmpty(a, oracle)) &&
    s.obj.every((o) => objAltEmpty(o, oracle))
  );
}
