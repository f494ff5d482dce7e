/**
 * A recursive-descent parser for ECMAScript regular expressions that lowers straight to grammar
 * IR. Semantics are those of `new RegExp("^(?:" + pattern + ")$", "u")`: the whole text must
 * match, and the pattern is read as code points. Anchors at the edge of a whole alternative
 * (`^$|^https://x\.com/`, `(a$|b)`) restate the full match and change nothing. Features that a
 * context-free grammar over the output cannot express (back-references, look-around, word
 * boundaries, anchors inside the pattern) are refused with a GrammarError at their 0-based UTF-16
 * offset in the pattern.
 */
import { GrammarError } from "../../errors.js";
import type { IrExpr } from "../ir.js";
import { classExpr, choiceOf, codePointExpr, repeatOf, seqOf } from "./build.js";
import { DIGIT, LINE_TERMINATORS, SPACE, WORD, complement, normalize, type Range } from "./charset.js";
import { propertyRanges } from "./unicode.js";

/** Largest repeat bound the IR stores (u32 with 0xFFFFFFFF reserved for "unbounded"). */
const MAX_REPEAT = 0xfffffffe;

/** Deepest group nesting accepted (deeper patterns are refused rather than risking the stack). */
const MAX_NESTING = 256;

/** A braced quantifier: `{m}`, `{m,}` or `{m,n}` (sticky: matched at lastIndex). */
const QUANTIFIER = /\{([0-9]+)(,([0-9]*))?\}/y;

/** One element of a character class: a code point, or a set from `\d`, `\p{…}`, … */
type ClassAtom = { kind: "char"; cp: number } | { kind: "set"; ranges: readonly Range[] };

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** Parses one pattern; use {@link parseRegex}. */
class RegexParser {
  private pos = 0;
  private nesting = 0;
  /** Anchors read so far (a quantified group must not hold one). */
  private anchors = 0;
  /** Whether the group just parsed ends with an end anchor (`$` at the end of an alternative). */
  private groupEndAnchored = false;
  /** Where the last `$` was read (for the error when something follows it). */
  private endAnchorAt = 0;

  constructor(private readonly src: string) {}

  private fail(message: string, at = this.pos): never {
    throw new GrammarError(`regex error at position ${at}: ${message}`, { position: at });
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  private atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  parse(): IrExpr {
    const { expr } = this.disjunction(0, true);
    if (!this.atEnd()) this.fail(`unmatched ')': there is no '(' for it to close`);
    return expr;
  }

  /**
   * Alternatives separated by `|`. `atStart`: they begin where the whole text begins, so a `^`
   * opening one restates the full match. `endAnchored`: some alternative ends with `$`, which
   * the caller accepts only where nothing can follow (the end of the pattern, or of a group
   * that ends its own alternative).
   */
  private disjunction(depth: number, atStart: boolean): { expr: IrExpr; endAnchored: boolean } {
    let endAnchored = false;
    const one = (): IrExpr => {
      const a = this.alternative(depth, atStart);
      endAnchored ||= a.endAnchored;
      return a.expr;
    };
    const alternatives = [one()];
    while (this.peek() === "|") {
      this.pos++;
      alternatives.push(one());
    }
    return { expr: choiceOf(alternatives), endAnchored };
  }

  private alternative(depth: number, atStart: boolean): { expr: IrExpr; endAnchored: boolean } {
    const items: IrExpr[] = [];
    let endAnchored = false;
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === "|" || c === ")") break;
      if (endAnchored) {
        this.fail("'$' is only accepted at the end of a whole alternative: the pattern always matches the whole text, so an end anchor with more to match after it cannot be expressed (write \\$ for a literal dollar sign)", this.endAnchorAt);
      }
      if (c === "$") {
        this.endAnchorAt = this.pos;
        this.pos++;
        this.anchors++;
        endAnchored = true;
        continue;
      }
      if (c === "^") {
        if (!atStart || items.length > 0) {
          this.fail("'^' is only accepted at the start of a whole alternative: the pattern always matches the whole text, so a start anchor elsewhere cannot be expressed (write \\^ for a literal caret)");
        }
        this.pos++;
        this.anchors++;
        continue;
      }
      items.push(this.term(atStart && items.length === 0));
      if (this.groupEndAnchored) {
        this.groupEndAnchored = false;
        endAnchored = true;
      }
    }
    return { expr: seqOf(items), endAnchored };
  }

  /** An atom and its quantifier; `atStart`: the atom begins where the whole text begins. */
  private term(atStart: boolean): IrExpr {
    const anchorsBefore = this.anchors;
    const atom = this.atom(atStart);
    const quantifierAt = this.pos;
    const bounds = this.quantifier();
    if (bounds === undefined) return atom;
    if (this.anchors !== anchorsBefore) {
      this.fail("a group holding '^' or '$' cannot be repeated: the anchor holds only at the edge of the text, so the repeats cannot be expressed", quantifierAt);
    }
    if (this.peek() === "?") this.pos++; // lazy: the same language
    const next = this.peek();
    if (next === "*" || next === "+" || next === "?" || (next === "{" && this.quantifierAhead())) {
      this.fail(`nothing to repeat: the quantifier at position ${quantifierAt} is already quantified`);
    }
    return repeatOf(atom, bounds[0], bounds[1]);
  }

  /** Whether a well-formed `{m}`, `{m,}` or `{m,n}` starts here. */
  private quantifierAhead(): boolean {
    QUANTIFIER.lastIndex = this.pos;
    return QUANTIFIER.test(this.src);
  }

  /** Reads a quantifier if one follows; returns its bounds. */
  private quantifier(): [number, number | null] | undefined {
    const c = this.peek();
    if (c === "*") {
      this.pos++;
      return [0, null];
    }
    if (c === "+") {
      this.pos++;
      return [1, null];
    }
    if (c === "?") {
      this.pos++;
      return [0, 1];
    }
    if (c !== "{") return undefined;
    const start = this.pos;
    QUANTIFIER.lastIndex = start;
    const m = QUANTIFIER.exec(this.src);
    if (m === null) {
      this.fail("incomplete quantifier: '{' must be followed by {m}, {m,} or {m,n}; write \\{ for a literal brace");
    }
    const min = this.count(m[1]!, start + 1);
    let max: number | null = min;
    if (m[2] !== undefined) max = m[3] === "" ? null : this.count(m[3]!, start + 2 + m[1]!.length);
    if (max !== null && max < min) this.fail(`numbers out of order in the quantifier {${min},${max}}: the maximum is below the minimum`, start);
    this.pos = start + m[0].length;
    return [min, max];
  }

  private count(digits: string, at: number): number {
    const value = Number(digits);
    if (!(value <= MAX_REPEAT)) this.fail(`repeat count ${digits} is too large (at most ${MAX_REPEAT})`, at);
    return value;
  }

  private atom(atStart: boolean): IrExpr {
    const start = this.pos;
    const c = this.peek()!;
    switch (c) {
      case ".":
        this.pos++;
        return classExpr(LINE_TERMINATORS, true);
      case "(":
        return this.group(atStart);
      case "[":
        return this.characterClass();
      case "\\":
        return this.atomEscape();
      case "*":
      case "+":
      case "?":
        return this.fail(`nothing to repeat: '${c}' has no atom before it (write \\${c} for a literal '${c}')`);
      case "{":
        if (this.quantifierAhead()) return this.fail("nothing to repeat: the quantifier has no atom before it");
        return this.fail("a literal '{' must be escaped as \\{ (a bare '{' starts a quantifier such as {2}, {2,} or {2,5})");
      default: {
        // ']' and '}' alone are literals, as in web browsers' (Annex B) reading of patterns.
        const cp = this.src.codePointAt(start)!;
        this.pos += cp > 0xffff ? 2 : 1;
        return codePointExpr(cp);
      }
    }
  }

  private group(atStart: boolean): IrExpr {
    const open = this.pos;
    if (++this.nesting > MAX_NESTING) this.fail(`groups are nested more than ${MAX_NESTING} deep`, open);
    this.pos++;
    if (this.peek() === "?") {
      const kind = this.peek(1);
      if (kind === ":") {
        this.pos += 2;
      } else if (kind === "=" || kind === "!") {
        this.fail(`look-ahead assertions (?${kind}…) are not supported: the grammar IR has no intersection or complement, so the condition cannot be enforced while matching`, open);
      } else if (kind === "<" && (this.peek(2) === "=" || this.peek(2) === "!")) {
        this.fail(`look-behind assertions (?<${this.peek(2)}…) are not supported: the grammar IR has no intersection or complement, so the condition cannot be enforced while matching`, open);
      } else if (kind === "<") {
        this.groupName();
      } else if (kind !== undefined && /[a-zA-Z-]/.test(kind)) {
        this.fail("inline flags and modifiers such as (?i) or (?i:…) are not supported: patterns are matched as written, case-sensitively", open);
      } else {
        this.fail("invalid group: '(?' must be followed by ':', '<name>', '=', '!', '<=' or '<!'", open);
      }
    }
    const inner = this.disjunction(1, atStart);
    if (this.peek() !== ")") this.fail(`unterminated group: the '(' at position ${open} has no matching ')'`, open);
    this.pos++;
    this.nesting--;
    this.groupEndAnchored = inner.endAnchored;
    return inner.expr;
  }

  /** Skips `?<name>` of a named group (the name is ignored: captures do not change the language). */
  private groupName(): void {
    const nameStart = this.pos + 2;
    const close = this.src.indexOf(">", nameStart);
    const name = close < 0 ? "" : this.src.slice(nameStart, close);
    if (!/^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u.test(name)) {
      this.fail("invalid group name: (?<name>…) needs an identifier followed by '>'", nameStart);
    }
    this.pos = close + 1;
  }

  private atomEscape(): IrExpr {
    const at = this.pos;
    const c = this.peek(1);
    if (c === "b" || c === "B") {
      this.fail(`word-boundary assertions (\\${c}) are not supported: they depend on the characters around a position, which the grammar IR cannot test`, at);
    }
    if (c !== undefined && c >= "1" && c <= "9") {
      this.fail("back-references (\\1, \\2, …) are not supported: matching a repeat of captured text is not context-free", at);
    }
    if (c === "k") {
      this.fail("named back-references (\\k<name>) are not supported: matching a repeat of captured text is not context-free", at);
    }
    const atom = this.classOrCharEscape(false);
    return atom.kind === "char" ? codePointExpr(atom.cp) : classExpr(atom.ranges, false);
  }

  /**
   * Reads an escape starting at the backslash: a class escape (`\d`, `\p{…}`, …) or one code
   * point. `inClass` enables the escapes only valid inside brackets (`\b` backspace, `\-`).
   */
  private classOrCharEscape(inClass: boolean): ClassAtom {
    const at = this.pos;
    const c = this.peek(1);
    if (c === undefined) this.fail("'\\' at the end of the pattern escapes nothing", at);
    this.pos += 2;
    const char = (cp: number): ClassAtom => ({ kind: "char", cp });
    switch (c) {
      case "d":
        return { kind: "set", ranges: DIGIT };
      case "D":
        return { kind: "set", ranges: complement(DIGIT) };
      case "w":
        return { kind: "set", ranges: WORD };
      case "W":
        return { kind: "set", ranges: complement(WORD) };
      case "s":
        return { kind: "set", ranges: SPACE };
      case "S":
        return { kind: "set", ranges: complement(SPACE) };
      case "p":
      case "P":
        return { kind: "set", ranges: this.property(c === "P", at) };
      case "t":
        return char(0x09);
      case "n":
        return char(0x0a);
      case "v":
        return char(0x0b);
      case "f":
        return char(0x0c);
      case "r":
        return char(0x0d);
      // Not ECMAScript: the bell and escape characters, which xgrammar's regexes (and PCRE) read.
      case "a":
        return char(0x07);
      case "e":
        return char(0x1b);
      case "0":
        if (isDigit(this.peek())) this.fail("octal escapes such as \\01 are not allowed in Unicode patterns (write \\x01 or \\u0001)", at);
        return char(0);
      case "c": {
        const letter = this.peek();
        if (letter === undefined || !/^[a-zA-Z]$/.test(letter)) this.fail("\\c must be followed by an ASCII letter (\\cA … \\cZ)", at);
        this.pos++;
        return char(letter.charCodeAt(0) % 32);
      }
      case "x": {
        if (!isHex(this.peek()) || !isHex(this.peek(1))) this.fail("\\x must be followed by exactly two hex digits", at);
        this.pos += 2;
        return char(parseInt(this.src.slice(this.pos - 2, this.pos), 16));
      }
      case "u":
        return char(this.unicodeEscape(at));
      case "b":
        if (inClass) return char(0x08);
        break;
      case "-":
        if (inClass) return char(0x2d);
        break;
    }
    if (c !== undefined && /[a-zA-Z0-9]/.test(c)) {
      this.fail(`unknown escape \\${c}`, at);
    }
    // Identity escape: the character itself (syntax characters, '/', and other punctuation).
    const cp = this.src.codePointAt(at + 1)!;
    this.pos = at + 1 + (cp > 0xffff ? 2 : 1);
    return char(cp);
  }

  /** `\uXXXX` (a surrogate pair written as two escapes combines) or `\u{…}`; pos is past "\u". */
  private unicodeEscape(at: number): number {
    if (this.peek() === "{") {
      const m = /^\{([0-9a-fA-F]+)\}/.exec(this.src.slice(this.pos));
      if (m === null) this.fail("\\u{…} must contain hex digits and end with '}'", at);
      const cp = parseInt(m[1]!, 16);
      if (!(cp <= 0x10ffff)) this.fail(`\\u{${m[1]}} is beyond U+10FFFF, the largest code point`, at);
      this.pos += m[0].length;
      return cp;
    }
    const hex4 = (from: number): number | undefined => {
      const s = this.src.slice(from, from + 4);
      return /^[0-9a-fA-F]{4}$/.test(s) ? parseInt(s, 16) : undefined;
    };
    const unit = hex4(this.pos);
    if (unit === undefined) this.fail("\\u must be followed by four hex digits or {hex}", at);
    this.pos += 4;
    if (unit >= 0xd800 && unit <= 0xdbff && this.peek() === "\\" && this.peek(1) === "u") {
      const low = hex4(this.pos + 2);
      if (low !== undefined && low >= 0xdc00 && low <= 0xdfff) {
        this.pos += 6;
        return 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      }
    }
    return unit;
  }

  /** `\p{…}` / `\P{…}`; pos is past the letter. */
  private property(negated: boolean, at: number): Range[] {
    const m = /^\{([A-Za-z0-9_]+(=[A-Za-z0-9_]+)?)\}/.exec(this.src.slice(this.pos));
    if (m === null) this.fail(`\\${negated ? "P" : "p"} must be followed by {Property} or {Property=Value}`, at);
    const ranges = propertyRanges(m[1]!);
    if (ranges === undefined) {
      this.fail(`unknown Unicode property '${m[1]}' (use a name JavaScript's RegExp knows, such as L, Lu, Nd, P, Script=Latin)`, at);
    }
    this.pos += m[0].length;
    return negated ? complement(ranges) : ranges;
  }

  private characterClass(): IrExpr {
    const open = this.pos;
    this.pos++;
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.pos++;
    }
    const ranges: Range[] = [];
    for (;;) {
      if (this.atEnd()) this.fail(`unterminated character class: the '[' at position ${open} has no matching ']'`, open);
      if (this.peek() === "]") break;
      const firstAt = this.pos;
      const first = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos++;
        const lastAt = this.pos;
        const last = this.classAtom();
        if (first.kind === "set" || last.kind === "set") {
          this.fail("a class escape such as \\d or \\p{…} cannot be a range endpoint (write \\- for a literal '-')", first.kind === "set" ? firstAt : lastAt);
        }
        if (first.cp > last.cp) this.fail("range out of order in character class: the first code point is above the last", firstAt);
        ranges.push([first.cp, last.cp]);
        continue;
      }
      if (first.kind === "set") ranges.push(...first.ranges);
      else ranges.push([first.cp, first.cp]);
    }
    this.pos++;
    return classExpr(normalize(ranges), negated);
  }

  private classAtom(): ClassAtom {
    if (this.peek() === "\\") {
      const c = this.peek(1);
      if (c !== undefined && c >= "1" && c <= "9") {
        this.fail("back-references and octal escapes are not allowed in a character class", this.pos);
      }
      if (c === "k") this.fail("\\k is not a valid escape in a character class", this.pos);
      return this.classOrCharEscape(true);
    }
    const cp = this.src.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return { kind: "char", cp };
  }
}

/** Parses an ECMAScript pattern (full-match, code-point semantics) into an IR expression. */
export function parseRegex(pattern: string): IrExpr {
  return new RegexParser(pattern).parse();
}
