/**
 * The lexical pieces of JSON text the schema compiler assembles: whitespace (any, bounded, or
 * none), string characters, numbers, and an unconstrained JSON value, defined once per compiled
 * schema as rules of the shared grammar builder.
 *
 * Two string encodings are used. Unconstrained strings accept every JSON escape. Strings under a
 * constraint (length, pattern, format, enum, property names) accept only the canonical encoding
 * `JSON.stringify` writes — each code point literally, except `"` `\` and control characters,
 * which have exactly one escape each — so one code point is one unit of text and a key cannot
 * reach a declared property name through an escape.
 */
import { charClass, choice, lit, optional, plus, repeat, seq, star, type GrammarBuilder, type IrExpr } from "../ir.js";
import { cleanRanges } from "./automaton.js";
import { dfaToIr, plainRanges } from "./dfa-ir.js";
import type { Exclusions } from "./excludes.js";

/** Options that shape JSON text (a subset of JsonSchemaOptions). */
export interface TextOptions {
  whitespace: "any" | "compact";
  maxWhitespace: number | null;
}

const SHORT_ESCAPES = new Map<number, string>([
  [0x22, '\\"'],
  [0x5c, "\\\\"],
  [0x08, "\\b"],
  [0x0c, "\\f"],
  [0x0a, "\\n"],
  [0x0d, "\\r"],
  [0x09, "\\t"],
]);

/** The canonical JSON text of one code point inside a string (what JSON.stringify writes). */
export function canonicalChar(cp: number): string {
  const short = SHORT_ESCAPES.get(cp);
  if (short !== undefined) return short;
  if (cp < 0x20) return `\\u${cp.toString(16).padStart(4, "0")}`;
  return String.fromCodePoint(cp);
}

/** The code points that need an escape in canonical form. */
const ESCAPED: Array<[number, number]> = [
  [0x00, 0x1f],
  [0x22, 0x22],
  [0x5c, 0x5c],
];

const encodeCache = new Map<string, IrExpr>();

/**
 * The escapes of the control characters in `cps` (sorted), grouped by their common prefix:
 * `\u000` + last digit, `\u001` + last digit, and the short escapes.
 */
const escapeCache = new Map<string, IrExpr[]>();

function escapesOf(cps: number[]): IrExpr[] {
  const key = cps.join(",");
  let known = escapeCache.get(key);
  if (!known) {
    const list = buildEscapes(cps);
    // One shared node for a group of escapes, so every label using them points at the same IR.
    known = list.length <= 1 ? list : [choice(...list)];
    escapeCache.set(key, known);
  }
  return known;
}

function buildEscapes(cps: number[]): IrExpr[] {
  const short: IrExpr[] = [];
  const low: number[] = [];
  const high: number[] = [];
  for (const cp of cps) {
    const s = SHORT_ESCAPES.get(cp);
    if (s !== undefined) short.push(lit(s));
    else if (cp < 0x10) low.push(cp);
    else high.push(cp);
  }
  const hexClass = (list: number[]): IrExpr => charClass(list.map((cp) => (cp & 15).toString(16).charCodeAt(0)));
  const out = short;
  if (low.length > 0) out.push(seq(lit("\\u000"), hexClass(low)));
  if (high.length > 0) out.push(seq(lit("\\u001"), hexClass(high)));
  return out;
}

/**
 * IR for one code point in `ranges`, canonically encoded inside a JSON string: a class for the
 * literal ones and the escapes for the rest. Memoized, so equal labels share one IR node.
 */
export function encodeRanges(ranges: ReadonlyArray<readonly [number, number]>): IrExpr {
  const clean = cleanRanges(ranges);
  const key = clean.map(([lo, hi]) => `${lo}-${hi}`).join(",");
  const known = encodeCache.get(key);
  if (known) return known;
  const literal: Array<[number, number]> = [];
  const escaped: number[] = [];
  for (const [lo, hi] of clean) {
    let start = lo;
    for (const [elo, ehi] of ESCAPED) {
      if (ehi < start || elo > hi) continue;
      if (elo > start) literal.push([start, elo - 1]);
      for (let cp = Math.max(elo, start); cp <= Math.min(ehi, hi); cp++) escaped.push(cp);
      start = ehi + 1;
    }
    if (start <= hi) literal.push([start, hi]);
  }
  const parts: IrExpr[] = [];
  if (literal.length > 0) parts.push(charClass(literal));
  parts.push(...escapesOf(escaped));
  const out = parts.length === 1 ? parts[0]! : choice(...parts);
  if (encodeCache.size > 10000) encodeCache.clear();
  encodeCache.set(key, out);
  return out;
}

/** The canonical JSON text of a string's characters, without quotes. */
export function canonicalText(s: string): string {
  if (!/["\\\x00-\x1f]/.test(s)) return s;
  let out = "";
  for (const ch of s) out += canonicalChar(ch.codePointAt(0)!);
  return out;
}

/** The canonical JSON text of a string, quotes included. */
export function canonicalString(s: string): string {
  let out = '"';
  for (const ch of s) out += canonicalChar(ch.codePointAt(0)!);
  return `${out}"`;
}

const DIGIT = charClass([[0x30, 0x39]]);
const DIGIT19 = charClass([[0x31, 0x39]]);
const HEX = charClass([
  [0x30, 0x39],
  [0x41, 0x46],
  [0x61, 0x66],
]);

/** Shared lexical rules of one compiled schema, defined on first use. */
export class JsonText {
  private readonly defined = new Map<string, IrExpr>();
  constructor(
    private readonly b: GrammarBuilder,
    private readonly prefix: string,
    readonly options: TextOptions,
    /** Strings no string's text may contain (any string and any value's strings and keys avoid them). */
    private readonly exclusions: Exclusions | null = null,
  ) {}

  /** A rule defined once per compiled schema under `name` (memoized). */
  rule(name: string, body: () => IrExpr): IrExpr {
    let r = this.defined.get(name);
    if (r === undefined) {
      const full = this.b.freshName(`${this.prefix}${name}`);
      r = this.b.ruleRef(full);
      this.defined.set(name, r);
      this.b.define(full, body());
    }
    return r;
  }

  /** Whitespace between tokens. */
  ws(): IrExpr {
    if (this.options.whitespace === "compact" || this.options.maxWhitespace === 0) return seq();
    return this.rule("ws", () => repeat(charClass([0x20, 0x09, 0x0a, 0x0d]), 0, this.options.maxWhitespace));
  }

  /** `ws token ws` around a structural character. */
  punct(c: string): IrExpr {
    const ws = this.ws();
    return ws.kind === "seq" && ws.items.length === 0 ? lit(c) : seq(ws, lit(c), ws);
  }

  /** One character of an unconstrained string: any literal character or any escape. */
  anyChar(): IrExpr {
    return this.rule("char", () =>
      choice(
        charClass([[0x00, 0x1f], 0x22, 0x5c], true),
        seq(lit("\\"), choice(charClass([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]), seq(lit("u"), HEX, HEX, HEX, HEX))),
      ),
    );
  }

  /** A string with any content (whose text holds no excluded string). */
  anyString(): IrExpr {
    const ex = this.exclusions;
    if (ex === null) return this.rule("string", () => seq(lit('"'), star(this.anyChar()), lit('"')));
    return this.rule("string", () => seq(lit('"'), dfaToIr(ex.textDfa(), this.b, `${this.prefix}string_text`, plainRanges), lit('"')));
  }

  /** Any JSON number. */
  anyNumber(): IrExpr {
    return this.rule("number", () =>
      seq(
        optional(lit("-")),
        choice(lit("0"), seq(DIGIT19, star(DIGIT))),
        optional(seq(lit("."), plus(DIGIT))),
        optional(seq(charClass([0x45, 0x65]), optional(charClass([0x2b, 0x2d])), plus(DIGIT))),
      ),
    );
  }

  /** An integer in plain notation, `-?(0|[1-9][0-9]*)`. */
  plainInteger(): IrExpr {
    return seq(optional(lit("-")), choice(lit("0"), seq(DIGIT19, star(DIGIT))));
  }

  /** Any JSON value. */
  anyValue(): IrExpr {
    const name = "value";
    const existing = this.defined.get(name);
    if (existing) return existing;
    const full = this.b.freshName(`${this.prefix}${name}`);
    const ref = this.b.ruleRef(full);
    this.defined.set(name, ref);
    const ws = this.ws();
    const member = seq(this.anyString(), this.punct(":"), ref);
    const object = seq(lit("{"), ws, choice(lit("}"), seq(member, star(seq(this.punct(","), member)), ws, lit("}"))));
    const array = seq(lit("["), ws, choice(lit("]"), seq(ref, star(seq(this.punct(","), ref)), ws, lit("]"))));
    this.b.define(full, choice(object, array, this.anyString(), this.anyNumber(), lit("true"), lit("false"), lit("null")));
    return ref;
  }
}
