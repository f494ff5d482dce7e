/**
 * `unevaluatedProperties` / `unevaluatedItems`. What adjacent and in-place subschemas evaluate
 * can depend on the instance (which `anyOf`/`oneOf` branches pass, whether `if` holds, which
 * dependent properties are present), so the schema is split into *cases*: a condition (a Shape)
 * and the members or items evaluated when it holds. The cases cover every value, so the keyword
 * becomes the union over cases of "condition and (unevaluated members satisfy the schema)".
 *
 * Annotations of failing subschemas are dropped (a failed branch, a failed `if`, anything under
 * `not`); `contains` evaluates the items it matches. Past a budget of cases the keyword is refused.
 */
import type { AnalyzeContext } from "./analyze.js";
import type { SchemaLoc } from "./resolve.js";
import {
  ANY, ANY_OBJ, Unsupported, anyExcept, conjOf, only, shapeAnd, shapeEmpty, shapeNot, shapeOr,
  type Conj, type Shape,
} from "./shape.js";

type Obj = { readonly [key: string]: unknown };

/** Properties evaluated: named keys, patterns, or everything. */
export interface PropEval {
  names: Set<string>;
  patterns: Set<string>;
  all: boolean;
}

/** Items evaluated: the first `prefix` positions, items matching a `contains`, or everything. */
export interface ItemEval {
  prefix: number;
  all: boolean;
  contains: Conj[];
}

/** One case: when `when` holds, `ev` is what is evaluated. */
export interface EvalCase<T> {
  when: Shape;
  ev: T;
}

/** The most cases one keyword may split into. */
const MAX_CASES = 64;

interface Ops<T> {
  empty(): T;
  merge(a: T, b: T): T;
  /** The schema object's own contributions (`top`: the schema holding the keyword). */
  own(ctx: AnalyzeContext, loc: SchemaLoc, top: boolean): T;
}

const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

export const propOps: Ops<PropEval> = {
  empty: () => ({ names: new Set(), patterns: new Set(), all: false }),
  merge: (a, b) => ({ names: new Set([...a.names, ...b.names]), patterns: new Set([...a.patterns, ...b.patterns]), all: a.all || b.all }),
  own(_ctx, loc, top) {
    const s = loc.schema as Obj;
    const out = propOps.empty();
    if (isObj(s.properties)) for (const k of Object.keys(s.properties)) out.names.add(k);
    if (isObj(s.patternProperties)) for (const k of Object.keys(s.patternProperties)) out.patterns.add(k);
    if (s.additionalProperties !== undefined) out.all = true;
    if (!top && s.unevaluatedProperties !== undefined) out.all = true;
    return out;
  },
};

export const itemOps: Ops<ItemEval> = {
  empty: () => ({ prefix: 0, all: false, contains: [] }),
  merge: (a, b) => ({ prefix: Math.max(a.prefix, b.prefix), all: a.all || b.all, contains: [...a.contains, ...b.contains] }),
  own(ctx, loc, top) {
    const s = loc.schema as Obj;
    const out = itemOps.empty();
    const reg = ctx.registry;
    if (Array.isArray(s.prefixItems) && reg.defines("prefixItems")) out.prefix = s.prefixItems.length;
    if (Array.isArray(s.items)) {
      out.prefix = Math.max(out.prefix, s.items.length);
      if (s.additionalItems !== undefined && reg.defines("additionalItems")) out.all = true;
    } else if (s.items !== undefined) out.all = true;
    if (!top && s.unevaluatedItems !== undefined) out.all = true;
    if (s.contains !== undefined && (isObj(s.contains) || typeof s.contains === "boolean")) {
      out.contains.push(conjOf(ctx.registry.child(loc, s.contains as Obj, "contains")));
    }
    return out;
  },
};

function subschemas(ctx: AnalyzeContext, loc: SchemaLoc, keyword: string): SchemaLoc[] {
  const v = (loc.schema as Obj)[keyword];
  if (Array.isArray(v)) return v.filter((x) => isObj(x) || typeof x === "boolean").map((x, i) => ctx.registry.child(loc, x as Obj, keyword, String(i)));
  if (isObj(v) || typeof v === "boolean") return [ctx.registry.child(loc, v as Obj, keyword)];
  return [];
}

/** The cases of what `loc` and its in-place subschemas evaluate. */
export function evaluationCases<T>(ctx: AnalyzeContext, loc: SchemaLoc, ops: Ops<T>, keyword: string): Array<EvalCase<T>> {
  const product = (a: Array<EvalCase<T>>, b: Array<EvalCase<T>>): Array<EvalCase<T>> => {
    const out: Array<EvalCase<T>> = [];
    for (const x of a) {
      for (const y of b) {
        const when = shapeAnd(x.when, y.when, ctx);
        if (shapeEmpty(when, ctx)) continue;
        out.push({ when, ev: ops.merge(x.ev, y.ev) });
        if (out.length > MAX_CASES) throw new Unsupported(keyword, `${keyword} needs more than ${MAX_CASES} cases of what is evaluated`);
      }
    }
    return out;
  };
  const passing = (l: SchemaLoc, seen: Set<number>): Array<EvalCase<T>> =>
    cases(l, false, seen).map((c) => ({ when: shapeAnd(ctx.shapeOf(l), c.when, ctx), ev: c.ev }));
  const failing = (l: SchemaLoc): EvalCase<T> => ({ when: shapeNot(ctx.shapeOf(l), ctx), ev: ops.empty() });

  const cases = (l: SchemaLoc, top: boolean, seenIn: Set<number>): Array<EvalCase<T>> => {
    if (typeof l.schema === "boolean" || seenIn.has(l.id)) return [{ when: ANY, ev: ops.empty() }];
    const seen = new Set(seenIn).add(l.id);
    const s = l.schema as Obj;
    const reg = ctx.registry;
    const refOnly = typeof s.$ref === "string" && reg.refOverridesSiblings;
    let out: Array<EvalCase<T>> = [{ when: ANY, ev: refOnly ? ops.empty() : ops.own(ctx, l, top) }];
    if (typeof s.$ref === "string") out = product(out, cases(reg.resolveRef(s.$ref, l), false, seen));
    if (refOnly) return out;
    if (typeof s.$recursiveRef === "string" && reg.defines("$recursiveRef")) {
      const target = reg.resolveRecursiveRef(s.$recursiveRef, l);
      if (target === null) throw new Unsupported("$recursiveRef", "$recursiveRef whose target depends on the dynamic scope is not supported");
      out = product(out, cases(target, false, seen));
    }
    if (typeof s.$dynamicRef === "string" && reg.defines("$dynamicRef")) {
      const target = reg.resolveDynamicRef(s.$dynamicRef, l);
      if (target === null) throw new Unsupported("$dynamicRef", "$dynamicRef whose target depends on the dynamic scope is not supported");
      out = product(out, cases(target, false, seen));
    }
    for (const sub of subschemas(ctx, l, "allOf")) out = product(out, cases(sub, false, seen));
    // anyOf and oneOf: every combination of passing and failing branches (the impossible ones are empty).
    for (const kw of ["anyOf", "oneOf"]) {
      for (const sub of subschemas(ctx, l, kw)) out = product(out, [...passing(sub, seen), failing(sub)]);
    }
    const cond = reg.defines("if") ? subschemas(ctx, l, "if")[0] : undefined;
    if (cond !== undefined) {
      const then = subschemas(ctx, l, "then")[0];
      const els = subschemas(ctx, l, "else")[0];
      const holds = then === undefined ? passing(cond, seen) : product(passing(cond, seen), cases(then, false, seen));
      const fails = els === undefined ? [failing(cond)] : product([failing(cond)], cases(els, false, seen));
      out = product(out, [...holds, ...fails]);
    }
    for (const kw of ["dependentSchemas", "dependencies"]) {
      const deps = s[kw];
      if (!isObj(deps) || !reg.defines(kw)) continue;
      for (const [name, x] of Object.entries(deps)) {
        if (!isObj(x) && typeof x !== "boolean") continue;
        const dep = reg.child(l, x as Obj, kw, name);
        const present = only({ obj: [{ ...ANY_OBJ, required: new Set([name]), forbidden: new Set(), order: [name] }] });
        const absent = shapeOr(anyExcept({ obj: [] }), only({ obj: [{ ...ANY_OBJ, forbidden: new Set([name]), required: new Set() }] }));
        const withDep = product([{ when: present, ev: ops.empty() }], passing(dep, seen));
        out = product(out, [...withDep, { when: absent, ev: ops.empty() }]);
      }
    }
    return out;
  };
  return cases(loc, true, new Set());
}
