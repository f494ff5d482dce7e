/**
 * Reading text that arrives in chunks: a buffer of the undecided text, and primitives that
 * either decide from the text seen so far or say they need more (WAIT). Nothing is decided
 * while the buffer could still be the start of something else, which is what makes a parser
 * built on it report the same events for every chunking. Output parsers of the model families
 * extend it.
 */
import { OutputParseError } from "../errors.js";
import { type JsonScanner, JsonSyntaxError } from "./json-scanner.js";

/** A reading step could not decide yet: more text is needed. */
export const WAIT = false;
/** A reading step finished. */
export const DONE = true;

export function quote(s: string): string {
  return JSON.stringify(s);
}

export function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

export function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** The buffer and the reading primitives; see the module comment. */
export class ChunkReader {
  protected buf = "";
  /** Offset in the whole text of `buf[0]`. */
  protected base = 0;
  protected pos = 0;
  /** The whole text has been seen: nothing is left to wait for. */
  protected ended = false;
  /** The attribute or value being read, and where it started. */
  protected text = "";
  protected textStart = 0;

  /** Appends a chunk, dropping what has been read so the buffer holds only undecided text. */
  protected append(chunk: string): void {
    this.buf = this.buf.slice(this.pos) + chunk;
    this.base += this.pos;
    this.pos = 0;
  }

  protected get atEnd(): boolean {
    return this.pos >= this.buf.length;
  }

  protected offset(): number {
    return this.base + this.pos;
  }

  protected fail(expected: string, found?: string, at = this.offset()): never {
    throw new OutputParseError(at, expected, found ?? this.foundHere());
  }

  /** `scanner.feed(unit)`, a JSON syntax error reported at this reader's position (`note` follows what was expected). */
  protected feedJson(scanner: JsonScanner, unit: string, note = ""): boolean {
    try {
      return scanner.feed(unit);
    } catch (err) {
      if (err instanceof JsonSyntaxError) this.fail(err.expected + note, quote(unit));
      throw err;
    }
  }

  /** `scanner.end()`, a JSON syntax error reported at this reader's position (`note` follows what was expected). */
  protected endJson(scanner: JsonScanner, note = ""): void {
    try {
      scanner.end();
    } catch (err) {
      if (err instanceof JsonSyntaxError) this.fail(err.expected + note);
      throw err;
    }
  }

  protected foundHere(): string {
    if (this.atEnd) return "the end of the text";
    const cp = this.buf.codePointAt(this.pos)!;
    return quote(String.fromCodePoint(cp));
  }

  /**
   * Reads one of `options` at the current position: its index, WAIT when the text so far
   * is a prefix of one of them, or fails naming them all.
   */
  protected choose(options: readonly string[], expected?: string): number | typeof WAIT {
    const rest = this.buf.length - this.pos;
    let longest = 0;
    let waiting = false;
    for (let i = 0; i < options.length; i++) {
      const option = options[i]!;
      let n = 0;
      while (n < option.length && n < rest && this.buf.charCodeAt(this.pos + n) === option.charCodeAt(n)) n++;
      if (n === option.length) {
        this.pos += n;
        return i;
      }
      if (n === rest && !this.ended) waiting = true;
      longest = Math.max(longest, n);
    }
    if (waiting) return WAIT;
    // What was found: the text up to and including the first character no option allows.
    const end = Math.min(this.pos + longest + 1, this.buf.length);
    const seen = this.buf.slice(this.pos, end);
    const found = end === this.pos ? "the end of the text" : end - this.pos === longest ? `${quote(seen)} then the end of the text` : quote(seen);
    this.fail(expected ?? options.map(quote).join(" or "), found);
  }

  /** Reads `literal` (DONE), or WAIT while the text is a prefix of it; fails otherwise. */
  protected literal(literal: string): boolean {
    return this.choose([literal]) !== WAIT;
  }

  /** The code point at the current position, or "" when it may be cut off by the chunk end. */
  protected codePoint(): string {
    const c = this.buf.charCodeAt(this.pos);
    if (isHighSurrogate(c)) {
      if (this.pos + 1 >= this.buf.length) return this.ended ? this.buf[this.pos]! : "";
      const d = this.buf.charCodeAt(this.pos + 1);
      return isLowSurrogate(d) ? this.buf.slice(this.pos, this.pos + 2) : this.buf[this.pos]!;
    }
    return this.buf[this.pos]!;
  }

  /**
   * Reads text up to `terminator` (consumed; returns DONE) calling `onChar` per code point;
   * fails at any of `forbidden`. Returns WAIT when the chunk ends first.
   */
  protected scanText(terminator: string, forbidden: readonly string[], what: string, onChar: (ch: string) => void): boolean {
    while (!this.atEnd) {
      if (this.buf.charCodeAt(this.pos) === 0x3c) {
        const rest = this.buf.length - this.pos;
        if (this.buf.startsWith(terminator, this.pos)) {
          this.pos += terminator.length;
          return DONE;
        }
        for (const marker of [terminator, ...forbidden]) {
          if (rest < marker.length && !this.ended && marker.startsWith(this.buf.slice(this.pos))) return WAIT;
        }
        const bad = forbidden.find((m) => this.buf.startsWith(m, this.pos));
        if (bad !== undefined) this.fail(`${quote(terminator)} (${what} may not contain ${quote(bad)})`, quote(bad));
      }
      const ch = this.codePoint();
      if (ch === "") return WAIT;
      this.pos += ch.length;
      onChar(ch);
    }
    if (this.ended) this.fail(`${quote(terminator)} to end ${what}`);
    return WAIT;
  }

  /** Reads an attribute value up to (not including) its closing `"`, decoding `&amp;` and `&quot;`. */
  protected scanAttribute(what: string): boolean {
    while (!this.atEnd) {
      const c = this.buf.charCodeAt(this.pos);
      if (c === 0x22) {
        if (this.text === "") this.fail(`${what} (a non-empty attribute value)`, quote('"'));
        return DONE;
      }
      if (c === 0x26) {
        const which = this.choose(["&amp;", "&quot;"], `"&amp;" or "&quot;" (a bare "&" is not allowed in ${what})`);
        if (which === WAIT) return WAIT;
        this.text += which === 0 ? "&" : '"';
        continue;
      }
      const ch = this.codePoint();
      if (ch === "") return WAIT;
      this.pos += ch.length;
      this.text += ch;
    }
    if (this.ended) this.fail(`the rest of ${what} and its closing '"'`);
    return WAIT;
  }

}
