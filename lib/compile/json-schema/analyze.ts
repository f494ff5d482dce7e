/**
 * Keyword semantics: one schema object → its Shape (the values it allows, per type). Applicators
 * (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `$ref`, dependencies) combine shapes;
 * type-specific keywords constrain only their own type. Member and item schemas stay lazy.
 */
import { SchemaError } from "../../errors.js";
import { AutomatonTooLarge } from "./automaton.js";
import { checkFormat, formatKind } from "./formats.js";
import { numberText } from "../../format/exact-numbers.js";
import { MAX_MOD_STATES } from "./numerals.js";
import { boundAtom, equalAny, integerRangeSet, equalAtom, multipleOfSet, MultipleOfTooLarge, NUM_ALL, NUM_INT, numAnd, schemaNumber, type SchemaNumber } from "./numbers.js";
import { regexToDfa, RegexUnsupported } from "./regex.js";
import { isKnownMetaschema, type Schema, type SchemaLoc, type SchemaRegistry } from "./resolve.js";
import {
  ANY,
  ANY_ARR,
  ANY_OBJ,
  FALSE,
  NONE,
  TRUE,
  Unsupported,
  anyExcept,
  conjOf,
  conjOr,
  only,
  shapeAnd,
  shapeEmpty,
  shapeNot,
  shapeOr,
  type ArrAlt,
  type Conj,
  type EmptinessOracle,
  type Layer,
  type ObjAlt,
  type PatternProp,
  type Shape,
} from "./shape.js";
import { STR_ALL, strAnd, strOfDfa, strOfFormat, strOfLength, strOfWords, type StrSet } from "./strings.js";
import { evaluationCases, itemOps, propOps } from "./unevaluated.js";

/**
 * How a schema's shape is used by the schema that asks for it: as an `anyOf` branch, as a part
 * intersected with the rest (`allOf`, `$ref`), or otherwise (`not`, `oneOf`, `if`, ...).
 */
export type ShapeUse = "anyOf" | "and" | "other";

/** What the analyzer needs from the compiler. */
export interface AnalyzeContext extends EmptinessOracle {
  readonly registry: SchemaRegistry;
  /**
   * The shape of another schema (memoized, cycle-checked); `via`: how the asking schema uses it
   * (a cycle is allowed through `anyOf` branches and intersected parts only, see the compiler).
   */
  shapeOf(loc: SchemaLoc, via?: ShapeUse): Shape;
  /** Reports a keyword that cannot be enforced: throws in strict mode, records in lenient mode. */
  unsupported(path: string, keyword: string, message: string): void;
  /** Whether `format` asserts (true) or only annotates. */
  readonly assertFormats: boolean;
  /** Whether OpenAPI's `int32` / `int64` formats assert their ranges. */
  readonly openApiFormats: boolean;
  /** xgrammar's strict mode: what an object or array schema does not declare is not allowed. */
  readonly forbidUndeclared: boolean;
  /** A location for a synthetic `{const: container[key]}` schema (memoized by value, numbers as written). */
  constLoc(container: object, key: string | number, at: SchemaLoc): SchemaLoc;
}

type Obj = { readonly [key: string]: unknown };

/** Keywords of older drafts or extensions whose meaning cannot be enforced: refused, never ignored. */
const REFUSED: Record<string, string> = {
  divisibleBy: "draft-03 divisibleBy is not supported (use multipleOf)",
  disallow: "draft-03 disallow is not supported",
  extends: "draft-03 extends is not supported",
};

function fail(path: string, keyword: string, message: string): never {
  throw new SchemaError(`${path}/${keyword}`, message, keyword);
}

/**
 * The most a count keyword (minLength, maxItems, minContains, ...) may say: the engine counts
 * repetitions in 31 bits, and a larger bound is refused here, naming the keyword, rather than as
 * a repeat of the grammar IR.
 */
const MAX_COUNT = 2 ** 31 - 1;

function nonNegInt(s: Obj, key: string, path: string): number | undefined {
  const v = s[key];
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || !Number.isInteger(v)) fail(path, key, `expected a non-negative integer, got ${JSON.stringify(v)}`);
  if (v > MAX_COUNT) fail(path, key, `expected an integer in [0, ${MAX_COUNT}] (2^31 - 1, the largest count the engine holds), got ${v}`);
  return v;
}

/** A numeric keyword's value: the decimal as written when the schema came as JSON text. */
function num(s: Obj, key: string, path: string): SchemaNumber | undefined {
  const v = s[key];
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) fail(path, key, `expected a number, got ${JSON.stringify(v)}`);
  return schemaNumber(v, numberText(s, key));
}

function isSchema(v: unknown): v is Schema {
  return typeof v === "boolean" || (typeof v === "object" && v !== null && !Array.isArray(v));
}

/** The shape of one schema object. */
export function analyzeSchema(ctx: AnalyzeContext, loc: SchemaLoc): Shape {
  const schema = loc.schema;
  if (schema === true) return ANY;
  if (schema === false) return NONE;
  const s = schema as Obj;
  const reg = ctx.registry;
  const path = loc.path;
  const child = (value: unknown, ...tokens: string[]): SchemaLoc => {
    if (!isSchema(value)) fail(path, tokens.join("/"), "expected a schema (an object or a boolean)");
    return reg.child(loc, value, ...tokens);
  };

  // Before 2019-09 a $ref replaces its siblings.
  if (typeof s.$ref === "string" && reg.refOverridesSiblings) return ctx.shapeOf(reg.resolveRef(s.$ref, loc), "and");

  let shape: Shape = ANY;
  /** Replaces the shape with `make(current)` (which must already include `current`). */
  const update = (keyword: string, make: (current: Shape) => Shape): void => {
    try {
      shape = make(shape);
    } catch (err) {
      if (err instanceof Unsupported) ctx.unsupported(`${path}/${keyword}`, err.keyword, err.message);
      else if (err instanceof AutomatonTooLarge) ctx.unsupported(`${path}/${keyword}`, keyword, `the automaton for this keyword is too large (${err.detail})`);
      else if (err instanceof MultipleOfTooLarge && err.reason !== undefined) ctx.unsupported(`${path}/${keyword}`, keyword, `${err.reason} (lenient: true compiles the schema without enforcing multipleOf)`);
      else if (err instanceof MultipleOfTooLarge) ctx.unsupported(`${path}/${keyword}`, keyword, `this divisor needs an automaton over digits of at least ${err.states} states (one per remainder that matters); at most ${MAX_MOD_STATES} are built (lenient: true compiles the schema without enforcing multipleOf)`);
      else throw err;
    }
  };
  const apply = (keyword: string, make: () => Shape): void => update(keyword, (current) => shapeAnd(current, make(), ctx));

  for (const key of Object.keys(s)) {
    const reason = REFUSED[key];
    if (reason !== undefined) apply(key, () => {
      throw new Unsupported(key, reason);
    });
  }

  const defined = (keyword: string): boolean => s[keyword] !== undefined && reg.defines(keyword);

  if (defined("$dynamicRef")) {
    if (typeof s.$dynamicRef !== "string") fail(path, "$dynamicRef", "expected a string");
    const target = reg.resolveDynamicRef(s.$dynamicRef, loc);
    apply("$dynamicRef", () => {
      if (target === null) throw new Unsupported("$dynamicRef", "$dynamicRef whose target depends on the dynamic scope (several $dynamicAnchor of that name) is not supported");
      return ctx.shapeOf(target, "and");
    });
  }
  if (loc.path === "#" && typeof s.$schema === "string" && !isKnownMetaschema(s.$schema)) {
    const uri = s.$schema;
    apply("$schema", () => {
      throw new Unsupported("$schema", `unknown metaschema ${JSON.stringify(uri)}: its vocabularies (which keywords apply) cannot be known`);
    });
  }
  if (defined("$recursiveRef")) {
    if (typeof s.$recursiveRef !== "string") fail(path, "$recursiveRef", "expected a string");
    const target = reg.resolveRecursiveRef(s.$recursiveRef, loc);
    apply("$recursiveRef", () => {
      if (target === null) throw new Unsupported("$recursiveRef", "$recursiveRef whose target depends on the dynamic scope (several resources with $recursiveAnchor: true) is not supported");
      return ctx.shapeOf(target, "and");
    });
  }

  if (s.type !== undefined) apply("type", () => typeShape(s.type, path));
  if (defined("const")) apply("const", () => valueShape(ctx, s, "const", loc, `${path}/const`));
  if (s.enum !== undefined) {
    if (!Array.isArray(s.enum)) fail(path, "enum", "expected an array");
    const values = s.enum as unknown[];
    apply("enum", () => {
      // The strings make one finite set at once (a trie, linear in their length); the other
      // values are united pairwise in a balanced tree.
      // One pass over the values, no array per value (enums of 100,000 strings); the other
      // values after every number, as before.
      const strings: string[] = [];
      const numbers: SchemaNumber[] = [];
      let others = false;
      values.forEach((v, i) => {
        if (typeof v === "string") strings.push(v);
        else if (typeof v !== "number") others = true;
        else if (!Number.isFinite(v)) throw new SchemaError(`${path}/enum/${i}`, "expected a finite number", "enum");
        else numbers.push(schemaNumber(v, numberText(values, i)));
      });
      const shapes: Shape[] = [];
      if (others) {
        values.forEach((v, i) => {
          if (typeof v !== "string" && typeof v !== "number") shapes.push(valueShape(ctx, values, i, loc, `${path}/enum/${i}`));
        });
      }
      if (strings.length > 0) shapes.push(only({ str: wordsShape(strings) }));
      if (numbers.length > 0) shapes.push(only({ num: equalAny(numbers) }));
      return unionAll(shapes);
    });
  }

  unevaluatedKeywords(ctx, s, loc, child, apply);
  numberKeywords(s, path, apply);
  if (ctx.openApiFormats && typeof s.format === "string" && OPENAPI_INTEGERS[s.format] !== undefined) {
    const [lo, hi] = OPENAPI_INTEGERS[s.format]!;
    apply("format", () => anyExcept({ num: numAnd(NUM_INT, integerRangeSet(lo, hi) ?? numAnd(boundAtom(lo, "minimum"), boundAtom(hi, "maximum"))) }));
  }
  stringKeywords(s, path, apply, ctx.assertFormats);
  arrayKeywords(ctx, s, loc, child, apply);
  objectKeywords(ctx, s, loc, child, apply);

  // Applicators last: the constraints above prune their combinations early.
  if (s.$ref !== undefined) {
    if (typeof s.$ref !== "string") fail(path, "$ref", "expected a string");
    const target = reg.resolveRef(s.$ref, loc);
    apply("$ref", () => ctx.shapeOf(target, "and"));
  }
  for (const kw of ["allOf", "anyOf", "oneOf"] as const) {
    if (s[kw] === undefined) continue;
    const list = s[kw];
    if (!Array.isArray(list) || list.length === 0) fail(path, kw, "expected a non-empty array of schemas");
    const locs = (list as unknown[]).map((x, i) => child(x, kw, String(i)));
    if (kw === "allOf") update(kw, (current) => locs.reduce<Shape>((acc, l) => shapeAnd(acc, ctx.shapeOf(l, "and"), ctx), current));
    else if (kw === "anyOf") apply(kw, () => unionAll(locs.map((l) => ctx.shapeOf(l, "anyOf"))));
    else update(kw, (current) => oneOfShape(ctx, locs.map((l) => ctx.shapeOf(l)), current));
  }
  if (s.not !== undefined) {
    const n = child(s.not, "not");
    apply("not", () => shapeNot(ctx.shapeOf(n), ctx));
  }
  if (defined("if")) {
    const cond = child(s.if, "if");
    const then = defined("then") ? child(s.then, "then") : null;
    const els = defined("else") ? child(s.else, "else") : null;
    if (then !== null || els !== null) {
      update("if", (current) => {
        const I = ctx.shapeOf(cond);
        const E = els ? ctx.shapeOf(els) : ANY;
        // Without `then`: I ∨ E, no complement needed.
        if (then === null) return shapeAnd(current, shapeOr(I, E), ctx);
        const T = ctx.shapeOf(then);
        const withI = shapeAnd(current, I, ctx);
        return shapeOr(shapeAnd(withI, T, ctx), shapeAnd(shapeAnd(current, shapeNot(I, ctx), ctx), E, ctx));
      });
    }
  }

  // Unknown keywords and annotations carry no assertion: ignored, as validators do.
  return shape;
}

function typeShape(type: unknown, path: string): Shape {
  const names = typeof type === "string" ? [type] : Array.isArray(type) ? type : null;
  if (names === null || names.length === 0) fail(path, "type", "expected a type name or a non-empty array of type names");
  let out = NONE;
  for (const t of names) {
    switch (t) {
      case "null":
        out = shapeOr(out, only({ nul: true }));
        break;
      case "boolean":
        out = shapeOr(out, only({ bool: 3 }));
        break;
      case "integer":
        out = shapeOr(out, only({ num: NUM_INT }));
        break;
      case "number":
        out = shapeOr(out, only({ num: NUM_ALL }));
        break;
      case "string":
        out = shapeOr(out, only({ str: STR_ALL }));
        break;
      case "array":
        out = shapeOr(out, only({ arr: [ANY_ARR] }));
        break;
      case "object":
        out = shapeOr(out, only({ obj: [ANY_OBJ] }));
        break;
      case "any":
        out = ANY;
        break;
      default:
        fail(path, "type", `unknown type ${JSON.stringify(t)} (expected null, boolean, integer, number, string, array or object)`);
    }
  }
  return out;
}

/** The shape of exactly one JSON value, `container[key]` (for `const` and `enum`). */
function valueShape(ctx: AnalyzeContext, container: object, key: string | number, at: SchemaLoc, where: string): Shape {
  const v: unknown = (container as Record<string | number, unknown>)[key];
  if (v === null) return only({ nul: true });
  if (typeof v === "boolean") return only({ bool: v ? 2 : 1 });
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new SchemaError(where, "expected a finite number", "const");
    return only({ num: equalAtom(schemaNumber(v, numberText(container, key))) });
  }
  if (typeof v === "string") return only({ str: wordsShape([v]) });
  if (Array.isArray(v)) {
    const prefix = v.map((_, i) => conjOf(ctx.constLoc(v, i, at)));
    return only({ arr: [{ ...ANY_ARR, prefix, rest: FALSE, min: v.length, max: v.length }] });
  }
  if (typeof v === "object") {
    const entries = Object.entries(v as Obj);
    const props = new Map(entries.map(([k]) => [k, conjOf(ctx.constLoc(v, k, at))] as const));
    const keys = entries.map(([k]) => k);
    return only({ obj: [{ ...ANY_OBJ, layers: [{ props, patterns: [], additional: FALSE }], required: new Set(keys), forbidden: new Set(), order: keys }] });
  }
  throw new SchemaError(where, "not a JSON value", "const");
}

/** A finite string set; strings with lone surrogates cannot be written as UTF-8 output. */
function wordsShape(words: string[]): StrSet {
  try {
    return strOfWords(words);
  } catch (err) {
    if (err instanceof RangeError) throw new Unsupported("const", "strings with lone surrogates are not supported");
    throw err;
  }
}

/** The union of many shapes, in a balanced tree (so merging finite sets stays n log n). */
export function unionAll(shapes: Shape[]): Shape {
  if (shapes.length === 0) return NONE;
  let level = shapes;
  while (level.length > 1) {
    const next: Shape[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? shapeOr(level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
}

/** `oneOf` within the constraints already known (`context`): each branch, minus the overlapping others. */
function oneOfShape(ctx: AnalyzeContext, shapes: Shape[], context: Shape): Shape {
  let out = NONE;
  shapes.forEach((si, i) => {
    let part = shapeAnd(context, si, ctx);
    if (shapeEmpty(part, ctx)) return;
    shapes.forEach((sj, j) => {
      if (i === j) return;
      // Only overlapping branches need their complement.
      if (shapeEmpty(shapeAnd(part, sj, ctx), ctx)) return;
      part = shapeAnd(part, shapeNot(sj, ctx), ctx);
    });
    out = shapeOr(out, part);
  });
  return out;
}

type Apply = (keyword: string, make: () => Shape) => void;

function unevaluatedKeywords(ctx: AnalyzeContext, s: Obj, loc: SchemaLoc, child: (v: unknown, ...t: string[]) => SchemaLoc, apply: Apply): void {
  if (!ctx.registry.defines("unevaluatedProperties")) return;
  if (s.unevaluatedProperties !== undefined && s.unevaluatedProperties !== true) {
    const u = conjOf(child(s.unevaluatedProperties, "unevaluatedProperties"));
    apply("unevaluatedProperties", () =>
      evaluationCases(ctx, loc, propOps, "unevaluatedProperties").reduce<Shape>((acc, { when, ev }) => {
        if (ev.all) return shapeOr(acc, when);
        // Members not evaluated in this case must satisfy the schema.
        const layer: Layer = {
          props: new Map([...ev.names].map((n) => [n, TRUE] as const)),
          patterns: [...ev.patterns].map((p) => ({ source: p, dfa: patternDfa(p, "patternProperties"), conj: TRUE })),
          additional: u,
        };
        const closed = anyExcept({ obj: [{ ...ANY_OBJ, layers: [layer], required: new Set(), forbidden: new Set(), order: [] }] });
        return shapeOr(acc, shapeAnd(when, closed, ctx));
      }, NONE),
    );
  }
  if (s.unevaluatedItems !== undefined && s.unevaluatedItems !== true) {
    const u = conjOf(child(s.unevaluatedItems, "unevaluatedItems"));
    apply("unevaluatedItems", () =>
      evaluationCases(ctx, loc, itemOps, "unevaluatedItems").reduce<Shape>((acc, { when, ev }) => {
        if (ev.all) return shapeOr(acc, when);
        // Items past the evaluated prefix match some `contains` or satisfy the schema.
        const rest = ev.contains.length === 0 ? u : conjOr([...ev.contains, u]);
        const closed = anyExcept({ arr: [{ ...ANY_ARR, prefix: Array.from({ length: ev.prefix }, () => TRUE), rest, contains: [] }] });
        return shapeOr(acc, shapeAnd(when, closed, ctx));
      }, NONE),
    );
  }
}

/** OpenAPI's integer formats: the signed ranges, as exact decimals. */
const OPENAPI_INTEGERS: Record<string, [SchemaNumber, SchemaNumber]> = {
  int32: [schemaNumber(-2147483648), schemaNumber(2147483647)],
  int64: [schemaNumber(-9223372036854775808, "-9223372036854775808"), schemaNumber(9223372036854775807, "9223372036854775807")],
};

function numberKeywords(s: Obj, path: string, apply: Apply): void {
  // draft-04: exclusiveMinimum / exclusiveMaximum are booleans modifying minimum / maximum.
  const exMinFlag = s.exclusiveMinimum === true;
  const exMaxFlag = s.exclusiveMaximum === true;
  const min = num(s, "minimum", path);
  const max = num(s, "maximum", path);
  const exMin = typeof s.exclusiveMinimum === "boolean" ? undefined : num(s, "exclusiveMinimum", path);
  const exMax = typeof s.exclusiveMaximum === "boolean" ? undefined : num(s, "exclusiveMaximum", path);
  // An integer with both inclusive bounds (a tool's `limit`, `count`, `page`): the range itself,
  // which the type's integer set leaves as it is, instead of two bounds over every numeral.
  const range = s.type === "integer" && min !== undefined && max !== undefined && !exMinFlag && !exMaxFlag ? integerRangeSet(min, max) : null;
  if (range !== null) apply("minimum", () => anyExcept({ num: range }));
  else {
    if (min !== undefined) apply("minimum", () => anyExcept({ num: boundAtom(min, exMinFlag ? "exclusiveMinimum" : "minimum") }));
    if (max !== undefined) apply("maximum", () => anyExcept({ num: boundAtom(max, exMaxFlag ? "exclusiveMaximum" : "maximum") }));
  }
  if (exMin !== undefined) apply("exclusiveMinimum", () => anyExcept({ num: boundAtom(exMin, "exclusiveMinimum") }));
  if (exMax !== undefined) apply("exclusiveMaximum", () => anyExcept({ num: boundAtom(exMax, "exclusiveMaximum") }));
  const mult = num(s, "multipleOf", path);
  if (mult !== undefined) {
    if (!(mult.value.n > 0n)) fail(path, "multipleOf", "expected a number greater than 0");
    apply("multipleOf", () => anyExcept({ num: multipleOfSet(mult) }));
  }
}

function stringKeywords(s: Obj, path: string, apply: Apply, assertFormats: boolean): void {
  const minL = nonNegInt(s, "minLength", path);
  const maxL = nonNegInt(s, "maxLength", path);
  if (minL !== undefined || maxL !== undefined) {
    apply(minL !== undefined ? "minLength" : "maxLength", () => anyExcept({ str: strOfLength(minL ?? 0, maxL ?? null) }));
  }
  if (s.pattern !== undefined) {
    const pattern = s.pattern;
    if (typeof pattern !== "string") fail(path, "pattern", "expected a string");
    apply("pattern", () => anyExcept({ str: strOfDfa(patternDfa(pattern)) }));
  }
  if (s.format !== undefined) {
    const format = s.format;
    if (typeof format !== "string") fail(path, "format", "expected a string");
    const kind = formatKind(format);
    if (kind !== "ignored" && assertFormats) {
      apply("format", () => {
        checkFormat(format);
        return anyExcept({ str: strOfFormat(format) });
      });
    }
  }
}

/** A pattern's DFA; syntax the compiler cannot enforce becomes Unsupported. */
export function patternDfa(pattern: string, keyword = "pattern"): ReturnType<typeof regexToDfa> {
  try {
    return regexToDfa(pattern);
  } catch (err) {
    if (err instanceof RegexUnsupported) throw new Unsupported(keyword, `pattern ${JSON.stringify(pattern)}: ${err.message}`);
    throw err;
  }
}

/** Keywords xgrammar's converter reads a schema by, ahead of its type, ignoring the rest. */
const XGRAMMAR_FIRST = ["$ref", "const", "enum", "anyOf", "oneOf", "allOf"];

/**
 * Whether xgrammar's JSON Schema converter reads schema object `s` as an object (or an array),
 * where its strict mode closes what `s` does not declare: not when a keyword of
 * {@link XGRAMMAR_FIRST} takes over, else when `type` names the kind, or, without `type`, when
 * `s` has properties / additionalProperties / unevaluatedProperties (an object, checked first) or
 * items / prefixItems / unevaluatedItems (an array).
 */
function xgrammarReadsAs(s: Obj, kind: "object" | "array"): boolean {
  if (XGRAMMAR_FIRST.some((k) => s[k] !== undefined)) return false;
  const type = s.type;
  if (type !== undefined) return type === kind || (Array.isArray(type) && type.includes(kind));
  const objectLike = s.properties !== undefined || s.additionalProperties !== undefined || s.unevaluatedProperties !== undefined;
  if (kind === "object") return objectLike;
  return !objectLike && (s.items !== undefined || s.prefixItems !== undefined || s.unevaluatedItems !== undefined);
}

function arrayKeywords(ctx: AnalyzeContext, s: Obj, loc: SchemaLoc, child: (v: unknown, ...t: string[]) => SchemaLoc, apply: Apply): void {
  const path = loc.path;
  const keys = ["prefixItems", "items", "additionalItems", "minItems", "maxItems", "contains", "uniqueItems"];
  if (!keys.some((k) => s[k] !== undefined)) return;
  const alt: ArrAlt = { ...ANY_ARR, prefix: [], contains: [] };
  const reg = ctx.registry;
  if (Array.isArray(s.items)) {
    if (!reg.defines("additionalItems")) {
      fail(path, "items", "in draft 2020-12 `items` takes one schema; an array of schemas is the tuple form of draft 2019-09 and earlier: write it as `prefixItems`, or declare the older draft in `$schema`");
    }
    // draft-07 tuple form: items is the prefix, additionalItems the rest.
    alt.prefix = s.items.map((x, i) => conjOf(child(x, "items", String(i))));
    if (s.additionalItems !== undefined) {
      alt.rest = conjOf(child(s.additionalItems, "additionalItems"));
    }
  } else {
    if (s.prefixItems !== undefined && reg.defines("prefixItems")) {
      if (!Array.isArray(s.prefixItems)) fail(path, "prefixItems", "expected an array of schemas");
      alt.prefix = s.prefixItems.map((x, i) => conjOf(child(x, "prefixItems", String(i))));
    }
    if (s.items !== undefined) {
      alt.rest = conjOf(child(s.items, "items"));
    } else if (ctx.forbidUndeclared && s.unevaluatedItems === undefined && xgrammarReadsAs(s, "array")) {
      alt.rest = FALSE;
    }
  }
  alt.min = nonNegInt(s, "minItems", path) ?? 0;
  alt.max = nonNegInt(s, "maxItems", path) ?? null;
  if (s.contains !== undefined && reg.defines("contains")) {
    const c = conjOf(child(s.contains, "contains"));
    const counted = reg.defines("minContains");
    const minC = (counted ? nonNegInt(s, "minContains", path) : undefined) ?? 1;
    const maxC = (counted ? nonNegInt(s, "maxContains", path) : undefined) ?? null;
    alt.contains.push({ conj: c, min: minC, max: maxC, from: 0, path });
  }
  // Enforced at emission where the items come from a finite set of values (unique-items.ts).
  if (s.uniqueItems === true && !(alt.max !== null && alt.max <= 1)) {
    alt.unique = true;
    alt.uniquePath = `${path}/uniqueItems`;
  }
  apply(keys.find((k) => s[k] !== undefined)!, () => anyExcept({ arr: [alt] }));
}

function objectKeywords(ctx: AnalyzeContext, s: Obj, loc: SchemaLoc, child: (v: unknown, ...t: string[]) => SchemaLoc, apply: Apply): void {
  const path = loc.path;
  const keys = ["properties", "patternProperties", "additionalProperties", "propertyNames", "required", "minProperties", "maxProperties"];
  if (keys.some((k) => s[k] !== undefined)) {
    const layer: Layer = { props: new Map(), patterns: [], additional: TRUE };
    const order: string[] = [];
    if (s.properties !== undefined) {
      if (!isSchema(s.properties) || typeof s.properties === "boolean") fail(path, "properties", "expected an object of schemas");
      for (const [k, v] of Object.entries(s.properties as Obj)) {
        layer.props.set(k, conjOf(child(v, "properties", k)));
        order.push(k);
      }
    }
    let patternsOk = true;
    if (s.patternProperties !== undefined) {
      if (!isSchema(s.patternProperties) || typeof s.patternProperties === "boolean") fail(path, "patternProperties", "expected an object of schemas");
      const patterns: PatternProp[] = [];
      apply("patternProperties", () => {
        for (const [k, v] of Object.entries(s.patternProperties as Obj)) {
          patterns.push({ source: k, dfa: patternDfa(k, "patternProperties"), conj: conjOf(child(v, "patternProperties", k)) });
        }
        return ANY;
      });
      if (patterns.length === Object.keys(s.patternProperties as Obj).length) layer.patterns = patterns;
      else patternsOk = false;
    }
    if (s.additionalProperties !== undefined) {
      if (patternsOk) layer.additional = conjOf(child(s.additionalProperties, "additionalProperties"));
      else {
        // Without the patterns we cannot tell which keys are additional: leave them unconstrained (lenient).
      }
    } else if (ctx.forbidUndeclared && patternsOk && s.unevaluatedProperties === undefined && xgrammarReadsAs(s, "object")) {
      // xgrammar's one open case: propertyNames alone names the members (its values any).
      const namesOnly = s.propertyNames !== undefined && s.properties === undefined && s.patternProperties === undefined;
      if (!namesOnly) layer.additional = FALSE;
    }
    const alt: ObjAlt = { ...ANY_OBJ, layers: [layer], required: new Set(), forbidden: new Set(), order };
    if (s.required !== undefined) {
      if (!Array.isArray(s.required) || s.required.some((r) => typeof r !== "string")) fail(path, "required", "expected an array of strings");
      for (const r of s.required as string[]) {
        alt.required.add(r);
        if (!order.includes(r)) order.push(r);
      }
    }
    alt.min = nonNegInt(s, "minProperties", path) ?? 0;
    alt.max = nonNegInt(s, "maxProperties", path) ?? null;
    if (s.propertyNames !== undefined && ctx.registry.defines("propertyNames")) {
      const pn = child(s.propertyNames, "propertyNames");
      apply("propertyNames", () => {
        const names: StrSet = ctx.shapeOf(pn).str;
        alt.names = strAnd(alt.names, names);
        return ANY;
      });
    }
    apply(keys.find((k) => s[k] !== undefined)!, () => anyExcept({ obj: [alt] }));
  }
  const deps: Array<[string, unknown, string]> = [];
  for (const kw of ["dependentRequired", "dependentSchemas", "dependencies"]) {
    const v = s[kw];
    if (v === undefined || !ctx.registry.defines(kw)) continue;
    if (!isSchema(v) || typeof v === "boolean") fail(path, kw, "expected an object");
    for (const [k, x] of Object.entries(v as Obj)) deps.push([k, x, kw]);
  }
  const nonObjects = anyExcept({ obj: [] });
  for (const [k, x, kw] of deps) {
    if (Array.isArray(x) && kw !== "dependentSchemas") {
      if (x.some((n) => typeof n !== "string")) fail(path, `${kw}/${k}`, "expected an array of property names");
      const names = x as string[];
      apply(kw, () =>
        shapeOr(
          shapeOr(nonObjects, only({ obj: [{ ...ANY_OBJ, forbidden: new Set([k]), required: new Set() }] })),
          only({ obj: [{ ...ANY_OBJ, required: new Set([k, ...names]), forbidden: new Set(), order: [k, ...names] }] }),
        ),
      );
    } else if (kw !== "dependentRequired") {
      const dep = child(x, kw, k);
      apply(kw, () =>
        shapeOr(
          shapeOr(nonObjects, only({ obj: [{ ...ANY_OBJ, forbidden: new Set([k]), required: new Set() }] })),
          shapeAnd(only({ obj: [{ ...ANY_OBJ, required: new Set([k]), forbidden: new Set(), order: [k] }] }), ctx.shapeOf(dep), ctx),
        ),
      );
    } else fail(path, `${kw}/${k}`, "expected an array of property names");
  }
}
