/**
 * The outline printer: a structural tag as indented text, one format node per line (spec:
 * outline.md). Leaves print on one line; blocks print a header and their children two spaces
 * deeper; wrappers put a leaf child on their own line and any other child below.
 *
 * Choices where outline.md is silent:
 * - Control characters (`\u{HEX}`) are the Unicode Cc characters: U+0000–U+001F, U+007F–U+009F.
 * - A grammar's text is split at LF, CRLF or CR; blank lines are left out (they mean nothing
 *   in EBNF and would print as trailing spaces), other lines keep their own leading spaces.
 * - A regex pattern is printed as written, as the spec says, even if it contains a newline.
 * - `dispatch`: the header `dispatch`, then ` excluding [..]` when set and ` loop=false` when the
 *   loop is off; each rule is a wrapper `on PATTERN` around its format.
 * - Tokens (token-level formats, token begins and ends of tags) print as `token(42)` or
 *   ``token(`<|tool|>`)``; `exclude_token` is `any_token`, `any_tokens` is `tokens` (like `text`),
 *   each with ` excluding [..]` (ids or quoted texts) and ` max_tokens=N` when set;
 *   `token_triggered_tags` prints like `triggered_tags` with its trigger tokens, and
 *   `token_dispatch` like `dispatch` with `on token(…)` rules.
 */
import { FormatError, SchemaError } from "../errors.js";
import { keyPath } from "./json-path.js";
import { isStructuralTagObject, parseFormat, parseStructuralTag } from "./parse.js";
import { schemaToType } from "./schema-type.js";
import type { Format, JsonSchema, StructuralTag, TagFormat, TokenFormat, TokenRef } from "./types.js";

const INDENT = "  ";

/** A string as the outline shows it: between backticks, with `\`, `` ` `` and controls escaped. */
export function quoteOutlineString(s: string): string {
  let out = "`";
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === "\\") out += "\\\\";
    else if (ch === "`") out += "\\`";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) out += `\\u{${cp.toString(16)}}`;
    else out += ch;
  }
  return `${out}\``;
}

function quotedList(items: readonly string[]): string {
  return `[${items.map(quoteOutlineString).join(", ")}]`;
}

/** A token reference: the id, or the token text quoted. */
function tokenRef(ref: TokenRef): string {
  return typeof ref === "number" ? String(ref) : quoteOutlineString(ref);
}

function tokenRefs(refs: readonly TokenRef[]): string {
  return `[${refs.map(tokenRef).join(", ")}]`;
}

function token(t: TokenFormat): string {
  return `token(${tokenRef(t.token)})`;
}

function begin(b: string | TokenFormat): string {
  return typeof b === "string" ? quoteOutlineString(b) : token(b);
}

function ends(end: string | string[] | TokenFormat): string {
  if (typeof end === "object" && !Array.isArray(end)) return token(end);
  return (typeof end === "string" ? [end] : end).map(quoteOutlineString).join(" | ");
}

function excludingTokens(refs: readonly TokenRef[] | undefined): string {
  return refs !== undefined && refs.length > 0 ? ` excluding ${tokenRefs(refs)}` : "";
}

function flags(f: { at_least_one?: boolean; stop_after_first?: boolean }): string {
  return (f.at_least_one === true ? " at_least_one" : "") + (f.stop_after_first === true ? " stop_after_first" : "");
}

class OutlinePrinter {
  readonly lines: string[] = [];

  /**
   * The one-line text of a leaf, or undefined when `f` is not a leaf. Leaves are the plain
   * formats and a tag whose content is a leaf; wrappers and blocks never are.
   */
  private leaf(f: Format, path: string): string | undefined {
    switch (f.type) {
      case "const_string":
        return quoteOutlineString(f.value);
      case "regex":
        return `/${f.pattern}/`;
      case "any_text": {
        let text = "text";
        if (f.excludes !== undefined && f.excludes.length > 0) text += ` excluding ${quotedList(f.excludes)}`;
        if (f.max_tokens !== undefined) text += ` max_tokens=${f.max_tokens}`;
        if (f.max_chars !== undefined) text += ` max_chars=${f.max_chars}`;
        return text;
      }
      case "json_schema": {
        let text = `${f.style ?? "json"}(${schemaType(f.json_schema, keyPath(path, "json_schema"))})`;
        if (f.any_order === true) text += " any_order";
        if (f.max_whitespace_cnt !== undefined) text += ` max_whitespace=${f.max_whitespace_cnt}`;
        if (f.excludes !== undefined && f.excludes.length > 0) text += ` excluding ${quotedList(f.excludes)}`;
        return text;
      }
      case "tag": {
        const content = this.leaf(f.content, keyPath(path, "content"));
        return content === undefined ? undefined : `tag ${begin(f.begin)} ${content} ${ends(f.end)}`;
      }
      case "token":
        return token(f);
      case "exclude_token":
        return `any_token${excludingTokens(f.exclude_tokens)}`;
      case "any_tokens":
        return `tokens${excludingTokens(f.exclude_tokens)}${f.max_tokens !== undefined ? ` max_tokens=${f.max_tokens}` : ""}`;
      default:
        return undefined;
    }
  }

  private line(depth: number, text: string): void {
    this.lines.push(INDENT.repeat(depth) + text);
  }

  /** A wrapper: the child on the same line when it is a leaf, below otherwise. */
  private wrapper(header: string, child: Format, depth: number, path: string): void {
    const text = this.leaf(child, path);
    if (text !== undefined) {
      this.line(depth, `${header} ${text}`);
    } else {
      this.line(depth, header);
      this.node(child, depth + 1, path);
    }
  }

  private tag(t: TagFormat, depth: number, path: string): void {
    const text = this.leaf(t, path);
    if (text !== undefined) {
      this.line(depth, text);
      return;
    }
    this.line(depth, `tag ${begin(t.begin)} .. ${ends(t.end)}`);
    this.node(t.content, depth + 1, keyPath(path, "content"));
  }

  private tags(tags: readonly TagFormat[], depth: number, path: string): void {
    tags.forEach((t, i) => this.tag(t, depth, `${keyPath(path, "tags")}[${i}]`));
  }

  node(f: Format, depth: number, path: string): void {
    if (f.type === "tag") {
      this.tag(f, depth, path);
      return;
    }
    const text = this.leaf(f, path);
    if (text !== undefined) {
      this.line(depth, text);
      return;
    }
    switch (f.type) {
      case "grammar":
        this.line(depth, "grammar");
        for (const text of f.grammar.split(/\r\n|\n|\r/)) {
          if (text.trim() !== "") this.line(depth + 1, text);
        }
        return;
      case "sequence":
      case "or":
        this.line(depth, f.type);
        f.elements.forEach((e, i) => this.node(e, depth + 1, `${keyPath(path, "elements")}[${i}]`));
        return;
      case "optional":
      case "star":
      case "plus":
        this.wrapper(f.type, f.content, depth, keyPath(path, "content"));
        return;
      case "repeat":
        this.wrapper(`repeat ${f.min}..${f.max === -1 ? "" : f.max}`, f.content, depth, keyPath(path, "content"));
        return;
      case "tags_with_separator":
        this.line(depth, `tags_with_separator ${quoteOutlineString(f.separator)}${flags(f)}`);
        this.tags(f.tags, depth + 1, path);
        return;
      case "triggered_tags": {
        let header = `triggered_tags ${quotedList(f.triggers)}`;
        if (f.excludes !== undefined && f.excludes.length > 0) header += ` excluding ${quotedList(f.excludes)}`;
        this.line(depth, header + flags(f));
        this.tags(f.tags, depth + 1, path);
        return;
      }
      case "token_triggered_tags":
        this.line(depth, `token_triggered_tags ${tokenRefs(f.trigger_tokens)}${excludingTokens(f.exclude_tokens)}${flags(f)}`);
        this.tags(f.tags, depth + 1, path);
        return;
      case "dispatch": {
        let header = "dispatch";
        if (f.excludes !== undefined && f.excludes.length > 0) header += ` excluding ${quotedList(f.excludes)}`;
        this.line(depth, header + (f.loop === false ? " loop=false" : ""));
        f.rules.forEach(([pattern, rule], i) => this.wrapper(`on ${quoteOutlineString(pattern)}`, rule, depth + 1, `${keyPath(path, "rules")}[${i}][1]`));
        return;
      }
      case "token_dispatch":
        this.line(depth, `token_dispatch${excludingTokens(f.exclude_tokens)}${f.loop === false ? " loop=false" : ""}`);
        f.rules.forEach(([t, rule], i) => this.wrapper(`on token(${tokenRef(t)})`, rule, depth + 1, `${keyPath(path, "rules")}[${i}][1]`));
        return;
    }
  }
}

/** The schema as a type; a schema it cannot render is reported at the format's JSON path. */
function schemaType(schema: JsonSchema, path: string): string {
  try {
    return schemaToType(schema);
  } catch (err) {
    if (err instanceof SchemaError) throw new FormatError(path, `cannot render the schema as a type: ${err.message}`);
    throw err;
  }
}

function isStructuralTag(input: Format | StructuralTag): input is StructuralTag {
  return isStructuralTagObject(input);
}

/**
 * Prints a structural tag (or one format node) as an outline: one node per line, children
 * indented two spaces, every line ending in `\n`. The input is validated first.
 * @throws FormatError when the input is not a valid structural tag or format.
 */
export function printOutline(input: Format | StructuralTag): string {
  const format = isStructuralTag(input) ? parseStructuralTag(input).format : parseFormat(input);
  const printer = new OutlinePrinter();
  printer.node(format, 0, "format");
  return printer.lines.map((l) => `${l}\n`).join("");
}
