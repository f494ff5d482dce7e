/**
 * A cursor over the UTF-8 bytes of a JSON document, for reading only the parts of a large file
 * that are needed. A Llama 3 tokenizer.json is 9 MB, two thirds of it merges that tagmask never
 * uses; `JSON.parse` of the whole file alone takes well over 100 ms, while reading the added
 * tokens and the vocabulary straight from the bytes and skipping (or never reaching) the merges
 * takes a fraction of that.
 *
 * Errors are {@link TokenizerError}s naming the source, the JSON path, the byte offset and the
 * line and column.
 */
import { TokenizerError } from "../errors.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Reads JSON values from a byte buffer, tracking the JSON path for messages. */
export class JsonCursor {
  pos = 0;

  constructor(
    readonly buf: Uint8Array,
    /** Names the document in messages (a file path or "tokenizer.json"). */
    readonly source: string,
  ) {}

  /** Throws a TokenizerError for `path` at byte `at`. */
  fail(path: string, message: string, at = this.pos): never {
    let line = 1;
    let lineStart = 0;
    const limit = Math.min(at, this.buf.length);
    for (let i = 0; i < limit; i++) {
      if (this.buf[i] === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    const where = path ? `${path}: ` : "";
    throw new TokenizerError(`${this.source}: ${where}${message} (byte ${at}, line ${line}:${at - lineStart + 1})`);
  }

  /** Skips JSON whitespace and returns the next byte (-1 at the end). */
  ws(): number {
    const buf = this.buf;
    let p = this.pos;
    while (p < buf.length) {
      const c = buf[p]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      p++;
    }
    this.pos = p;
    return p < buf.length ? buf[p]! : -1;
  }

  /** Consumes `byte` after whitespace or fails saying `expected`. */
  expect(byte: number, path: string, expected: string): void {
    const c = this.ws();
    if (c !== byte) this.fail(path, `expected ${expected}, found ${this.describe(c)}`);
    this.pos++;
  }

  /** After an element of an object or array: true if another one follows (`,`), false at `close`. */
  next(close: number, path: string): boolean {
    const c = this.ws();
    if (c === 0x2c) {
      this.pos++;
      return true;
    }
    if (c === close) {
      this.pos++;
      return false;
    }
    this.fail(path, `expected ',' or '${String.fromCharCode(close)}', found ${this.describe(c)}`);
  }

  /** Opens an object or array: consumes `open`; returns false (and consumes `close`) when it is empty. */
  open(open: number, close: number, path: string, expected: string): boolean {
    this.expect(open, path, expected);
    if (this.ws() === close) {
      this.pos++;
      return false;
    }
    return true;
  }

  describe(c: number): string {
    if (c < 0) return "the end of the file";
    if (c >= 0x20 && c < 0x7f) return `'${String.fromCharCode(c)}'`;
    return `byte 0x${c.toString(16).padStart(2, "0")}`;
  }

  /**
   * Positions after the closing quote of the string starting at `this.pos` (which must be a
   * quote); returns that position without moving the cursor. Fails on an unterminated string.
   */
  stringEnd(path: string): number {
    const buf = this.buf;
    let p = this.pos + 1;
    for (;;) {
      const q = buf.indexOf(QUOTE, p);
      if (q < 0) this.fail(path, "unterminated string");
      // A quote preceded by an odd number of backslashes is escaped.
      let k = q - 1;
      while (buf[k] === BACKSLASH) k--;
      if ((q - 1 - k) % 2 === 0) return q + 1;
      p = q + 1;
    }
  }

  /** Reads a string (for keys and short values). */
  readString(path: string): string {
    if (this.ws() !== QUOTE) this.fail(path, `expected a string, found ${this.describe(this.ws())}`);
    const start = this.pos;
    const end = this.stringEnd(path);
    const buf = this.buf;
    let simple = true;
    for (let i = start + 1; i < end - 1; i++) {
      const c = buf[i]!;
      if (c === BACKSLASH || c >= 0x80 || c < 0x20) {
        simple = false;
        break;
      }
    }
    this.pos = end;
    if (simple) return String.fromCharCode(...buf.subarray(start + 1, end - 1));
    return this.parseSpan(start, end, path) as string;
  }

  /**
   * Reads the string at the cursor and writes its unescaped UTF-8 bytes into `out` at `at`;
   * returns the new write position. `out` must have room for the raw string length.
   */
  readStringBytes(path: string, out: Uint8Array, at: number): number {
    const buf = this.buf;
    if (this.ws() !== QUOTE) this.fail(path, `expected a string, found ${this.describe(this.ws())}`);
    const end = this.stringEnd(path) - 1;
    let i = this.pos + 1;
    while (i < end) {
      const c = buf[i]!;
      if (c === BACKSLASH) {
        i = this.unescape(i, end, out, at, path);
        at = this.lastWrite;
        continue;
      }
      if (c < 0x20) this.fail(path, "raw control character in a string", i);
      out[at++] = c;
      i++;
    }
    this.pos = end + 1;
    return at;
  }

  private lastWrite = 0;

  /** Decodes the escape at `buf[i]` (a backslash) into `out[at…]`; returns the read position after it. */
  private unescape(i: number, end: number, out: Uint8Array, at: number, path: string): number {
    const buf = this.buf;
    const e = buf[i + 1];
    let cp: number;
    let next = i + 2;
    switch (e) {
      case 0x22: cp = 0x22; break;
      case 0x5c: cp = 0x5c; break;
      case 0x2f: cp = 0x2f; break;
      case 0x62: cp = 0x08; break;
      case 0x66: cp = 0x0c; break;
      case 0x6e: cp = 0x0a; break;
      case 0x72: cp = 0x0d; break;
      case 0x74: cp = 0x09; break;
      case 0x75: {
        cp = this.hex4(i + 2, end, path);
        next = i + 6;
        if (cp >= 0xd800 && cp <= 0xdbff) {
          if (buf[next] === BACKSLASH && buf[next + 1] === 0x75) {
            const lo = this.hex4(next + 2, end, path);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
              cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
              next += 6;
            } else {
              cp = 0xfffd;
            }
          } else {
            cp = 0xfffd;
          }
        } else if (cp >= 0xdc00 && cp <= 0xdfff) {
          // A lone surrogate has no UTF-8 form; such a token can never be produced as text.
          cp = 0xfffd;
        }
        break;
      }
      default:
        this.fail(path, `invalid escape '\\${e === undefined ? "" : String.fromCharCode(e)}' in a string`, i);
    }
    if (cp < 0x80) {
      out[at++] = cp;
    } else if (cp < 0x800) {
      out[at++] = 0xc0 | (cp >> 6);
      out[at++] = 0x80 | (cp & 0x3f);
    } else if (cp < 0x10000) {
      out[at++] = 0xe0 | (cp >> 12);
      out[at++] = 0x80 | ((cp >> 6) & 0x3f);
      out[at++] = 0x80 | (cp & 0x3f);
    } else {
      out[at++] = 0xf0 | (cp >> 18);
      out[at++] = 0x80 | ((cp >> 12) & 0x3f);
      out[at++] = 0x80 | ((cp >> 6) & 0x3f);
      out[at++] = 0x80 | (cp & 0x3f);
    }
    this.lastWrite = at;
    return next;
  }

  private hex4(i: number, end: number, path: string): number {
    if (i + 4 > end) this.fail(path, "truncated \\u escape", i);
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.buf[i + k]!;
      const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
      if (d < 0) this.fail(path, "invalid \\u escape (expected 4 hex digits)", i);
      v = (v << 4) | d;
    }
    return v;
  }

  /** Reads a non-negative integer (a token id) below 2^31. */
  readIndex(path: string): number {
    const buf = this.buf;
    let c = this.ws();
    const start = this.pos;
    if (c < 0x30 || c > 0x39) this.fail(path, `expected a non-negative integer token id, found ${this.describe(c)}`);
    let v = 0;
    let p = this.pos;
    while (p < buf.length && (c = buf[p]!) >= 0x30 && c <= 0x39) {
      v = v * 10 + (c - 0x30);
      p++;
    }
    if (c === 0x2e || c === 0x65 || c === 0x45) this.fail(path, "expected an integer token id, found a fraction or exponent", start);
    if (v > 0x7fffffff || (p - start > 1 && buf[start] === 0x30)) this.fail(path, "token id out of range or malformed", start);
    this.pos = p;
    return v;
  }

  /** Skips one value of any kind (containers are only checked for balance, not structure). */
  skipValue(path: string): void {
    const buf = this.buf;
    const c = this.ws();
    if (c === QUOTE) {
      this.pos = this.stringEnd(path);
      return;
    }
    if (c === 0x7b || c === 0x5b) {
      let depth = 0;
      let p = this.pos;
      while (p < buf.length) {
        const b = buf[p]!;
        if (b === QUOTE) {
          this.pos = p;
          p = this.stringEnd(path);
          continue;
        }
        if (b === 0x7b || b === 0x5b) depth++;
        else if (b === 0x7d || b === 0x5d) {
          depth--;
          if (depth === 0) {
            this.pos = p + 1;
            return;
          }
        }
        p++;
      }
      this.fail(path, "unterminated object or array", this.pos);
    }
    if (c < 0) this.fail(path, "expected a value, found the end of the file");
    // A number or literal: up to the next delimiter.
    let p = this.pos;
    while (p < buf.length) {
      const b = buf[p]!;
      if (b === 0x2c || b === 0x7d || b === 0x5d || b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) break;
      p++;
    }
    if (p === this.pos) this.fail(path, `expected a value, found ${this.describe(c)}`);
    this.pos = p;
  }

  /** Reads one complete value with JSON.parse (for the small parts of the file). */
  readValue(path: string): unknown {
    this.ws();
    const start = this.pos;
    this.skipValue(path);
    return this.parseSpan(start, this.pos, path);
  }

  private parseSpan(start: number, end: number, path: string): unknown {
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(this.buf.subarray(start, end));
    try {
      return JSON.parse(text);
    } catch (err) {
      const m = /position (\d+)/.exec((err as Error).message);
      const at = m ? start + Buffer.byteLength(text.slice(0, Number(m[1]))) : start;
      this.fail(path, `malformed JSON: ${(err as Error).message}`, at);
    }
  }
}
