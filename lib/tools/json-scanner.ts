/**
 * An incremental JSON (RFC 8259) recognizer fed one UTF-16 code unit at a time. Output parsers
 * use it to find where a JSON value embedded in model output ends (the value may contain marker
 * text inside its strings, so searching for the next marker is not enough) and to report a
 * malformed value at the exact offset where it goes wrong, however the text arrives in chunks.
 *
 * Whitespace before and after the value belongs to it. After a complete value, the first
 * character that is not whitespace is not consumed: `feed` returns false and the caller reads it.
 */

/** A JSON syntax error at the code unit just fed: `expected` says what would have been valid. */
export class JsonSyntaxError extends Error {
  constructor(readonly expected: string) {
    super(`expected ${expected}`);
  }
}

const enum S {
  Value, // a value (or, after `[`, a value or `]`)
  FirstKey, // after `{`: a key or `}`
  Key, // after `,` in an object: a key
  Colon,
  After, // after a value inside a container: `,` or the closing bracket
  Str, // inside a string
  Escape, // after `\` in a string
  Unicode, // inside `\uXXXX`
  Minus, // after `-`
  Zero, // a number's integer part is `0`
  Int, // in the integer digits
  Dot, // after `.`
  Frac, // in the fraction digits
  Exp, // after `e`
  ExpSign, // after the exponent's sign
  ExpDigits,
  Literal, // inside true / false / null
  Done, // the top-level value is complete
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** Recognizes one JSON value; see the module comment. */
export class JsonScanner {
  private state = S.Value;
  /** Open containers: true for an object, false for an array. */
  private readonly stack: boolean[] = [];
  /** After `[`, `]` may close an empty array. */
  private emptyArrayAllowed = false;
  private stringIsKey = false;
  private hexLeft = 0;
  private literal = "";
  private literalAt = 0;

  /** True once a complete value has been read (more whitespace may still follow). */
  get complete(): boolean {
    return this.state === S.Done;
  }

  /**
   * Feeds one code unit. Returns true when it belongs to the value (or its surrounding
   * whitespace), false when the value was complete and this unit is not part of it.
   * Throws {@link JsonSyntaxError} when the unit cannot continue a JSON value.
   */
  feed(unit: string): boolean {
    const c = unit.charCodeAt(0);
    switch (this.state) {
      case S.Value:
        if (isWhitespace(c)) return true;
        if (c === 0x5d && this.emptyArrayAllowed) {
          this.emptyArrayAllowed = false;
          return this.closeContainer(false);
        }
        this.emptyArrayAllowed = false;
        return this.startValue(c);
      case S.FirstKey:
        if (isWhitespace(c)) return true;
        if (c === 0x7d) return this.closeContainer(true);
        if (c === 0x22) return this.startString(true);
        throw new JsonSyntaxError('a string key or "}"');
      case S.Key:
        if (isWhitespace(c)) return true;
        if (c === 0x22) return this.startString(true);
        throw new JsonSyntaxError("a string key");
      case S.Colon:
        if (isWhitespace(c)) return true;
        if (c === 0x3a) {
          this.state = S.Value;
          return true;
        }
        throw new JsonSyntaxError('":" after the key');
      case S.After: {
        if (isWhitespace(c)) return true;
        const inObject = this.stack[this.stack.length - 1]!;
        if (c === 0x2c) {
          this.state = inObject ? S.Key : S.Value;
          return true;
        }
        if (c === (inObject ? 0x7d : 0x5d)) return this.closeContainer(inObject);
        throw new JsonSyntaxError(inObject ? '"," or "}"' : '"," or "]"');
      }
      case S.Str:
        if (c === 0x22) {
          if (this.stringIsKey) this.state = S.Colon;
          else this.valueDone();
          return true;
        }
        if (c === 0x5c) {
          this.state = S.Escape;
          return true;
        }
        if (c < 0x20) throw new JsonSyntaxError("a string character (control characters must be escaped)");
        return true;
      case S.Escape:
        if (c === 0x75) {
          this.state = S.Unicode;
          this.hexLeft = 4;
          return true;
        }
        if ('"\\/bfnrt'.includes(unit)) {
          this.state = S.Str;
          return true;
        }
        throw new JsonSyntaxError('an escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)');
      case S.Unicode:
        if (!isHex(c)) throw new JsonSyntaxError("a hexadecimal digit of a \\u escape");
        if (--this.hexLeft === 0) this.state = S.Str;
        return true;
      case S.Minus:
        if (c === 0x30) this.state = S.Zero;
        else if (isDigit(c)) this.state = S.Int;
        else throw new JsonSyntaxError('a digit after "-"');
        return true;
      case S.Zero:
        if (c === 0x2e) return this.to(S.Dot);
        if (c === 0x65 || c === 0x45) return this.to(S.Exp);
        if (isDigit(c)) throw new JsonSyntaxError('".", an exponent or the end of the number (no leading zeros)');
        return this.numberEnded(unit);
      case S.Int:
        if (isDigit(c)) return true;
        if (c === 0x2e) return this.to(S.Dot);
        if (c === 0x65 || c === 0x45) return this.to(S.Exp);
        return this.numberEnded(unit);
      case S.Dot:
        if (isDigit(c)) return this.to(S.Frac);
        throw new JsonSyntaxError('a digit after "."');
      case S.Frac:
        if (isDigit(c)) return true;
        if (c === 0x65 || c === 0x45) return this.to(S.Exp);
        return this.numberEnded(unit);
      case S.Exp:
        if (c === 0x2b || c === 0x2d) return this.to(S.ExpSign);
        if (isDigit(c)) return this.to(S.ExpDigits);
        throw new JsonSyntaxError("a digit or sign of the exponent");
      case S.ExpSign:
        if (isDigit(c)) return this.to(S.ExpDigits);
        throw new JsonSyntaxError("a digit of the exponent");
      case S.ExpDigits:
        if (isDigit(c)) return true;
        return this.numberEnded(unit);
      case S.Literal:
        if (unit !== this.literal[this.literalAt]) throw new JsonSyntaxError(`"${this.literal}"`);
        if (++this.literalAt === this.literal.length) this.valueDone();
        return true;
      case S.Done:
        return isWhitespace(c);
    }
  }

  /**
   * The end of the text was reached. Returns normally when a complete value was read, else
   * throws {@link JsonSyntaxError} saying what was still expected.
   */
  end(): void {
    switch (this.state) {
      case S.Done:
        return;
      case S.Zero:
      case S.Int:
      case S.Frac:
      case S.ExpDigits:
        if (this.stack.length === 0) return;
        throw new JsonSyntaxError(this.stack[this.stack.length - 1] ? '"," or "}"' : '"," or "]"');
      default:
        throw new JsonSyntaxError(this.expectedNow());
    }
  }

  /** What the next unit could be, for the message at the end of the text. */
  private expectedNow(): string {
    switch (this.state) {
      case S.Value:
        return "a JSON value";
      case S.FirstKey:
        return 'a string key or "}"';
      case S.Key:
        return "a string key";
      case S.Colon:
        return '":"';
      case S.After:
        return this.stack[this.stack.length - 1] ? '"," or "}"' : '"," or "]"';
      case S.Str:
      case S.Escape:
      case S.Unicode:
        return 'the rest of the string and its closing "';
      case S.Literal:
        return `"${this.literal}"`;
      default:
        return "the rest of the number";
    }
  }

  private to(state: S): boolean {
    this.state = state;
    return true;
  }

  private startValue(c: number): boolean {
    switch (c) {
      case 0x7b:
        this.stack.push(true);
        this.state = S.FirstKey;
        return true;
      case 0x5b:
        this.stack.push(false);
        this.state = S.Value;
        this.emptyArrayAllowed = true;
        return true;
      case 0x22:
        return this.startString(false);
      case 0x2d:
        return this.to(S.Minus);
      case 0x30:
        return this.to(S.Zero);
      case 0x74:
      case 0x66:
      case 0x6e:
        this.literal = c === 0x74 ? "true" : c === 0x66 ? "false" : "null";
        this.literalAt = 1;
        return this.to(S.Literal);
      default:
        if (isDigit(c)) return this.to(S.Int);
        throw new JsonSyntaxError("a JSON value");
    }
  }

  private startString(isKey: boolean): boolean {
    this.stringIsKey = isKey;
    this.state = S.Str;
    return true;
  }

  private valueDone(): void {
    this.state = this.stack.length === 0 ? S.Done : S.After;
  }

  private closeContainer(isObject: boolean): boolean {
    if (this.stack.pop() !== isObject) throw new JsonSyntaxError(isObject ? '"]"' : '"}"');
    this.valueDone();
    return true;
  }

  /** A number ended just before `unit`: the unit continues the enclosing structure. */
  private numberEnded(unit: string): boolean {
    this.valueDone();
    return this.feed(unit);
  }
}
