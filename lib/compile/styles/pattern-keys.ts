/**
 * `patternProperties` of a flat style's arguments object: which schemas an argument name is under.
 * A declared argument whose name a pattern matches is under both schemas; an undeclared name is
 * under every pattern it matches, else under `additionalProperties`. The undeclared names are
 * split into regions, one per set of patterns they match, so each region is one tag whose key
 * language and value schema are fixed. Patterns search (JSON Schema's reading), over the name
 * as decoded; Kimi K3 writes names entity-escaped, so its regions are escaped the same way.
 */
// The JSON Schema compiler's modules import each other in a cycle (shapes, strings, formats);
// entering through its index first evaluates them in the order they expect.
import "../json-schema/index.js";
import { SchemaError } from "../../errors.js";
import { isPlainObject } from "../../format/json-path.js";
import type { JsonSchema } from "../../format/types.js";
import { DfaBuilder, dfaAll, dfaMatches, difference, intersect, isEmpty, type Dfa } from "../json-schema/automaton.js";
import { regexToDfa, RegexUnsupported } from "../json-schema/regex.js";

/** One pattern of `patternProperties`. */
export interface KeyPattern {
  /** The names it matches anywhere (the pattern searches). */
  dfa: Dfa;
  schema: JsonSchema;
  pointer: string;
}

/** A set of undeclared names under the same patterns: `patterns` empty means additionalProperties. */
export interface KeyRegion {
  names: Dfa;
  patterns: KeyPattern[];
}

/** The most regions the patterns may split the names into (each is one more tag). */
export const MAX_KEY_REGIONS = 64;

function pointerOf(base: string, ...parts: string[]): string {
  return [base, ...parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1"))].join("/");
}

/** The patterns of `patternProperties` (absent: none); `at` is the object schema's pointer. */
export function keyPatterns(value: unknown, at: string): KeyPattern[] {
  if (value === undefined) return [];
  const pointer = pointerOf(at, "patternProperties");
  if (!isPlainObject(value)) throw new SchemaError(pointer, "expected an object mapping patterns to schemas", "patternProperties");
  return Object.entries(value).map(([source, schema]) => {
    const where = pointerOf(pointer, source);
    let dfa: Dfa;
    try {
      dfa = regexToDfa(source, false);
    } catch (err) {
      if (err instanceof RegexUnsupported) throw new SchemaError(where, `the pattern cannot be enforced: ${err.message}`, "patternProperties");
      throw err;
    }
    return { dfa, schema: schema as JsonSchema, pointer: where };
  });
}

/** Whether one of the patterns matches `name`. */
export function matchesPattern(name: string, patterns: readonly KeyPattern[]): boolean {
  return patterns.some((p) => dfaMatches(p.dfa, name));
}

/** `base` with the schemas of the patterns `name` matches beside it. */
export function underPatterns(base: JsonSchema, name: string, patterns: readonly KeyPattern[]): JsonSchema {
  const matching = patterns.filter((p) => dfaMatches(p.dfa, name)).map((p) => p.schema);
  if (matching.length === 0 || base === false) return base;
  return base === true ? (matching.length === 1 ? matching[0]! : { allOf: matching }) : { allOf: [base, ...matching] };
}

/**
 * The undeclared names split by the patterns they match; regions no name falls in are left out,
 * and so is the region of no pattern unless `additional` (additionalProperties is open).
 */
export function keyRegions(patterns: readonly KeyPattern[], additional: boolean, at: string): KeyRegion[] {
  let regions: KeyRegion[] = [{ names: dfaAll(), patterns: [] }];
  for (const p of patterns) {
    const next: KeyRegion[] = [];
    for (const r of regions) {
      const inside = intersect(r.names, p.dfa);
      const outside = difference(r.names, p.dfa);
      if (!isEmpty(inside)) next.push({ names: inside, patterns: [...r.patterns, p] });
      if (!isEmpty(outside)) next.push({ names: outside, patterns: r.patterns });
    }
    if (next.length > MAX_KEY_REGIONS) {
      throw new SchemaError(pointerOf(at, "patternProperties"), `the patterns split the argument names into more than ${MAX_KEY_REGIONS} sets of patterns they match; one tag per set is needed`, "patternProperties");
    }
    regions = next;
  }
  return regions.filter((r) => additional || r.patterns.length > 0);
}

/** The schema of the values of one region's names. */
export function regionSchema(region: KeyRegion, additional: JsonSchema): JsonSchema {
  const schemas = region.patterns.map((p) => p.schema);
  if (schemas.length === 0) return additional;
  return schemas.length === 1 ? schemas[0]! : { allOf: schemas };
}

const AMP = 0x26;
const QUOT = 0x22;

/**
 * The names of `dfa` as Kimi K3 writes them (`&` as `&amp;`, `"` as `&quot;`): each edge on one
 * of them becomes its entity, read one character at a time. Both entities start with `&`, so one
 * state after the `&` serves both.
 */
export function attributeEscaped(dfa: Dfa): Dfa {
  const out = new DfaBuilder();
  for (const accepting of dfa.accept) out.addState(accepting);
  const chain = (from: number, text: string, to: number): void => {
    let at = from;
    for (let i = 0; i < text.length - 1; i++) {
      const next = out.addState();
      out.addEdge(at, [[text.charCodeAt(i), text.charCodeAt(i)]], next);
      at = next;
    }
    out.addEdge(at, [[text.charCodeAt(text.length - 1), text.charCodeAt(text.length - 1)]], to);
  };
  dfa.edges.forEach((edges, s) => {
    let amp = -1;
    let quot = -1;
    for (const [lo, hi, to] of edges) {
      const plain: Array<[number, number]> = [];
      let start = lo;
      for (const cp of [QUOT, AMP]) {
        if (cp < start || cp > hi) continue;
        if (cp > start) plain.push([start, cp - 1]);
        if (cp === AMP) amp = to;
        else quot = to;
        start = cp + 1;
      }
      if (start <= hi) plain.push([start, hi]);
      out.addEdge(s, plain, to);
    }
    if (amp < 0 && quot < 0) return;
    const entity = out.addState();
    out.addEdge(s, [[AMP, AMP]], entity);
    if (amp >= 0) chain(entity, "amp;", amp);
    if (quot >= 0) chain(entity, "quot;", quot);
  });
  return out.build(dfa.start);
}
