/**
 * JSON text as grammar IR (RFC 8259): any JSON value, and the pieces other compilers reuse —
 * whitespace between tokens, string bodies, numbers, literals.
 *
 * Whitespace placement: a gap between two JSON tokens gets exactly one whitespace expression, so
 * `maxWhitespace` bounds every gap (an empty object or array has one gap between its brackets).
 * The value itself has no leading or trailing whitespace; callers that want a full RFC 8259
 * JSON-text wrap it in {@link jsonWhitespace} themselves.
 */
import {
  charClass, choice, empty, lit, optional, repeat, seq, star, type GrammarBuilder, type IrExpr, type IrRef,
} from "./ir.js";
import { InvalidArgumentError } from "../errors.js";

/** Whitespace between JSON tokens. */
export interface JsonWhitespaceOptions {
  /** At most this many whitespace characters per gap; null or absent: unbounded. */
  maxWhitespace?: number | null;
  /** No whitespace at all (the same as `maxWhitespace: 0`). */
  compact?: boolean;
}

/** Options of {@link jsonValueRule}. */
export type JsonValueOptions = JsonWhitespaceOptions;

/** One JSON whitespace character: space, tab, line feed, carriage return. */
export function jsonWhitespaceChar(): IrExpr {
  return charClass([0x20, 0x09, 0x0a, 0x0d]);
}

function whitespaceLimit(options: JsonWhitespaceOptions): number | null {
  if (options.compact) return 0;
  const max = options.maxWhitespace ?? null;
  if (max !== null && (!Number.isInteger(max) || max < 0)) {
    throw new InvalidArgumentError(`maxWhitespace must be a non-negative integer or null, got ${String(max)}`);
  }
  return max;
}

/**
 * The whitespace allowed in one gap between JSON tokens: `[ \t\n\r]*`, at most
 * `maxWhitespace` characters, or nothing with `compact`.
 */
export function jsonWhitespace(options: JsonWhitespaceOptions = {}): IrExpr {
  const max = whitespaceLimit(options);
  if (max === 0) return empty();
  return repeat(jsonWhitespaceChar(), 0, max);
}

/** A character that may appear unescaped in a JSON string: any code point but `"`, `\` and U+0000–U+001F. */
export function jsonUnescapedChar(): IrExpr {
  return charClass([[0x20, 0x21], [0x23, 0x5b], [0x5d, 0x10ffff]]);
}

/** One hexadecimal digit, either case. */
export function hexDigit(): IrExpr {
  return charClass([[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]]);
}

/** An escape sequence inside a JSON string: `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` or `\uXXXX`. */
export function jsonEscape(): IrExpr {
  const hex = hexDigit();
  return seq(lit("\\"), choice(charClass([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]), seq(lit("u"), hex, hex, hex, hex)));
}

/** One character of a JSON string body: an unescaped character or an escape sequence. */
export function jsonStringChar(): IrExpr {
  return choice(jsonUnescapedChar(), jsonEscape());
}

/**
 * The body of a JSON string, between the quotes: zero or more characters. With `minChars` /
 * `maxChars` the count of characters (each escape counting as one) is bounded.
 */
export function jsonStringBody(limits: { minChars?: number; maxChars?: number | null } = {}): IrExpr {
  return repeat(jsonStringChar(), limits.minChars ?? 0, limits.maxChars ?? null);
}

/** A whole JSON string: `"` body `"`. */
export function jsonString(): IrExpr {
  return seq(lit('"'), jsonStringBody(), lit('"'));
}

/** `[1-9][0-9]*` or `0`, i.e. the integer part of a JSON number without its sign. */
export function jsonUnsignedInteger(): IrExpr {
  return choice(lit("0"), seq(charClass([[0x31, 0x39]]), star(charClass([[0x30, 0x39]]))));
}

/** A JSON integer: `-?(0|[1-9][0-9]*)`. */
export function jsonInteger(): IrExpr {
  return seq(optional(lit("-")), jsonUnsignedInteger());
}

/** The fraction part of a JSON number: `\.[0-9]+`. */
export function jsonFraction(): IrExpr {
  return seq(lit("."), repeat(charClass([[0x30, 0x39]]), 1, null));
}

/** The exponent part of a JSON number: `[eE][+-]?[0-9]+`. */
export function jsonExponent(): IrExpr {
  return seq(charClass([0x45, 0x65]), optional(charClass([0x2b, 0x2d])), repeat(charClass([[0x30, 0x39]]), 1, null));
}

/** A JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. */
export function jsonNumber(): IrExpr {
  return seq(jsonInteger(), optional(jsonFraction()), optional(jsonExponent()));
}

/** `true`, `false` or `null`. */
export function jsonLiteral(): IrExpr {
  return choice(lit("true"), lit("false"), lit("null"));
}

/** A sequence without the empty items (compact whitespace), flattened when one item is left. */
function cat(...items: IrExpr[]): IrExpr {
  const kept = items.filter((x) => x.kind !== "empty");
  return kept.length === 1 ? kept[0]! : seq(...kept);
}

/** The rules already defined per builder, keyed by piece and whitespace limit, so calls share them. */
const defined = new WeakMap<GrammarBuilder, Map<string, IrRef>>();

function cached(b: GrammarBuilder, key: string, make: () => IrRef): IrRef {
  let table = defined.get(b);
  if (!table) {
    table = new Map();
    defined.set(b, table);
  }
  let r = table.get(key);
  if (!r) {
    r = make();
    table.set(key, r);
  }
  return r;
}

/** A rule `json_string` holding a whole JSON string (defined once per builder). */
export function jsonStringRule(b: GrammarBuilder): IrRef {
  return cached(b, "string", () => b.define(b.freshName("json_string"), jsonString()));
}

/** A rule `json_number` holding a JSON number (defined once per builder). */
export function jsonNumberRule(b: GrammarBuilder): IrRef {
  return cached(b, "number", () => b.define(b.freshName("json_number"), jsonNumber()));
}

/**
 * A rule matching any JSON value (object, array, string, number, true, false, null), with the
 * given whitespace between tokens and none around the value. Rules are added to `b` under fresh
 * names (`json_value`, `json_object`, `json_array`, `json_string`, `json_number`); calling again
 * with the same builder and whitespace options returns the same rule.
 */
export function jsonValueRule(b: GrammarBuilder, options: JsonValueOptions = {}): IrRef {
  const max = whitespaceLimit(options);
  const suffix = max === null ? "" : max === 0 ? "_compact" : `_ws${max}`;
  return cached(b, `value${suffix}`, () => {
    const valueName = b.freshName(`json_value${suffix}`);
    const value = b.ruleRef(valueName);
    const ws = jsonWhitespace(options);
    const str = jsonStringRule(b);
    const member = cat(str, ws, lit(":"), ws, value);
    const object = b.define(
      b.freshName(`json_object${suffix}`),
      cat(lit("{"), ws, optional(cat(member, star(cat(ws, lit(","), ws, member)), ws)), lit("}")),
    );
    const array = b.define(
      b.freshName(`json_array${suffix}`),
      cat(lit("["), ws, optional(cat(value, star(cat(ws, lit(","), ws, value)), ws)), lit("]")),
    );
    return b.define(valueName, choice(object, array, str, jsonNumberRule(b), jsonLiteral()));
  });
}
