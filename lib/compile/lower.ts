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
import { GrammarError, InvalidArgumentError, SchemaError } from "../errors.js";
import { isStructuralTagObject, parseFormat, parseStructuralTag } from "../format/parse.js";
import type {
  Format, JsonSchemaFormat, StructuralTag, TagFormat, TagsWithSeparatorFormat, TokenRef, TriggeredTagsFormat,
} from "../format/types.js";
import { ebnfToIr } from "./ebnf/index.js";
import { formatKeyText } from "./key-text.js";
import { captureFragment, FragmentCache, FragmentImporter, type FragmentCacheStats, type IrFragment } from "./fragments.js";
import {
  GrammarBuilder, choice, empty, lit, repeat, seq, text, validateGrammarOnce, type IrExpr, type IrGrammar,
} from "./ir.js";
import { excludesProblem, lowerJsonSchema, type SubSchemaLowering } from "./json-schema/index.js";
import {
  lowerAnyTokens, lowerDispatch, lowerExcludeToken, lowerToken, lowerTokenDispatch, lowerTokenTriggeredTags, type TokenLoweringContext,
} from "./lower-tokens.js";
import { regexToIr } from "./regex/index.js";
import { inlinedForm, simplifyValidGrammar, type SimplifyOptions } from "./simplify.js";
import { lowerStyledSchema } from "./styles/index.js";

/** Options of {@link lowerFormat}. */
export interface LowerOptions {
  /** Run the simplification passes of simplify.ts (default true). */
  simplify?: boolean | SimplifyOptions;
  /**
   * Reuse tags and JSON Schema formats lowered before, in this lowering or an earlier one
   * (default true; see {@link loweringCacheStats}). The grammar is the same either way.
   */
  cache?: boolean;
  /**
   * Called as the tags of `triggered_tags` and `tags_with_separator` lists (a model's tool calls)
   * are lowered: `done` of `total` such tags, `total` counted before lowering starts.
   */
  onProgress?: (done: number, total: number) => void;
  /**
   * How `json_schema` formats read what a schema does not declare: the members of an object
   * without `additionalProperties` / `unevaluatedProperties` and the items of an array without
   * `items` / `unevaluatedItems`. "forbid" (default) is xgrammar's reading, which compiles every
   * structural tag's schemas in its strict mode; "allow" is JSON Schema's. Every argument style
   * and the tool-calling builders follow it. A lowering option, not a field of the format, so the
   * structural tag stays one that xgrammar loads (docs/compatibility.md).
   */
  undeclared?: "forbid" | "allow";
}

/** IR nodes the lowering cache holds by default (a six-parameter tool's call tag is ~600). */
const DEFAULT_CACHE_NODES = 200_000;
const fragments = new FragmentCache(DEFAULT_CACHE_NODES);

/** Counters of the cache of lowered tags and JSON Schema formats shared by every lowering. */
export function loweringCacheStats(): FragmentCacheStats {
  return fragments.stats;
}

/** Empties the lowering cache. */
export function clearLoweringCache(): void {
  fragments.clear();
  loweredRegexes.clear();
}

/**
 * Regex patterns lowered before, by pattern text. A regex lowers to rule-free IR, the same
 * wherever it stands, and tool-call formats repeat theirs in every tool's tag (Kimi K3's call
 * index): each tag is lowered on its own, so a per-lowering memo parsed the pattern once per new
 * tool. Bounded by entries and by the pattern text held; least recently used dropped first.
 */
class RegexMemo {
  private readonly entries = new Map<string, IrExpr>();
  private chars = 0;

  get(pattern: string): IrExpr | undefined {
    const e = this.entries.get(pattern);
    if (e !== undefined) {
      this.entries.delete(pattern);
      this.entries.set(pattern, e);
    }
    return e;
  }

  set(pattern: string, e: IrExpr): void {
    if (pattern.length > REGEX_MEMO_MAX_PATTERN) return;
    this.entries.set(pattern, e);
    this.chars += pattern.length;
    for (const key of this.entries.keys()) {
      if (this.entries.size <= REGEX_MEMO_MAX_ENTRIES && this.chars <= REGEX_MEMO_MAX_CHARS) break;
      this.entries.delete(key);
      this.chars -= key.length;
    }
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }
}

/** Bounds of {@link loweredRegexes}: a long pattern's IR is large and rarely repeated. */
const REGEX_MEMO_MAX_ENTRIES = 256;
const REGEX_MEMO_MAX_PATTERN = 1024;
const REGEX_MEMO_MAX_CHARS = 64 * 1024;
const loweredRegexes = new RegexMemo();

/** Bounds the lowering cache to `maxNodes` IR nodes (0 disables it); default 200,000. */
export function setLoweringCacheSize(maxNodes: number): void {
  if (!Number.isInteger(maxNodes) || maxNodes < 0) {
    throw new InvalidArgumentError(`setLoweringCacheSize: expected a non-negative integer number of IR nodes, got ${String(maxNodes)}`);
  }
  fragments.resize(maxNodes);
}

/**
 * The grammar of a structural tag or of a bare format. The input is checked first (a malformed
 * tree throws a FormatError naming its JSON path); a regex or EBNF error is a GrammarError whose
 * message starts with the JSON path of the format and keeps the position in the pattern or text.
 * The root rule is named `root`.
 */
export function lowerFormat(input: StructuralTag | Format, options: LowerOptions = {}): IrGrammar {
  const format = isStructuralTag(input) ? parseStructuralTag(input).format : parseFormat(input, "format");
  const simplify = options.simplify === false ? null : options.simplify === true || options.simplify === undefined ? {} : options.simplify;
  const b = new GrammarBuilder();
  b.ruleRef("root"); // the root comes first in the rule list
  const undeclared = options.undeclared ?? "forbid";
  if (undeclared !== "forbid" && undeclared !== "allow") {
    throw new InvalidArgumentError(`options.undeclared: expected "forbid" or "allow", got ${JSON.stringify(undeclared)}`);
  }
  const setup: LoweringSetup = { simplify, cache: options.cache === false ? null : fragments, progress: null, undeclared };
  if (options.onProgress) setup.progress = { done: 0, total: countListedTags(format), report: options.onProgress };
  const importer = new FragmentImporter(b);
  const body = new Lowering(b, setup, importer).format(format, "format", []);
  // Tags nested in a tag that came from the cache were not lowered one by one.
  const progress = setup.progress;
  if (progress && progress.done < progress.total) progress.report(progress.total, progress.total);
  b.define("root", body);
  const grammar = b.build("root");
  // The rules copied from the cache are simplified already: the simplification works around them
  // (it neither reads nor renumbers them while the rules before them stay), and the validation
  // checks them only by name (their fragments were checked when they were made).
  const out = simplify === null ? grammar : simplifyValidGrammar(grammar, simplify, importer.fixedRules(grammar.rules.length));
  validateGrammarOnce(out, importer.trustedBodies);
  return out;
}

function isStructuralTag(input: StructuralTag | Format): input is StructuralTag {
  return isStructuralTagObject(input);
}

/**
 * The one place a `json_schema` format becomes IR: the JSON Schema compiler
 * (lib/compile/json-schema), strict, with the format's property order and whitespace limit, and
 * undeclared members and items as `undeclared` says (default "forbid", xgrammar's reading; see
 * {@link LowerOptions}). A schema it refuses is a SchemaError whose message starts with the
 * format's JSON path.
 */
export function lowerJsonSchemaFormat(format: JsonSchemaFormat, b: GrammarBuilder, path: string, undeclared: "forbid" | "allow" = "forbid", subSchemas?: SubSchemaLowering): IrExpr {
  const style = format.style ?? "json";
  const excludes = checkedExcludes(format, path);
  if (style !== "json") return lowerStyledSchema(format, b, path, undeclared);
  try {
    return lowerJsonSchema(format.json_schema, b, {
      anyOrder: format.any_order ?? false,
      undeclared,
      ...(format.max_whitespace_cnt === undefined ? {} : { maxWhitespace: format.max_whitespace_cnt }),
      ...(excludes.length === 0 ? {} : { excludes }),
    }, subSchemas);
  } catch (err) {
    if (err instanceof SchemaError) {
      const detail = err.message.slice(err.schemaPath.length + 2);
      throw new SchemaError(err.schemaPath, `${detail} (in ${path}.json_schema)`, err.keyword);
    }
    throw err;
  }
}

/** A `json_schema` format's excludes, refused with the format's path when the compiler could not take them. */
function checkedExcludes(format: JsonSchemaFormat, path: string): readonly string[] {
  const excludes = format.excludes ?? [];
  const problem = excludesProblem(excludes);
  if (problem !== null) throw new GrammarError(`${path}.excludes${problem.startsWith("[") ? "" : ": "}${problem}`);
  return excludes;
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

interface LoweringSetup {
  /** Simplification options, or null for none (fragments are then kept as lowered). */
  simplify: SimplifyOptions | null;
  cache: FragmentCache | null;
  progress: { done: number; total: number; report: (done: number, total: number) => void } | null;
  /** What json_schema formats allow past what their schemas declare. */
  undeclared: "forbid" | "allow";
}

/** The tags of tag lists in a format tree, nested ones included (what onProgress counts). */
function countListedTags(f: Format): number {
  switch (f.type) {
    case "sequence":
    case "or":
      return f.elements.reduce((n, e) => n + countListedTags(e), 0);
    case "optional":
    case "star":
    case "plus":
    case "repeat":
    case "tag":
      return countListedTags(f.content);
    case "triggered_tags":
    case "tags_with_separator":
      return f.tags.reduce((n, t) => n + 1 + countListedTags(t.content), 0);
    default:
      return 0;
  }
}

/** One lowering: the builder, and caches so identical sub-formats share rules. */
class Lowering {
  private readonly tags = new Map<string, IrExpr>();
  private readonly schemas = new Map<string, IrExpr>();
  private readonly regexes = new Map<string, IrExpr>();
  private readonly grammars = new Map<string, IrExpr>();

  /** The end token of the innermost enclosing tag (token-level formats stop at it). */
  private endTokens: readonly TokenRef[] = [];

  /**
   * `importer` copies the fragments this lowering takes from the cache into its builder, each
   * once (a fragment being built imports the fragments inside it into its own builder).
   */
  constructor(private readonly b: GrammarBuilder, private readonly setup: LoweringSetup, private readonly importer: FragmentImporter) {}

  /**
   * A tag or JSON Schema format, lowered once per content in this lowering. With `capture`, once
   * per content across lowerings too: from the shared cache (or lowered into a fragment of its
   * own and kept there), then copied into this grammar. Captured formats nest: a tool's tag is a
   * fragment that depends on the fragments of its JSON Schemas.
   */
  private shared(memo: Map<string, IrExpr>, kind: string, f: Format, capture: boolean, lower: (inner: Lowering) => IrExpr): IrExpr {
    // Numbers a double cannot hold are keyed as written (two schemas may differ only there).
    const text = formatKeyText(f);
    const { simplify, cache } = this.setup;
    // One key string for this lowering's memo and the shared cache: a tool's tag is kilobytes of
    // text, and each distinct string used as a key is flattened and hashed once more.
    const key = `${kind}|${simplify === null ? "raw" : String(simplify.inlineMaxNodes ?? "")}|${this.setup.undeclared}|${text}`;
    const known = memo.get(key);
    if (known) return known;
    let e: IrExpr;
    if (cache === null || !capture) {
      e = lower(this);
    } else {
      const make = (): IrFragment => captureFragment(key, (scratch, importer) => lower(new Lowering(scratch, this.setup, importer)), simplify);
      e = this.importer.import(cache.get(key, make));
    }
    memo.set(key, e);
    return e;
  }

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
        return this.jsonSchema(f, path);
      case "any_text":
        // No token at all is the empty text, exactly, for the reference recognizer too (which counts bytes, not tokens).
        if (f.max_tokens === 0) return lit("");
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
        return this.tag(f, path, false);
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

  /** A JSON Schema format, kept in the cache, its self-contained member schemas as formats of their own. */
  private jsonSchema(f: JsonSchemaFormat, path: string): IrExpr {
    return this.shared(this.schemas, "json_schema", f, true, (inner) => lowerJsonSchemaFormat(f, inner.b, path, this.setup.undeclared, inner.subSchemas(f, path)));
  }

  /**
   * With the cache on, the member and item schemas the JSON Schema compiler finds self-contained
   * are lowered as `json_schema` formats of their own with `f`'s options (the same key as such a
   * format written in the structural tag, e.g. a Kimi K3 argument): a member schema that many
   * tools hold is compiled once, kept once, and held once by a grammar of them all.
   */
  private subSchemas(f: JsonSchemaFormat, path: string): SubSchemaLowering | undefined {
    if (this.setup.cache === null || (f.style ?? "json") !== "json") return undefined;
    return (schema) => this.jsonSchema({ ...f, json_schema: schema }, path);
  }

  private regex(pattern: string, path: string): IrExpr {
    let e = this.regexes.get(pattern) ?? loweredRegexes.get(pattern);
    if (!e) {
      try {
        e = regexToIr(pattern);
      } catch (err) {
        throw located(err, `${path}.pattern`);
      }
      loweredRegexes.set(pattern, e);
    }
    this.regexes.set(pattern, e);
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

  /**
   * A tag as a rule of its own (shared by identical tags). What a tag lowers to depends on the tag
   * alone: the text inside it ends at its own end strings, and the token-level formats inside it
   * at its own end token, whatever encloses it. The tags of a `triggered_tags` or
   * `tags_with_separator` (a model's tool calls) are what requests repeat, so those are kept across
   * lowerings (`capture`), and so is a JSON Schema outside them (an answer constraint); everything
   * else is lowered in place.
   */
  private tag(f: TagFormat, path: string, capture: boolean): IrExpr {
    return this.shared(this.tags, "tag", f, capture, (inner) => {
      const endToken = typeof f.end === "object" && !Array.isArray(f.end) ? f.end.token : undefined;
      const ends = endToken !== undefined ? [] : typeof f.end === "string" ? [f.end] : (f.end as string[]);
      const outerEndTokens = inner.endTokens;
      inner.endTokens = endToken === undefined ? [] : [endToken];
      let content: IrExpr;
      try {
        content = inner.format(f.content, `${path}.content`, distinct([ends]));
      } finally {
        inner.endTokens = outerEndTokens;
      }
      const endExpr = endToken !== undefined ? lowerToken(endToken) : choice(...distinct([ends]).map((e) => lit(e)), ...(ends.includes("") ? [lit("")] : []));
      const beginExpr = typeof f.begin === "string" ? lit(f.begin) : lowerToken(f.begin.token);
      const name = inner.b.freshName(nameFrom(f.begin));
      const body = seq(beginExpr, content, endExpr);
      // A tag the simplification would inline (`"" text "</x>"`) is written in place, its name
      // kept from use: dropping its rule from a grammar of many cached tools renumbered them all.
      const inPlace = capture || this.setup.simplify === null ? null : inlinedForm(body, this.setup.simplify);
      if (inPlace === null) return inner.b.define(name, body);
      inner.b.reserveName(name);
      return inPlace;
    });
  }

  private tagChoice(tags: readonly TagFormat[], path: string): IrExpr {
    return choice(...tags.map((t, i) => {
      const e = this.tag(t, `${path}.tags[${i}]`, true);
      const progress = this.setup.progress;
      if (progress) progress.report(++progress.done, progress.total);
      return e;
    }));
  }

  private triggeredTags(f: TriggeredTagsFormat, path: string, ends: readonly string[]): IrExpr {
    const free = text(distinct([f.triggers, f.excludes ?? [], ends]));
    const tag = this.tagChoice(f.tags, path);
    const first = f.at_least_one ?? false;
    const once = f.stop_after_first ?? false;
    if (first && once) return this.b.define(this.b.freshName("triggered_tags"), tag);
    if (once) return this.b.define(this.b.freshName("triggered_tags"), seq(free, repeat(tag, 0, 1)));
    // The repetition as a rule that refers to itself last: the engine turns that into a loop
    // over one copy of the tags (`x (y x)*` would copy every tag's automaton twice).
    const name = this.b.freshName("triggered_tags");
    const self = this.b.ruleRef(name);
    return this.b.define(name, first ? seq(tag, free, choice(empty(), self)) : seq(free, choice(empty(), seq(tag, self))));
  }

  private tagsWithSeparator(f: TagsWithSeparatorFormat, path: string): IrExpr {
    const tag = this.tagChoice(f.tags, path);
    const first = f.at_least_one ?? false;
    const once = f.stop_after_first ?? false;
    if (first && once) return this.b.define(this.b.freshName("tags_with_separator"), tag);
    if (once) return this.b.define(this.b.freshName("tags_with_separator"), repeat(tag, 0, 1));
    // `tag (sep tag)*` as a rule that refers to itself last (one copy of the tags, see above).
    const name = this.b.freshName("tags_with_separator");
    const self = this.b.ruleRef(name);
    const list = this.b.define(name, seq(tag, choice(empty(), seq(lit(f.separator), self))));
    return first ? list : repeat(list, 0, 1);
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

