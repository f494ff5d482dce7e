/**
 * A strict JSON (RFC 8259) reader for structural-tag text. `JSON.parse` is not enough here: its
 * messages do not always carry a position, it silently keeps the last of duplicate keys, and it
 * cannot say which JSON path it was reading. This reader reports every problem as a
 * `FormatError` whose path is where the bad value sits and whose message gives line and column.
 */
import { FormatError } from "../errors.js";
import { recordNumberText } from "./exact-numbers.js";
import { MAX_NESTING, indexPath, keyPath, showString } from "./json-path.js";

/**
 * Parses JSON text into plain values. Objects are created so that a key named `__proto__` is an
 * ordinary property. `rootPath` names the top-level value in error paths ("" for the root).
 * Numbers a double cannot hold keep their text beside the value (exact-numbers.ts).
 */
export function parseJsonText(text: string, rootPath = ""): unknown {
  const reader = new JsonReader(text);
  // A byte-order mark at the start is tolerated, as RFC 8259 allows, for files saved by editors.
  if (text.charCodeAt(0) === 0xfeff) reader.pos = 1;
  reader.skipSpace();
  const value = reader.value(rootPath, 0);
  reader.skipSpace();
  if (reader.pos < text.length) reader.fail(rootPath, "expected the end of the text after the JSON value");
  return value;
}

/** Line and column (1-based, column in UTF-16 units) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    // CR LF counts once; a lone CR ends a line too.
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

class JsonReader {
  pos = 0;
  /** The text of the number read last. */
  private numberText = "";
  constructor(private readonly text: string) {}

  /** Throws a FormatError for `path` at the current position, naming what was found there. */
  fail(path: string, expected: string, at = this.pos, found = this.found(at)): never {
    const { line, column } = lineColumn(this.text, at);
    throw new FormatError(path, `invalid JSON at line ${line}, column ${column} (offset ${at}): ${expected}, found ${found}`);
  }

  private found(at: number): string {
    if (at >= this.text.length) return "the end of the text";
    const cp = this.text.codePointAt(at) ?? 0;
    if (cp < 0x20 || cp === 0x7f) return `control character U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
    return `'${String.fromCodePoint(cp)}'`;
  }

  skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      this.pos++;
    }
  }

  value(path: string, depth: number): unknown {
    if (depth > MAX_NESTING) this.fail(path, `expected values nested at most ${MAX_NESTING} levels deep`);
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object(path, depth);
      case "[":
        return this.array(path, depth);
      case '"':
        return this.string(path);
      case "t":
        return this.word("true", true, path);
      case "f":
        return this.word("false", false, path);
      case "n":
        return this.word("null", null, path);
      default:
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number(path);
        return this.fail(path, "expected a JSON value");
    }
  }

  private word<T>(word: string, value: T, path: string): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(path, "expected a JSON value");
    this.pos += word.length;
    return value;
  }

  private number(path: string): number {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (m === null) return this.fail(path, "expected a digit");
    const value = Number(m[0]);
    if (!Number.isFinite(value)) this.fail(path, "expected a number within the range of a double");
    this.pos += m[0].length;
    this.numberText = m[0];
    return value;
  }

  private string(path: string): string {
    const t = this.text;
    this.pos++; // opening quote
    let out = "";
    let chunkStart = this.pos;
    for (;;) {
      if (this.pos >= t.length) this.fail(path, "expected '\"' to close the string");
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) break;
      if (c < 0x20) this.fail(path, "expected a string character (control characters must be escaped)");
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += t.slice(chunkStart, this.pos);
      const e = t[this.pos + 1];
      if (e === "u") {
        const hex = t.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail(path, "expected four hex digits after \\u", this.pos + 2);
        out += String.fromCharCode(parseInt(hex, 16));
        this.pos += 6;
      } else {
        const replacement = e === undefined ? undefined : ESCAPES[e];
        if (replacement === undefined) this.fail(path, 'expected an escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)', this.pos + 1);
        out += replacement;
        this.pos += 2;
      }
      chunkStart = this.pos;
    }
    out += t.slice(chunkStart, this.pos);
    this.pos++; // closing quote
    return out;
  }

  private array(path: string, depth: number): unknown[] {
    this.pos++;
    const out: unknown[] = [];
    this.skipSpace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      const item = this.value(indexPath(path, out.length), depth + 1);
      if (typeof item === "number") recordNumberText(out, out.length, this.numberText, item);
      out.push(item);
      this.skipSpace();
      const c = this.text[this.pos];
      if (c === ",") {
        this.pos++;
        continue;
      }
      if (c === "]") {
        this.pos++;
        return out;
      }
      this.fail(path, "expected ',' or ']' in the array");
    }
  }

  private object(path: string, depth: number): Record<string, unknown> {
    this.pos++;
    const out: Record<string, unknown> = {};
    this.skipSpace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail(path, "expected a property name in double quotes");
      const keyAt = this.pos;
      const key = this.string(path);
      const childPath = keyPath(path, key);
      if (Object.prototype.hasOwnProperty.call(out, key)) {
        this.fail(childPath, "expected each key at most once in an object", keyAt, `key ${showString(key)} a second time`);
      }
      this.skipSpace();
      if (this.text[this.pos] !== ":") this.fail(childPath, "expected ':' after the property name");
      this.pos++;
      this.skipSpace();
      const value = this.value(childPath, depth + 1);
      if (typeof value === "number") recordNumberText(out, key, this.numberText, value);
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      this.skipSpace();
      const c = this.text[this.pos];
      if (c === ",") {
        this.pos++;
        continue;
      }
      if (c === "}") {
        this.pos++;
        return out;
      }
      this.fail(path, "expected ',' or '}' in the object");
    }
  }
}
