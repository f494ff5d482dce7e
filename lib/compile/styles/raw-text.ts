/**
 * Raw string values of the argument styles: text written as it is (not JSON) and ended by the
 * style's closing marker. The grammar of such a value is the string language of its schema,
 * without any occurrence of the closing markers (the parser ends the value at the first one),
 * and, where the schema also allows other kinds of value and nothing in the markup says which
 * kind was written, without the texts the parser would read as one of those (`null`, `true`,
 * numbers, text starting with `{` or `[`). Built as automata over code points (the JSON Schema
 * compiler's own), so patterns, formats, enums and lengths stay exact.
 */
// The JSON Schema compiler's modules import each other in a cycle (shapes, strings, formats);
// entering through its index first evaluates them in the order they expect.
import "../json-schema/index.js";
import { SchemaError } from "../../errors.js";
import { charClass, choice, counted, lit, seq, text, unit, type GrammarBuilder, type IrExpr } from "../ir.js";
import { AutomatonTooLarge, complement, difference, intersect, isEmpty, union, type Dfa } from "../json-schema/automaton.js";
import { dfaToIr, plainRanges, type RangeEncoder } from "../json-schema/dfa-ir.js";
import { regexToDfa } from "../json-schema/regex.js";
import { lengthsCountable, strDfa, strIsAll, type StrSet } from "../json-schema/strings.js";
import type { ValueKinds } from "./schemas.js";

/** The non-string kinds a raw text could be read as. */
export type OtherKinds = Omit<ValueKinds, "string">;

const WS = "[ \\t\\n\\r]*";
const NUMBER = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?";

/** Anchored patterns of the raw texts that are read as JSON of each non-string kind. */
const READ_AS: Readonly<Record<keyof OtherKinds, string>> = {
  null: `${WS}null${WS}`,
  boolean: `${WS}(?:true|false)${WS}`,
  number: `${WS}${NUMBER}${WS}`,
  object: `${WS}\\{[\\s\\S]*`,
  array: `${WS}\\[[\\s\\S]*`,
};

function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

const cache = new Map<string, Dfa>();

function cached(key: string, make: () => Dfa): Dfa {
  let d = cache.get(key);
  if (!d) {
    d = make();
    if (cache.size > 256) cache.clear();
    cache.set(key, d);
  }
  return d;
}

/** Strings containing none of `markers`. */
export function withoutMarkersDfa(markers: readonly string[]): Dfa {
  return cached(`no:${JSON.stringify(markers)}`, () => complement(regexToDfa(markers.map(escapeRegex).join("|"), false)));
}

/** Whether a raw text would be read as JSON of one of the `others` kinds (the parser's rule). */
export function readsAsOther(raw: string, others: OtherKinds): boolean {
  return (Object.keys(READ_AS) as (keyof OtherKinds)[]).some((k) => others[k] && new RegExp(`^(?:${READ_AS[k]})$`).test(raw));
}

function otherDfa(others: OtherKinds): Dfa | null {
  const kinds = (Object.keys(READ_AS) as (keyof OtherKinds)[]).filter((k) => others[k]);
  if (kinds.length === 0) return null;
  return cached(`other:${kinds.join(",")}`, () => kinds.map((k) => regexToDfa(READ_AS[k], true)).reduce((a, d) => union(a, d)));
}

/** Options of {@link rawStringIr}. */
export interface RawStringOptions {
  /** Markers (and excluded strings) a raw value may not contain. */
  excludes: readonly string[];
  /** Kinds the value would be read as instead of a string. */
  others: OtherKinds;
  /** Qwen: the written text is the value with one `\n` before and after, or the value alone. */
  stripNewlines: boolean;
  /** A name for the rules. */
  name: string;
  /** The schema's JSON pointer, for messages. */
  pointer?: string;
}

/** One code point, counted as a unit of a counted node. */
const unitRanges: RangeEncoder = (ranges) => unit(charClass(ranges));

/** The raw text of a string value from `strings` (a string set of the JSON Schema compiler). */
export function rawStringIr(b: GrammarBuilder, strings: StrSet, options: RawStringOptions): IrExpr {
  const other = otherDfa(options.others);
  if (strIsAll(strings) && other === null) return text(options.excludes);
  let lang: Dfa;
  try {
    lang = withoutMarkersDfa(options.excludes);
    if (!strIsAll(strings)) lang = intersect(strDfa(strings), lang);
    if (other !== null) lang = difference(lang, other);
  } catch (err) {
    if (!(err instanceof AutomatonTooLarge)) throw err;
    return countedRawString(b, strings, other, options);
  }
  if (isEmpty(lang)) return choice();
  if (!options.stripNewlines) return dfaToIr(lang, b, options.name, plainRanges);
  // One `\n` on each side is dropped when read: either both are written, or none and then the
  // value itself may not start or end with one.
  const bare = difference(lang, cached("edge-nl", () => union(regexToDfa("\\n[\\s\\S]*", true), regexToDfa("[\\s\\S]*\\n", true))));
  const nl = lit("\n");
  const framed = seq(nl, dfaToIr(lang, b, options.name, plainRanges), nl);
  return isEmpty(bare) ? framed : choice(framed, dfaToIr(bare, b, `${options.name}_bare`, plainRanges));
}

/**
 * A raw string whose length bounds make the product too large (`maxLength: 4000` against the
 * markers): the automaton without the bounds, the length counted by the matcher, one unit per
 * code point (docs/engine.md, "Counted repetition"), where the lengths left from each state are
 * ranges; otherwise a SchemaError.
 */
function countedRawString(b: GrammarBuilder, strings: StrSet, other: Dfa | null, options: RawStringOptions): IrExpr {
  const refuse = (why: string): never => {
    throw new SchemaError(options.pointer ?? "", `the raw string value's ${why}`, "maxLength");
  };
  if (strings.kind !== "lang" || (strings.min === 0 && strings.max === null)) refuse("pattern or format, without its closing markers, needs too large an automaton");
  const bounds = strings as Extract<StrSet, { kind: "lang" }>;
  let base: Dfa;
  try {
    base = intersect(strDfa({ ...bounds, min: 0, max: null }), withoutMarkersDfa(options.excludes));
    if (other !== null) base = difference(base, other);
  } catch (err) {
    if (!(err instanceof AutomatonTooLarge)) throw err;
    return refuse("pattern or format, without its closing markers, needs too large an automaton");
  }
  if (isEmpty(base)) return choice();
  if (!lengthsCountable(base, bounds.min, bounds.max)) refuse("length bounds cannot be counted over its pattern without the closing markers");
  const body = counted(dfaToIr(base, b, `${options.name}_units`, unitRanges), bounds.min, bounds.max);
  if (!options.stripNewlines) return body;
  // Qwen's framing newlines: a counted value between two `\n`, or one that neither starts nor ends with one.
  const edges = cached("edge-nl", () => union(regexToDfa("\\n[\\s\\S]*", true), regexToDfa("[\\s\\S]*\\n", true)));
  const bare = difference(base, edges);
  const nl = lit("\n");
  const framed = seq(nl, body, nl);
  if (isEmpty(bare) || !lengthsCountable(bare, bounds.min, bounds.max)) return framed;
  return choice(framed, counted(dfaToIr(bare, b, `${options.name}_bare_units`, unitRanges), bounds.min, bounds.max));
}

/**
 * The written form of keys matching the regex `pattern` (and, when given, in the language
 * `within`, written forms too), minus the `taken` ones.
 */
export function keyIr(b: GrammarBuilder, pattern: string, taken: readonly string[], excludes: readonly string[], name: string, within?: Dfa): IrExpr {
  let lang = regexToDfa(pattern, true);
  if (within !== undefined) lang = intersect(lang, within);
  if (taken.length > 0) lang = difference(lang, regexToDfa(taken.map(escapeRegex).join("|"), true));
  if (excludes.length > 0) lang = intersect(lang, withoutMarkersDfa(excludes));
  return dfaToIr(lang, b, name, plainRanges);
}

/** JSON whitespace, at most `max` characters when given. */
export function whitespaceIr(max: number | undefined): IrExpr {
  const ws = charClass([0x20, 0x09, 0x0a, 0x0d]);
  return { kind: "repeat", item: ws, min: 0, max: max ?? null };
}
