/**
 * Parser for the EBNF dialect llama.cpp's GBNF and xgrammar share (docs/regex-and-ebnf.md):
 * `name ::= alternatives` rules, strings, character classes, `.`, groups, `* + ? {m} {m,} {m,n}`,
 * `|`, `#` comments. A rule may continue over several lines (after `::=`, after `|`, inside
 * parentheses, or wherever the next line does not start a new `name ::=` rule); a new rule starts
 * on a new line.
 *
 * The parser produces IR expressions whose `ref` nodes index the grammar's own rules in order of
 * first mention; ebnf/index.ts validates them and only then moves them into a GrammarBuilder, so a
 * failed parse leaves the builder untouched.
 */
import { GrammarError } from "../../errors.js";
import { charClass, type IrExpr } from "../ir.js";
import { choiceOf, codePointExpr, repeatOf, seqOf } from "../regex/build.js";
import { normalize, type Range } from "../regex/charset.js";
import { expandMacro, MACROS, type MacroArgs, type MacroValue } from "./macros.js";

/** Deepest parenthesis nesting accepted (deeper sources are refused rather than risking the stack). */
const MAX_NESTING = 256;
/** Largest repeat bound the IR stores. */
const MAX_REPEAT = 0xfffffffe;

/** A rule of the source: where it was defined and first referenced, and its body. */
export interface ParsedRule {
  name: string;
  /** Offset of the name in its definition; undefined when only referenced. */
  definedAt: number | undefined;
  /** Offset of the first reference. */
  referencedAt: number | undefined;
  body: IrExpr | undefined;
}

/** The rules of one EBNF source, in order of first mention; `ref` nodes index this list. */
export interface ParsedGrammar {
  rules: ParsedRule[];
  /** Maps offsets to line and column for messages. */
  locate(offset: number): { line: number; column: number };
}

const NAME_CHAR = /[a-zA-Z0-9_-]/;
/** A rule definition's start (sticky: matched at lastIndex). */
const RULE_START = /[a-zA-Z0-9_-]+[ \t]*::=/y;
/** A rule head with xgrammar's attributes (`value[max_chars=2] ::=`). */
const ATTRIBUTED_RULE_START = /[a-zA-Z0-9_-]+\[[^\]\n\r]*\][ \t]*::=/y;
/** xgrammar's built-in macros, which look like a rule name followed by '(' (macros.ts expands all but Regex). */
const XGRAMMAR_MACROS = new Set(["TagDispatch", "Token", "ExcludeToken", "TokenTagDispatch", "Regex"]);

/** Simple escapes: the letter after the backslash and the code point it stands for. */
const SIMPLE_ESCAPES = new Map<string, number>([
  ["t", 0x09], ["n", 0x0a], ["r", 0x0d], ["a", 0x07], ["b", 0x08], ["f", 0x0c], ["v", 0x0b], ["e", 0x1b], ["0", 0x00],
]);
/** Characters that escape to themselves. */
const IDENTITY_ESCAPES = new Set("\\\"'?[]-^$.*+(){}|/");

/** Converts offsets to 1-based line and column (UTF-16 units). */
function locator(src: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\n" || (c === "\r" && src[i + 1] !== "\n")) starts.push(i + 1);
  }
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
}

class EbnfParser {
  private pos = 0;
  /** Whether the last skipSpace() crossed a line break (a new rule must start on a new line). */
  private sawNewline = true;
  private nesting = 0;
  private readonly rules: ParsedRule[] = [];
  private readonly index = new Map<string, number>();
  readonly locate: (offset: number) => { line: number; column: number };

  constructor(private readonly src: string) {
    this.locate = locator(src);
  }

  fail(message: string, at = this.pos): never {
    const { line, column } = this.locate(at);
    throw new GrammarError(`EBNF error at line ${line}, column ${column}: ${message}`, { position: at, line, column });
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  /** Skips spaces, tabs, newlines and `#` comments, noting whether a line break was crossed. */
  private skipSpace(): void {
    this.sawNewline = false;
    for (;;) {
      const c = this.peek();
      if (c === " " || c === "\t") this.pos++;
      else if (c === "\n" || c === "\r") {
        this.sawNewline = true;
        this.pos++;
      } else if (c === "#") {
        while (this.pos < this.src.length && this.peek() !== "\n" && this.peek() !== "\r") this.pos++;
      } else return;
    }
  }

  private slot(name: string): number {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.rules.length;
      this.rules.push({ name, definedAt: undefined, referencedAt: undefined, body: undefined });
      this.index.set(name, i);
    }
    return i;
  }

  parse(): ParsedGrammar {
    this.skipSpace();
    while (this.pos < this.src.length) this.rule();
    return { rules: this.rules, locate: this.locate };
  }

  private rule(): void {
    const start = this.pos;
    const name = this.name();
    if (name === "") this.fail(`expected a rule name (letters, digits, '_' or '-') at the start of a rule, found ${this.describe()}`);
    ATTRIBUTED_RULE_START.lastIndex = start;
    if (ATTRIBUTED_RULE_START.test(this.src)) this.attributes();
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
    if (!this.src.startsWith("::=", this.pos)) this.fail(`expected '::=' after the rule name '${name}', found ${this.describe()}`);
    const rule = this.rules[this.slot(name)]!;
    if (rule.definedAt !== undefined) {
      const first = this.locate(rule.definedAt);
      this.fail(`duplicate rule '${name}': it is already defined at line ${first.line}, column ${first.column}`, start);
    }
    rule.definedAt = start;
    this.pos += 3;
    this.skipSpace();
    rule.body = this.alternatives(undefined);
    if (this.peek() === ")") this.fail("unmatched ')': there is no '(' for it to close");
  }

  /** Refuses a rule head with attributes, at its '['. */
  private attributes(): never {
    const at = this.src.indexOf("[", this.pos);
    return this.fail("rule attributes ('name[max_chars=N] ::=', xgrammar's max_chars, max_tokens, capture, …) are not supported: bound free text with any_text's max_chars or a JSON Schema maxLength instead", at);
  }

  private name(): string {
    const start = this.pos;
    while (this.pos < this.src.length && NAME_CHAR.test(this.peek()!)) this.pos++;
    return this.src.slice(start, this.pos);
  }

  private describe(): string {
    const c = this.src.codePointAt(this.pos);
    if (c === undefined) return "the end of the input";
    const ch = String.fromCodePoint(c);
    return c < 0x20 ? `U+${c.toString(16).toUpperCase().padStart(4, "0")}` : `'${ch}'`;
  }

  /** `seq ('|' seq)*`; `open` is the offset of the enclosing '(' (undefined at rule level). */
  private alternatives(open: number | undefined): IrExpr {
    const branches = [this.sequence(open)];
    while (this.peek() === "|") {
      this.pos++;
      this.skipSpace();
      branches.push(this.sequence(open));
    }
    return choiceOf(branches);
  }

  private sequence(open: number | undefined): IrExpr {
    const items: IrExpr[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined) {
        if (open !== undefined) this.fail("unterminated group: this '(' has no matching ')'", open);
        break;
      }
      if (c === "|" || c === ")") break;
      RULE_START.lastIndex = this.pos;
      ATTRIBUTED_RULE_START.lastIndex = this.pos;
      if (open === undefined && this.sawNewline && ATTRIBUTED_RULE_START.test(this.src)) this.attributes();
      if (open === undefined && RULE_START.test(this.src)) {
        if (!this.sawNewline) this.fail("expected a line break before the next rule definition");
        break;
      }
      if (c === "*" || c === "+" || c === "?" || c === "{") {
        const last = items.pop();
        if (last === undefined) this.fail(`'${c}' needs an element before it to repeat`);
        items.push(this.quantified(last));
      } else {
        items.push(this.element());
      }
      this.skipSpace();
    }
    return seqOf(items);
  }

  private quantified(item: IrExpr): IrExpr {
    const at = this.pos;
    const c = this.peek();
    this.pos++;
    if (c === "*") return repeatOf(item, 0, null);
    if (c === "+") return repeatOf(item, 1, null);
    if (c === "?") return repeatOf(item, 0, 1);
    this.skipSpace();
    const min = this.integer("a repeat count after '{'");
    this.skipSpace();
    let max: number | null = min;
    if (this.peek() === ",") {
      this.pos++;
      this.skipSpace();
      max = this.peek() === "}" ? null : this.integer("a maximum repeat count or '}' after ','");
      this.skipSpace();
    }
    if (this.peek() !== "}") this.fail(`expected '}' to close the repeat count, found ${this.describe()}`);
    this.pos++;
    if (max !== null && max < min) this.fail(`bad repeat bounds {${min},${max}}: the maximum is below the minimum`, at);
    return repeatOf(item, min, max);
  }

  private integer(what: string): number {
    const start = this.pos;
    while (this.peek() !== undefined && this.peek()! >= "0" && this.peek()! <= "9") this.pos++;
    if (start === this.pos) this.fail(`expected ${what}, found ${this.describe()}`);
    const value = Number(this.src.slice(start, this.pos));
    if (!(value <= MAX_REPEAT)) this.fail(`bad repeat bounds: ${this.src.slice(start, this.pos)} is too large (at most ${MAX_REPEAT})`, start);
    return value;
  }

  private element(): IrExpr {
    const at = this.pos;
    const c = this.peek()!;
    if (c === '"') return this.string();
    if (c === "[") return this.characterClass();
    if (c === ".") {
      this.pos++;
      return charClass([[0, 0x10ffff]]);
    }
    if (c === "(") {
      if (this.peek(1) === "=") this.fail("lookahead assertions '(= …)' are not supported: they constrain what follows a rule, which this grammar IR cannot express");
      if (++this.nesting > MAX_NESTING) this.fail(`groups are nested more than ${MAX_NESTING} deep`);
      this.pos++;
      this.skipSpace();
      const inner = this.alternatives(at);
      if (this.peek() !== ")") this.fail("unterminated group: this '(' has no matching ')'", at);
      this.pos++;
      this.nesting--;
      return inner;
    }
    if (c === "<" || c === "!") {
      this.fail("llama.cpp token references such as <[123]> or !<token> are not supported; write xgrammar's Token(123) or ExcludeToken(123) instead");
    }
    if (NAME_CHAR.test(c)) {
      const name = this.name();
      if (this.peek() === "(" && XGRAMMAR_MACROS.has(name)) {
        if (!MACROS.has(name)) this.fail(`the xgrammar macro ${name}(…) is not supported; express it with rules, strings and classes`, at);
        const args = this.macroArgs(at);
        return expandMacro({ ruleRef: (rule, ruleAt) => this.ref(rule, ruleAt), fail: (message, failAt) => this.fail(`${name}: ${message}`, failAt) }, name, args);
      }
      return this.ref(name, at);
    }
    return this.fail(`unexpected ${this.describe()}: expected a string, a character class, '.', a rule name, '(' or a repetition`);
  }

  /** A reference to rule `name`, mentioned at `at`. */
  private ref(name: string, at: number): IrExpr {
    const i = this.slot(name);
    const rule = this.rules[i]!;
    if (rule.referencedAt === undefined) rule.referencedAt = at;
    return { kind: "ref", rule: i };
  }

  /** A macro's parenthesized arguments: values, and `name=value` pairs; pos is at '('. */
  private macroArgs(at: number): MacroArgs {
    const open = this.pos;
    if (++this.nesting > MAX_NESTING) this.fail(`groups are nested more than ${MAX_NESTING} deep`);
    this.pos++;
    this.skipSpace();
    const args: MacroArgs = { positional: [], named: new Map(), namedAt: new Map(), at };
    while (this.peek() !== ")") {
      if (this.peek() === undefined) this.fail("unterminated macro arguments: this '(' has no matching ')'", open);
      const start = this.pos;
      const name = this.name();
      while (this.peek() === " " || this.peek() === "\t") this.pos++;
      if (name !== "" && this.peek() === "=") {
        this.pos++;
        this.skipSpace();
        if (args.named.has(name)) this.fail(`the argument ${name} is given twice`, start);
        args.namedAt.set(name, start);
        args.named.set(name, this.macroValue());
      } else {
        this.pos = start;
        args.positional.push(this.macroValue());
      }
      this.skipSpace();
      if (this.peek() === ",") {
        this.pos++;
        this.skipSpace();
      } else if (this.peek() !== ")" && this.peek() !== undefined) {
        this.fail(`expected ',' or ')' after a macro argument, found ${this.describe()}`);
      }
    }
    this.pos++;
    this.nesting--;
    return args;
  }

  /** One macro argument value: a string, a non-negative integer, true/false, a rule name, or a tuple. */
  private macroValue(): MacroValue {
    const at = this.pos;
    const c = this.peek();
    if (c === '"') return { kind: "string", value: this.stringValue(), at };
    if (c === "(") {
      const open = this.pos;
      if (++this.nesting > MAX_NESTING) this.fail(`groups are nested more than ${MAX_NESTING} deep`);
      this.pos++;
      this.skipSpace();
      const items: MacroValue[] = [];
      while (this.peek() !== ")") {
        if (this.peek() === undefined) this.fail("unterminated tuple: this '(' has no matching ')'", open);
        items.push(this.macroValue());
        this.skipSpace();
        if (this.peek() === ",") {
          this.pos++;
          this.skipSpace();
        } else if (this.peek() !== ")" && this.peek() !== undefined) {
          this.fail(`expected ',' or ')' in a tuple, found ${this.describe()}`);
        }
      }
      this.pos++;
      this.nesting--;
      return { kind: "tuple", items, at };
    }
    if (c !== undefined && c >= "0" && c <= "9") {
      while (this.peek() !== undefined && this.peek()! >= "0" && this.peek()! <= "9") this.pos++;
      const value = Number(this.src.slice(at, this.pos));
      if (value > 0x7fffffff) this.fail(`${this.src.slice(at, this.pos)} is too large for a token id (at most 2147483647)`, at);
      return { kind: "int", value, at };
    }
    if (c !== undefined && NAME_CHAR.test(c)) {
      const name = this.name();
      if (name === "true" || name === "false") return { kind: "bool", value: name === "true", at };
      return { kind: "name", value: name, at };
    }
    return this.fail(`expected a macro argument (a string, an integer, true, false, a rule name or a tuple), found ${this.describe()}`);
  }

  /** One possibly escaped code point of a string or class; pos is at it. */
  private char(inString: boolean): number {
    const at = this.pos;
    const c = this.peek();
    if (c !== "\\") {
      const cp = this.src.codePointAt(at)!;
      this.pos += cp > 0xffff ? 2 : 1;
      return cp;
    }
    const e = this.peek(1);
    if (e === undefined) return this.fail("bad escape: '\\' at the end of the input", at);
    const simple = SIMPLE_ESCAPES.get(e);
    if (simple !== undefined) {
      this.pos += 2;
      return simple;
    }
    const digits = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    if (digits > 0) {
      const hex = this.src.slice(at + 2, at + 2 + digits);
      if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) this.fail(`bad escape: \\${e} must be followed by exactly ${digits} hex digits`, at);
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) this.fail(`bad escape: \\${e}${hex} is beyond U+10FFFF, the largest code point`, at);
      if (inString && cp >= 0xd800 && cp <= 0xdfff) this.fail(`bad escape: \\${e}${hex} is a surrogate code point, which UTF-8 text cannot contain`, at);
      this.pos += 2 + digits;
      return cp;
    }
    if (IDENTITY_ESCAPES.has(e)) {
      this.pos += 2;
      return e.charCodeAt(0);
    }
    const shown = String.fromCodePoint(this.src.codePointAt(at + 1)!);
    return this.fail(`bad escape '\\${shown}': expected one of \\t \\n \\r \\\\ \\" \\[ \\] \\- \\xHH \\uHHHH \\UHHHHHHHH`, at);
  }

  /** A quoted string's code points; pos is at the opening quote. */
  private codePoints(): number[] {
    const open = this.pos;
    this.pos++;
    const cps: number[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail("unterminated string: this '\"' has no closing quote", open);
      if (c === '"') break;
      cps.push(this.char(true));
    }
    this.pos++;
    return cps;
  }

  private string(): IrExpr {
    return seqOf(this.codePoints().map(codePointExpr));
  }

  private stringValue(): string {
    return this.codePoints().map((cp) => String.fromCodePoint(cp)).join("");
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
    const unterminated = (): never => this.fail("unterminated character class: this '[' has no matching ']'", open);
    for (;;) {
      const c = this.peek();
      if (c === undefined) unterminated();
      if (c === "]") break;
      const firstAt = this.pos;
      const first = this.char(false);
      if (this.peek() === "-" && this.peek(1) !== "]") {
        this.pos++;
        if (this.peek() === undefined) unterminated();
        const last = this.char(false);
        if (last < first) this.fail("bad character range: its first character is above its last", firstAt);
        ranges.push([first, last]);
      } else {
        ranges.push([first, first]);
      }
    }
    this.pos++;
    // `[^]` excludes nothing: any code point, as in xgrammar and ECMAScript.
    if (ranges.length === 0 && negated) return charClass([[0, 0x10ffff]]);
    if (ranges.length === 0) this.fail("empty character class '[]' is not allowed: engines disagree on whether it matches nothing or the empty string", open);
    const merged = normalize(ranges);
    const only = merged[0]!;
    if (!negated && merged.length === 1 && only[0] === only[1]) return codePointExpr(only[0]);
    return charClass(merged, negated);
  }
}

/** Parses EBNF source into rules; throws GrammarError with line and column on syntax errors. */
export function parseEbnf(source: string): ParsedGrammar {
  return new EbnfParser(source).parse();
}

/** A GrammarError located at an offset of the source (for checks done after parsing). */
export function errorAt(grammar: ParsedGrammar, offset: number, message: string): GrammarError {
  const { line, column } = grammar.locate(offset);
  return new GrammarError(`EBNF error at line ${line}, column ${column}: ${message}`, { position: offset, line, column });
}
