/**
 * Typed constructors for format trees, for building structural tags in code:
 *
 * ```ts
 * import { formats as f } from "tagmask";
 * const tag = f.structuralTag(f.sequence(f.anyText({ excludes: ["<tool>"] }), f.tag("<tool>", f.jsonSchema(schema), "</tool>")));
 * ```
 *
 * Options use the wire field names (`at_least_one`, `max_tokens`, …) so one vocabulary serves the
 * JSON form and the code. Each constructor validates the node it builds (children included) and
 * returns a normalized copy, so a mistake fails where it is made, with a `FormatError`. The
 * copies are frozen: children that came from a constructor are taken as they are, not checked
 * again (sealed.ts), so building a tree costs time linear in its size.
 */
import { parseFormat, parseStructuralTag } from "./parse.js";
import { seal, sealStructuralTag } from "./sealed.js";
import type {
  AnyTextFormat, AnyTokensFormat, ConstStringFormat, DispatchFormat, ExcludeTokenFormat, Format, GrammarFormat, JsonSchema,
  JsonSchemaFormat, OptionalFormat, OrFormat, PlusFormat, RegexFormat, RepeatFormat, SequenceFormat, StarFormat, StructuralTag,
  TagFormat, TagsWithSeparatorFormat, TokenDispatchFormat, TokenFormat, TokenRef, TokenTriggeredTagsFormat, TriggeredTagsFormat,
} from "./types.js";

/** Options of {@link jsonSchema}. */
export type JsonSchemaOptions = Pick<JsonSchemaFormat, "style" | "any_order" | "max_whitespace_cnt" | "excludes">;
/** Options of {@link anyText}. */
export type AnyTextOptions = Pick<AnyTextFormat, "excludes" | "max_tokens" | "max_chars">;
/** Options of {@link triggeredTags}. */
export type TriggeredTagsOptions = Pick<TriggeredTagsFormat, "excludes" | "at_least_one" | "stop_after_first">;
/** Options of {@link tagsWithSeparator}. */
export type TagsWithSeparatorOptions = Pick<TagsWithSeparatorFormat, "at_least_one" | "stop_after_first">;
/** Options of {@link dispatch}. */
export type DispatchOptions = Pick<DispatchFormat, "loop" | "excludes">;
/** Options of {@link anyTokens}. */
export type AnyTokensOptions = Pick<AnyTokensFormat, "exclude_tokens" | "max_tokens">;
/** Options of {@link tokenTriggeredTags}. */
export type TokenTriggeredTagsOptions = Pick<TokenTriggeredTagsFormat, "exclude_tokens" | "at_least_one" | "stop_after_first">;
/** Options of {@link tokenDispatch}. */
export type TokenDispatchOptions = Pick<TokenDispatchFormat, "loop" | "exclude_tokens">;

function checked<F extends Format>(node: F): F {
  return seal(parseFormat(node) as F);
}

/** Exactly `value`. */
export function constString(value: string): ConstStringFormat {
  return checked({ type: "const_string", value });
}

/** A JSON value following `schema` (or, with `style`, another argument style). */
export function jsonSchema(schema: JsonSchema, options: JsonSchemaOptions = {}): JsonSchemaFormat {
  return checked({ type: "json_schema", json_schema: schema, ...options });
}

/** Text of an EBNF grammar, rule `root` first. */
export function grammar(text: string): GrammarFormat {
  return checked({ type: "grammar", grammar: text });
}

/** Text fully matching the regular expression `pattern`. */
export function regex(pattern: string): RegexFormat {
  return checked({ type: "regex", pattern });
}

/** Any text not containing the `excludes`, optionally bounded in tokens or characters. */
export function anyText(options: AnyTextOptions = {}): AnyTextFormat {
  return checked({ type: "any_text", ...options });
}

/** Each element in turn (at least one). */
export function sequence(...elements: Format[]): SequenceFormat {
  return checked({ type: "sequence", elements });
}

/** Exactly one of the elements (at least one). */
export function or(...elements: Format[]): OrFormat {
  return checked({ type: "or", elements });
}

/** The content or nothing. */
export function optional(content: Format): OptionalFormat {
  return checked({ type: "optional", content });
}

/** Zero or more repetitions of the content. */
export function star(content: Format): StarFormat {
  return checked({ type: "star", content });
}

/** One or more repetitions of the content. */
export function plus(content: Format): PlusFormat {
  return checked({ type: "plus", content });
}

/** Between `min` and `max` repetitions of the content; `max` -1 is unbounded. */
export function repeat(min: number, max: number, content: Format): RepeatFormat {
  return checked({ type: "repeat", min, max, content });
}

/** `begin`, the content, then `end` (or any one of several ends); begin and end may be tokens ({@link token}). */
export function tag(begin: string | TokenFormat, content: Format, end: string | string[] | TokenFormat): TagFormat {
  return checked({ type: "tag", begin, content, end });
}

/** Free text, and a tag wherever one of the `triggers` starts one. */
export function triggeredTags(triggers: string[], tags: TagFormat[], options: TriggeredTagsOptions = {}): TriggeredTagsFormat {
  return checked({ type: "triggered_tags", triggers, tags, ...options });
}

/** Tags separated by `separator`, nothing else. */
export function tagsWithSeparator(tags: TagFormat[], separator: string, options: TagsWithSeparatorOptions = {}): TagsWithSeparatorFormat {
  return checked({ type: "tags_with_separator", tags, separator, ...options });
}

/** Free text in which each `[pattern, format]` rule's pattern is followed by its format. */
export function dispatch(rules: Array<[string, Format]>, options: DispatchOptions = {}): DispatchFormat {
  return checked({ type: "dispatch", rules, ...options });
}

/** Exactly one token, by id or by its text (resolved against the vocabulary when compiled). */
export function token(ref: TokenRef): TokenFormat {
  return checked({ type: "token", token: ref });
}

/** Exactly one text token of the vocabulary, none of `excludeTokens`. */
export function excludeToken(excludeTokens: TokenRef[] = []): ExcludeTokenFormat {
  return checked({ type: "exclude_token", exclude_tokens: excludeTokens });
}

/** Any number of text tokens, none excluded, at most `max_tokens`. */
export function anyTokens(options: AnyTokensOptions = {}): AnyTokensFormat {
  return checked({ type: "any_tokens", ...options });
}

/** Free tokens, and a tag wherever one of the trigger tokens begins one (tags begin with {@link token}s). */
export function tokenTriggeredTags(triggerTokens: TokenRef[], tags: TagFormat[], options: TokenTriggeredTagsOptions = {}): TokenTriggeredTagsFormat {
  return checked({ type: "token_triggered_tags", trigger_tokens: triggerTokens, tags, ...options });
}

/** Free tokens in which each `[token, format]` rule's token is followed by its format. */
export function tokenDispatch(rules: Array<[TokenRef, Format]>, options: TokenDispatchOptions = {}): TokenDispatchFormat {
  return checked({ type: "token_dispatch", rules, ...options });
}

/** The top level `{"type": "structural_tag", "format": …}`. */
export function structuralTag(format: Format): StructuralTag {
  return sealStructuralTag(parseStructuralTag({ type: "structural_tag", format }));
}
