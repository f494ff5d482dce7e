/**
 * The structural-tag format tree: a TypeScript discriminated union with xgrammar's wire names
 * and fields, so the JSON form interoperates with xgrammar's `structural_tag`.
 *
 * Optional fields hold their documented default when absent.
 */

/** A JSON Schema: an object schema or a boolean schema. */
export type JsonSchema = boolean | { [key: string]: unknown };

/** Exactly this text. */
export interface ConstStringFormat {
  type: "const_string";
  value: string;
}

/**
 * A JSON value following a JSON Schema, or with `style` a model family's argument encoding of an
 * arguments object (`qwen_xml`, `minimax_xml`, `deepseek_xml`, `glm_xml`, `kimi_k3_xml`,
 * `cohere_xml`, `minimax_m3_xml`; docs/compatibility.md).
 */
export interface JsonSchemaFormat {
  type: "json_schema";
  json_schema: JsonSchema;
  /** Argument style; default "json". */
  style?: string;
  /** Object properties in any order (each at most once); default false. */
  any_order?: boolean;
  /** At most this many whitespace characters between JSON tokens; default unbounded. */
  max_whitespace_cnt?: number;
  /** Strings no raw argument value or argument name may contain (argument styles); default []. */
  excludes?: string[];
}

/** Text of an EBNF grammar (the syntax xgrammar and llama.cpp's GBNF share), rule `root` first. */
export interface GrammarFormat {
  type: "grammar";
  grammar: string;
}

/** Text fully matching an ECMAScript regular expression. */
export interface RegexFormat {
  type: "regex";
  pattern: string;
}

/** Any text in which none of `excludes` occurs (inside a tag, nor the tag's end strings). */
export interface AnyTextFormat {
  type: "any_text";
  /** Strings the text may not contain; default []. */
  excludes?: string[];
  /** At most this many tokens (enforced by the matcher). */
  max_tokens?: number;
  /** At most this many characters (code points). */
  max_chars?: number;
}

/** Each element in turn. */
export interface SequenceFormat {
  type: "sequence";
  elements: Format[];
}

/** Exactly one of the elements. */
export interface OrFormat {
  type: "or";
  elements: Format[];
}

/** The content or nothing. */
export interface OptionalFormat {
  type: "optional";
  content: Format;
}

/** Zero or more repetitions of the content. */
export interface StarFormat {
  type: "star";
  content: Format;
}

/** One or more repetitions of the content. */
export interface PlusFormat {
  type: "plus";
  content: Format;
}

/** Between `min` and `max` repetitions of the content; `max` -1 means unbounded. */
export interface RepeatFormat {
  type: "repeat";
  min: number;
  max: number;
  content: Format;
}

/** `begin`, then the content, then one of the end strings. */
export interface TagFormat {
  type: "tag";
  begin: string;
  content: Format;
  end: string | string[];
}

/**
 * Free text until one of the triggers begins a tag, the tag, then free text again.
 * Every tag's begin starts with a trigger, and every trigger starts at least one tag's begin.
 */
export interface TriggeredTagsFormat {
  type: "triggered_tags";
  triggers: string[];
  tags: TagFormat[];
  /** Strings the free text may not contain; default []. */
  excludes?: string[];
  /** The output must start with a tag; default false. */
  at_least_one?: boolean;
  /** Nothing after the first tag; default false. */
  stop_after_first?: boolean;
}

/** Zero or more tags separated by `separator`, nothing else. */
export interface TagsWithSeparatorFormat {
  type: "tags_with_separator";
  tags: TagFormat[];
  separator: string;
  /** At least one tag; default false. */
  at_least_one?: boolean;
  /** At most one tag; default false. */
  stop_after_first?: boolean;
}

/** Any node of the format tree. */
export type Format =
  | ConstStringFormat
  | JsonSchemaFormat
  | GrammarFormat
  | RegexFormat
  | AnyTextFormat
  | SequenceFormat
  | OrFormat
  | OptionalFormat
  | StarFormat
  | PlusFormat
  | RepeatFormat
  | TagFormat
  | TriggeredTagsFormat
  | TagsWithSeparatorFormat;

/** The `type` names of the format nodes. */
export type FormatType = Format["type"];

/** The top level of xgrammar's structural tag JSON. */
export interface StructuralTag {
  type: "structural_tag";
  format: Format;
}
