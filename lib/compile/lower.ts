/**
 * Lowering a structural tag (a tree of formats) to the grammar IR, with xgrammar's semantics:
 *
 * - `any_text` inside a tag also excludes the end strings of the innermost enclosing tag, so the
 *   text ends at the first end string; the free text of `triggered_tags` does the same.
 * - `tag` → begin, content, one of the end strings.
 * - `triggered_tags` → `T (tag T)*` with `T` = text excluding the triggers, the excludes and the
 *   enclosing tag's ends; `at_least_one` → `tag T (tag T)*`; `stop_after_first` → `T tag?`;
 *   both → `tag`.
 * - `tags_with_separator` → `(tag (sep tag)*)?`; `at_least_one` → `tag (sep tag)*`;
 *   `stop_after_first` → `tag?`; both → `tag`.
 * - `regex`, `grammar` and `json_schema` go through their compilers into rules of the same grammar.
 * - `dispatch` and the token-level formats: lower-tokens.ts. A tag's begin or end may be a
 *   token; a token end is the end token the token-level formats inside the tag stop at.
 *
 * docs/ir.md ("How formats lower") is the summary of record.
 */
import { GrammarError, SchemaError } from "../errors.js";
import { isStructuralTagObject, parseFormat, parseStructuralTag } from "../format/parse.js";
import type {
  Format, JsonSchemaFormat, StructuralTag, TagFormat, TagsWithSeparatorFormat, TokenRef, TriggeredTagsFormat,
} from "../format/types.js";
import { ebnfToIr } from "./ebnf/index.js";
import {
  GrammarBuilder, choice, lit, repeat, seq, star, text, validateGrammar, type IrExpr, type IrGrammar,
} from "./ir.js";
import { lowerJsonSchema } from "./json-schema/index.js";
import {
  lowerAnyTokens, lowerDispatch, lowerExcludeToken, lowerToken, lowerTokenDispatch, lowerTokenTriggeredTags, type TokenLoweringContext,
} from "./lower-tokens.js";
import { regexToIr } from "./regex/index.js";
import { simplifyGrammar, type SimplifyOptions } from "./simplify.js";
import { lowerStyledSchema } from "./styles/index.js";

/** Options of {@link lowerFormat}. */
export interface LowerOptions {
  /** Run the simplification passes of simplify.ts (default true). */
  simplify?: boolean | SimplifyOptions;
}

/**
 * The grammar of a structural tag or of a bare format. The input is checked first (a malformed
 * tree throws a FormatError naming its JSON path); a regex or EBNF error is a GrammarError whose
 * message starts with the JSON path of the format and keeps the position in the pattern or text.
 * The root rule is named `root`.
 */
export function lowerFormat(input: StructuralTag | Format, options: LowerOptions = {}): IrGrammar {
  const format = isStructuralTag(input) ? parseStructuralTag(input).format : parseFormat(input, "format");
  const b = new GrammarBuilder();
  b.ruleRef("root"); // the root comes first in the rule list
  const body = new Lowering(b).format(format, "format", []);
  b.define("root", body);
  let grammar = b.build("root");
  if (options.simplify !== false) grammar = simplifyGrammar(grammar, options.simplify === true ? {} : options.simplify);
  validateGrammar(grammar);
  return grammar;
}

function isStructuralTag(input: StructuralTag | Format): input is StructuralTag {
  return isStructuralTagObject(input);
}

/**
 * The one place a `json_schema` format becomes IR: the JSON Schema compiler
 * (lib/compile/json-schema), strict, with the format's property order and whitespace limit. A
 * schema it refuses is a SchemaError whose message starts with the format's JSON path.
 */
export function lowerJsonSchemaFormat(format: JsonSchemaFormat, b: GrammarBuilder, path: string): IrExpr {
  const style = format.style ?? "json";
  if (style !== "json") return lowerStyledSchema(format, b, path);
  if (format.excludes !== undefined && format.excludes.length > 0) {
    throw new GrammarError(`${path}.excludes: excludes are enforced on the raw values and names of the argument styles; with style "json" they are not supported yet (give the strings a "not": {"pattern": …} in the schema instead)`);
  }
  try {
    return lowerJsonSchema(format.json_schema, b, {
      anyOrder: format.any_order ?? false,
      ...(format.max_whitespace_cnt === undefined ? {} : { maxWhitespace: format.max_whitespace_cnt }),
    });
  } catch (err) {
    if (err instanceof SchemaError) {
      const detail = err.message.slice(err.schemaPath.length + 2);
      throw new SchemaError(err.schemaPath, `${detail} (in ${path}.json_schema)`, err.keyword);
    }
    throw err;
  }
}

/** Distinct, non-empty strings in order of first appearance. */
function distinct(lists: ReadonlyArray<readonly string[]>): string[] {
  const out: string[] = [];
  for (const list of lists) for (const s of list) if (s !== "" && !out.includes(s)) out.push(s);
  return out;
}

/** A rule-name fragment from a tag's begin string (or token): its letters and digits, `_`-joined. */
function nameFrom(begin: string | { token: TokenRef }): string {
  const words = (typeof begin === "string" ? begin : String(begin.token)).toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const joined = words.join("_").slice(0, 40).replace(/_+$/, "");
  return joined === "" ? "tag" : `tag_${joined}`;
}

/** One lowering: the builder, and caches so identical sub-formats share rules. */
class Lowering {
  private readonly tags = new Map<string, IrExpr>();
  private readonly regexes = new Map<string, IrExpr>();
  private readonly grammars = new Map<string, IrExpr>();

  /** The end token of the innermost enclosing tag (token-level formats stop at it). */
  private endTokens: readonly TokenRef[] = [];

  constructor(private readonly b: GrammarBuilder) {}

  /** The context the dispatch and token-level lowerings of lower-tokens.ts work in. */
  private tokenContext(ends: readonly string[]): TokenLoweringContext {
    return {
      format: (f, path) => this.format(f, path, ends),
      tagChoice: (tags, path) => this.tagChoice(tags, path),
      define: (base, body) => this.b.define(this.b.freshName(base), body),
      endTokens: this.endTokens,
    };
  }

  /** `ends` are the end strings of the innermost enclosing tag (non-empty ones only). */
  format(f: Format, path: string, ends: readonly string[]): IrExpr {
    switch (f.type) {
      case "const_string":
        return lit(f.value);
      case "regex":
        return this.regex(f.pattern, path);
      case "grammar":
        return this.grammar(f.grammar, path);
      case "json_schema":
        return lowerJsonSchemaFormat(f, this.b, path);
      case "any_text":
        return text(distinct([f.excludes ?? [], ends]), { maxChars: f.max_chars ?? null, maxTokens: f.max_tokens ?? null });
      case "sequence":
        return seq(...f.elements.map((e, i) => this.format(e, `${path}.elements[${i}]`, ends)));
      case "or":
        return choice(...f.elements.map((e, i) => this.format(e, `${path}.elements[${i}]`, ends)));
      case "optional":
        return repeat(this.format(f.content, `${path}.content`, ends), 0, 1);
      case "star":
        return repeat(this.format(f.content, `${path}.content`, ends), 0, null);
      case "plus":
        return repeat(this.format(f.content, `${path}.content`, ends), 1, null);
      case "repeat":
        return repeat(this.format(f.content, `${path}.content`, ends), f.min, f.max === -1 ? null : f.max);
      case "tag":
        return this.tag(f, path);
      case "triggered_tags":
        return this.triggeredTags(f, path, ends);
      case "tags_with_separator":
        return this.tagsWithSeparator(f, path);
      case "dispatch":
        return lowerDispatch(this.tokenContext(ends), f, path);
      case "token":
        return lowerToken(f.token);
      case "exclude_token":
        return lowerExcludeToken(this.tokenContext(ends), f);
      case "any_tokens":
        return lowerAnyTokens(this.tokenContext(ends), f);
      case "token_triggered_tags":
        return lowerTokenTriggeredTags(this.tokenContext(ends), f, path);
      case "token_dispatch":
        return lowerTokenDispatch(this.tokenContext(ends), f, path);
    }
  }

  private regex(pattern: string, path: string): IrExpr {
    let e = this.regexes.get(pattern);
    if (!e) {
      try {
        e = regexToIr(pattern);
      } catch (err) {
        throw located(err, `${path}.pattern`);
      }
      this.regexes.set(pattern, e);
    }
    return e;
  }

  private grammar(source: string, path: string): IrExpr {
    const known = this.grammars.get(source);
    if (known) return known;
    // Each grammar's rules get their own prefix so several grammars live in one IR.
    const prefix = `grammar${this.grammars.size + 1}_`;
    let e: IrExpr;
    try {
      e = ebnfToIr(source, this.b, { prefix });
    } catch (err) {
      throw located(err, `${path}.grammar`);
    }
    this.grammars.set(source, e);
    return e;
  }

  /** A tag as a rule of its own (shared by identical tags). */
  private tag(f: TagFormat, path: string): IrExpr {
    const endToken = typeof f.end === "object" && !Array.isArray(f.end) ? f.end.token : undefined;
    const ends = endToken !== undefined ? [] : typeof f.end === "string" ? [f.end] : (f.end as string[]);
    const key = JSON.stringify(f);
    const known = this.tags.get(key);
    if (known) return known;
    const outerEndTokens = this.endTokens;
    this.endTokens = endToken === undefined ? [] : [endToken];
    let content: IrExpr;
    try {
      content = this.format(f.content, `${path}.content`, distinct([ends]));
    } finally {
      this.endTokens = outerEndTokens;
    }
    const endExpr = endToken !== undefined ? lowerToken(endToken) : choice(...distinct([ends]).map((e) => lit(e)), ...(ends.includes("") ? [lit("")] : []));
    const beginExpr = typeof f.begin === "string" ? lit(f.begin) : lowerToken(f.begin.token);
    const ref = this.b.define(this.b.freshName(nameFrom(f.begin)), seq(beginExpr, content, endExpr));
    this.tags.set(key, ref);
    return ref;
  }

  private tagChoice(tags: readonly TagFormat[], path: string): IrExpr {
    return choice(...tags.map((t, i) => this.tag(t, `${path}.tags[${i}]`)));
  }

  private triggeredTags(f: TriggeredTagsFormat, path: string, ends: readonly string[]): IrExpr {
    const free = text(distinct([f.triggers, f.excludes ?? [], ends]));
    const tag = this.tagChoice(f.tags, path);
    const first = f.at_least_one ?? false;
    const once = f.stop_after_first ?? false;
    let body: IrExpr;
    if (first && once) body = tag;
    else if (once) body = seq(free, repeat(tag, 0, 1));
    else if (first) body = seq(tag, free, star(seq(tag, free)));
    else body = seq(free, star(seq(tag, free)));
    return this.b.define(this.b.freshName("triggered_tags"), body);
  }

  private tagsWithSeparator(f: TagsWithSeparatorFormat, path: string): IrExpr {
    const tag = this.tagChoice(f.tags, path);
    const first = f.at_least_one ?? false;
    const once = f.stop_after_first ?? false;
    let body: IrExpr;
    if (first && once) body = tag;
    else if (once) body = repeat(tag, 0, 1);
    else {
      const list = seq(tag, star(seq(lit(f.separator), tag)));
      body = first ? list : repeat(list, 0, 1);
    }
    return this.b.define(this.b.freshName("tags_with_separator"), body);
  }
}

/** A compiler's GrammarError with the format's JSON path in front, its position kept. */
function located(err: unknown, path: string): unknown {
  if (!(err instanceof GrammarError)) return err;
  const location: { position?: number; line?: number; column?: number } = {};
  if (err.position !== undefined) location.position = err.position;
  if (err.line !== undefined) location.line = err.line;
  if (err.column !== undefined) location.column = err.column;
  return new GrammarError(`${path}: ${err.message}`, location);
}

