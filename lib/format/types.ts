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
 * arguments object (`qwen_xml`, `minimax_xml`, `deepseek_xml`, `deepseek_v4_1_xml`, `glm_xml`,
 * `kimi_k3_xml`, `cohere_xml`, `minimax_m3_xml`; docs/compatibility.md).
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
  /**
   * Strings no JSON string of the value (keys too, at every depth; its text as written, escapes
   * included) may contain, nor, with a style, a raw argument value or an argument name; default [].
   */
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

/**
 * A token of the vocabulary: its id, or its text (resolved against the vocabulary when the
 * grammar is compiled; the text must be exactly one token).
 */
export type TokenRef = number | string;

/** `begin`, then the content, then one of the end strings (or the end token). */
export interface TagFormat {
  type: "tag";
  /** A string, or one token (`{"type": "token", "token": …}`). */
  begin: string | TokenFormat;
  content: Format;
  /** A string, a non-empty list of strings (any one ends the tag), or one token. */
  end: string | string[] | TokenFormat;
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

/**
 * Free text in which each rule's pattern, where it first occurs, is followed by the rule's
 * format; with `loop` the free text resumes after it (and later patterns dispatch again).
 */
export interface DispatchFormat {
  type: "dispatch";
  /** `[pattern, format]` pairs; patterns are non-empty literal strings. */
  rules: Array<[string, Format]>;
  /** After a dispatched format, free text (and further dispatches) again; default true. */
  loop?: boolean;
  /** Strings the free text may not contain; default []. */
  excludes?: string[];
}

/** Exactly one token, the given one (by id or text). */
export interface TokenFormat {
  type: "token";
  token: TokenRef;
}

/** Exactly one token of the vocabulary's text tokens, none of `exclude_tokens`. */
export interface ExcludeTokenFormat {
  type: "exclude_token";
  /** Default []. */
  exclude_tokens?: TokenRef[];
}

/** Zero or more tokens of the vocabulary's text tokens, none of `exclude_tokens`. */
export interface AnyTokensFormat {
  type: "any_tokens";
  /** Default []. */
  exclude_tokens?: TokenRef[];
  /** At most this many tokens. */
  max_tokens?: number;
}

/**
 * Free tokens until one of the trigger tokens begins a tag (whose begin is that token), the tag,
 * then free tokens again: `triggered_tags` on token ids.
 */
export interface TokenTriggeredTagsFormat {
  type: "token_triggered_tags";
  trigger_tokens: TokenRef[];
  tags: TagFormat[];
  /** Tokens the free tokens may not be; default []. */
  exclude_tokens?: TokenRef[];
  /** The output must start with a tag; default false. */
  at_least_one?: boolean;
  /** Nothing after the first tag; default false. */
  stop_after_first?: boolean;
}

/** `dispatch` on token ids: free tokens, and after each rule's token, the rule's format. */
export interface TokenDispatchFormat {
  type: "token_dispatch";
  /** `[token, format]` pairs. */
  rules: Array<[TokenRef, Format]>;
  /** Default true. */
  loop?: boolean;
  /** Tokens the free tokens may not be; default []. */
  exclude_tokens?: TokenRef[];
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
  | TagsWithSeparatorFormat
  | DispatchFormat
  | TokenFormat
  | ExcludeTokenFormat
  | AnyTokensFormat
  | TokenTriggeredTagsFormat
  | TokenDispatchFormat;

/** The `type` names of the format nodes. */
export type FormatType = Format["type"];

/**
 * The top level of xgrammar's structural tag JSON. The parser also reads `{"format": …}`
 * without the type, and the legacy form `{"structures" (or "tags"): [{begin, schema, end}],
 * "triggers": […]}`, which it turns into this one.
 */
export interface StructuralTag {
  type: "structural_tag";
  format: Format;
}
