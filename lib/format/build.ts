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
  AnyTextFormat, ConstStringFormat, Format, GrammarFormat, JsonSchema, JsonSchemaFormat, OptionalFormat, OrFormat,
  PlusFormat, RegexFormat, RepeatFormat, SequenceFormat, StarFormat, StructuralTag, TagFormat, TagsWithSeparatorFormat,
  TriggeredTagsFormat,
} from "./types.js";

/** Options of {@link jsonSchema}. */
export type JsonSchemaOptions = Pick<JsonSchemaFormat, "style" | "any_order" | "max_whitespace_cnt">;
/** Options of {@link anyText}. */
export type AnyTextOptions = Pick<AnyTextFormat, "excludes" | "max_tokens" | "max_chars">;
/** Options of {@link triggeredTags}. */
export type TriggeredTagsOptions = Pick<TriggeredTagsFormat, "excludes" | "at_least_one" | "stop_after_first">;
/** Options of {@link tagsWithSeparator}. */
export type TagsWithSeparatorOptions = Pick<TagsWithSeparatorFormat, "at_least_one" | "stop_after_first">;

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

/** `begin`, the content, then `end` (or any one of several ends). */
export function tag(begin: string, content: Format, end: string | string[]): TagFormat {
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

/** The top level `{"type": "structural_tag", "format": …}`. */
export function structuralTag(format: Format): StructuralTag {
  return sealStructuralTag(parseStructuralTag({ type: "structural_tag", format }));
}
