/**
 * `unevaluatedProperties` / `unevaluatedItems` where the evaluated set is static: which members
 * and positions adjacent and in-place subschemas (`allOf`, `$ref`, `not`) evaluate does not
 * depend on the instance. Branching applicators (`anyOf`, `oneOf`, `if`, `dependentSchemas`,
 * `contains`) make it depend on which branches validate; those are accepted only when their
 * subschemas evaluate nothing at all, and otherwise refused.
 */
import type { SchemaLoc, SchemaRegistry } from "./resolve.js";

type Obj = { readonly [key: string]: unknown };

/** Properties evaluated by a schema: named keys, patterns, or everything. */
export interface PropEval {
  names: Set<string>;
  patterns: Set<string>;
  all: boolean;
}

/** Item positions evaluated: the first `prefix` positions, or everything. */
export interface ItemEval {
  prefix: number;
  all: boolean;
}

/** Thrown when evaluation depends on the instance. */
export class DynamicEvaluation extends Error {
  constructor(readonly keyword: string) {
    super(`evaluation depends on which ${keyword} branches validate`);
  }
}

const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

function subschemas(reg: SchemaRegistry, loc: SchemaLoc, keyword: string): SchemaLoc[] {
  const s = loc.schema as Obj;
  const v = s[keyword];
  if (Array.isArray(v)) return v.filter((x) => isObj(x) || typeof x === "boolean").map((x, i) => reg.child(loc, x as Obj, keyword, String(i)));
  if (isObj(v) || typeof v === "boolean") return [reg.child(loc, v as Obj, keyword)];
  return [];
}

function walk<T>(reg: SchemaRegistry, loc: SchemaLoc, top: boolean, seen: Set<number>, own: (s: Obj, top: boolean, acc: T) => void, acc: T, isEmpty: (t: T) => boolean, fresh: () => T): void {
  if (typeof loc.schema === "boolean" || seen.has(loc.id)) return;
  seen.add(loc.id);
  const s = loc.schema as Obj;
  const refOnly = typeof s.$ref === "string" && reg.refOverridesSiblings;
  if (!refOnly) own(s, top, acc);
  if (typeof s.$ref === "string") walk(reg, reg.resolveRef(s.$ref, loc), false, seen, own, acc, isEmpty, fresh);
  if (refOnly) return;
  if (typeof s.$dynamicRef === "string") {
    const target = reg.resolveDynamicRef(s.$dynamicRef, loc);
    if (target === null) throw new DynamicEvaluation("$dynamicRef");
    walk(reg, target, false, seen, own, acc, isEmpty, fresh);
  }
  for (const l of subschemas(reg, loc, "allOf")) walk(reg, l, false, seen, own, acc, isEmpty, fresh);
  for (const kw of ["anyOf", "oneOf", "if", "then", "else"]) {
    for (const l of subschemas(reg, loc, kw)) {
      const sub = fresh();
      walk(reg, l, false, new Set(seen), own, sub, isEmpty, fresh);
      if (!isEmpty(sub)) throw new DynamicEvaluation(kw === "then" || kw === "else" ? "if" : kw);
    }
  }
  for (const kw of ["dependentSchemas", "dependencies"]) {
    const v = s[kw];
    if (!isObj(v)) continue;
    for (const [k, x] of Object.entries(v)) {
      if (!isObj(x) && typeof x !== "boolean") continue;
      const sub = fresh();
      walk(reg, reg.child(loc, x as Obj, kw, k), false, new Set(seen), own, sub, isEmpty, fresh);
      if (!isEmpty(sub)) throw new DynamicEvaluation(kw);
    }
  }
}

/** The properties `loc` and its in-place subschemas evaluate (its own unevaluatedProperties excluded). */
export function evaluatedProperties(reg: SchemaRegistry, loc: SchemaLoc): PropEval {
  const acc: PropEval = { names: new Set(), patterns: new Set(), all: false };
  const own = (s: Obj, top: boolean, a: PropEval): void => {
    if (isObj(s.properties)) for (const k of Object.keys(s.properties)) a.names.add(k);
    if (isObj(s.patternProperties)) for (const k of Object.keys(s.patternProperties)) a.patterns.add(k);
    if (s.additionalProperties !== undefined) a.all = true;
    if (!top && s.unevaluatedProperties !== undefined) a.all = true;
  };
  const fresh = (): PropEval => ({ names: new Set(), patterns: new Set(), all: false });
  walk(reg, loc, true, new Set(), own, acc, (t) => t.names.size === 0 && t.patterns.size === 0 && !t.all, fresh);
  return acc;
}

/** The item positions `loc` and its in-place subschemas evaluate (its own unevaluatedItems excluded). */
export function evaluatedItems(reg: SchemaRegistry, loc: SchemaLoc): ItemEval {
  const acc: ItemEval = { prefix: 0, all: false };
  const own = (s: Obj, top: boolean, a: ItemEval): void => {
    if (Array.isArray(s.prefixItems)) a.prefix = Math.max(a.prefix, s.prefixItems.length);
    if (Array.isArray(s.items)) {
      a.prefix = Math.max(a.prefix, s.items.length);
      if (s.additionalItems !== undefined) a.all = true;
    } else if (s.items !== undefined) a.all = true;
    if (!top && s.unevaluatedItems !== undefined) a.all = true;
    if (s.contains !== undefined && s.contains !== false) throw new DynamicEvaluation("contains");
  };
  const fresh = (): ItemEval => ({ prefix: 0, all: false });
  walk(reg, loc, true, new Set(), own, acc, (t) => t.prefix === 0 && !t.all, fresh);
  return acc;
}
