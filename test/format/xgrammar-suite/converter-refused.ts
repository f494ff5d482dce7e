/**
 * Structural tags xgrammar's tests/python/test_structural_tag_converter.py expects to be refused
 * at load (its JSON format errors and analyzer errors): tagmask refuses each too, with its own
 * words, given here.
 */
import { anyText, str, tag, type RefusedCase } from "./cases.js";

const hello = str("hello");
const startTag = { begin: "start", content: hello, end: "end" };
const st = (format: unknown) => ({ type: "structural_tag", format });

export const CONVERTER_REFUSED: RefusedCase[] = [
  { name: "JSON that does not parse", format: '{"type": "structural_tag", "format": {"type": "const_string", "value": "hello"', error: "format: invalid JSON at line 1" },
  { name: "not an object", format: '"not_an_object"', error: "expected a structural tag object {\"type\": \"structural_tag\"" },
  { name: "a wrong top-level type", format: { type: "wrong_type", format: hello }, error: "format.type: unknown format type \"wrong_type\"" },
  { name: "no format", format: { type: "structural_tag" }, error: "format: missing required field of a structural tag" },
  { name: "a format that is not an object", format: st("not_an_object"), error: "format: expected a format object" },
  { name: "a type that is not a string", format: st({ type: 123, value: "hello" }), error: "format.type: expected a format type name" },
  { name: "an unknown type", format: st({ type: "unknown_format" }), error: "format.type: unknown format type \"unknown_format\"" },
  { name: "a typeless format xgrammar cannot infer", format: st({ invalid_field: "value" }), error: "format.type: missing required field of a format" },
  { name: "const_string without value", format: st({ type: "const_string" }), error: "format.value: missing required field of a const_string format" },
  { name: "const_string with a number", format: st({ type: "const_string", value: 123 }), error: "format.value: expected a string" },
  { name: "json_schema without json_schema", format: st({ type: "json_schema" }), error: "format.json_schema: missing required field of a json_schema format" },
  { name: "json_schema with a string", format: st({ type: "json_schema", json_schema: "invalid" }), error: "format.json_schema: expected a JSON Schema" },
  { name: "sequence without elements", format: st({ type: "sequence" }), error: "format.elements: missing required field of a sequence format" },
  { name: "sequence elements not a list", format: st({ type: "sequence", elements: "not_array" }), error: "format.elements: expected a non-empty list of formats" },
  { name: "sequence with no elements", format: st({ type: "sequence", elements: [] }), error: "format.elements: expected a non-empty list of formats" },
  { name: "or without elements", format: st({ type: "or" }), error: "format.elements: missing required field of a or format" },
  { name: "or elements not a list", format: st({ type: "or", elements: "not_array" }), error: "format.elements: expected a non-empty list of formats" },
  { name: "or with no elements", format: st({ type: "or", elements: [] }), error: "format.elements: expected a non-empty list of formats" },
  { name: "tag without begin", format: st({ type: "tag", content: hello, end: "end" }), error: "format.begin: missing required field of a tag" },
  { name: "tag begin a number", format: st({ type: "tag", begin: 123, content: hello, end: "end" }), error: "format.begin: expected a string or a token {\"type\": \"token\"" },
  { name: "tag without content", format: st({ type: "tag", begin: "start", end: "end" }), error: "format.content: missing required field of a tag" },
  { name: "tag without end", format: st({ type: "tag", begin: "start", content: hello }), error: "format.end: missing required field of a tag" },
  { name: "tag end a number", format: st({ type: "tag", begin: "start", content: hello, end: 123 }), error: "format.end: expected a string" },
  { name: "triggered_tags without triggers", format: st({ type: "triggered_tags", tags: [startTag] }), error: "format.triggers: missing required field of a triggered_tags format" },
  { name: "triggered_tags triggers not a list", format: st({ type: "triggered_tags", triggers: "not_array", tags: [startTag] }), error: "format.triggers: expected a non-empty list of non-empty strings" },
  { name: "triggered_tags with no triggers", format: st({ type: "triggered_tags", triggers: [], tags: [startTag] }), error: "format.triggers: expected a non-empty list of non-empty strings" },
  { name: "triggered_tags trigger a number", format: st({ type: "triggered_tags", triggers: [123], tags: [startTag] }), error: "format.triggers[0]: expected a non-empty string" },
  { name: "triggered_tags empty trigger", format: st({ type: "triggered_tags", triggers: [""], tags: [startTag] }), error: "format.triggers[0]: expected a non-empty string" },
  { name: "triggered_tags without tags", format: st({ type: "triggered_tags", triggers: ["trigger"] }), error: "format.tags: missing required field of a triggered_tags format" },
  { name: "triggered_tags tags not a list", format: st({ type: "triggered_tags", triggers: ["trigger"], tags: "not_array" }), error: "format.tags: expected a non-empty list of tags" },
  { name: "triggered_tags with no tags", format: st({ type: "triggered_tags", triggers: ["trigger"], tags: [] }), error: "format.tags: expected a non-empty list of tags" },
  { name: "triggered_tags at_least_one not a boolean", format: st({ type: "triggered_tags", triggers: ["start"], tags: [startTag], at_least_one: "not_boolean" }), error: "format.at_least_one: expected true or false" },
  { name: "triggered_tags stop_after_first not a boolean", format: st({ type: "triggered_tags", triggers: ["start"], tags: [startTag], stop_after_first: "not_boolean" }), error: "format.stop_after_first: expected true or false" },
  { name: "tags_with_separator without tags", format: st({ type: "tags_with_separator", separator: "sep" }), error: "format.tags: missing required field of a tags_with_separator format" },
  { name: "tags_with_separator tags not a list", format: st({ type: "tags_with_separator", tags: "not_array", separator: "sep" }), error: "format.tags: expected a non-empty list of tags" },
  { name: "tags_with_separator with no tags", format: st({ type: "tags_with_separator", tags: [], separator: "sep" }), error: "format.tags: expected a non-empty list of tags" },
  { name: "tags_with_separator without separator", format: st({ type: "tags_with_separator", tags: [startTag] }), error: "format.separator: missing required field of a tags_with_separator form" },
  { name: "tags_with_separator separator a number", format: st({ type: "tags_with_separator", tags: [startTag], separator: 123 }), error: "format.separator: expected a string" },
  { name: "tags_with_separator at_least_one not a boolean", format: st({ type: "tags_with_separator", tags: [startTag], separator: "sep", at_least_one: "not_boolean" }), error: "format.at_least_one: expected true or false" },
  { name: "tags_with_separator stop_after_first not a boolean", format: st({ type: "tags_with_separator", tags: [startTag], separator: "sep", stop_after_first: "not_boolean" }), error: "format.stop_after_first: expected true or false" },
  { name: "an unknown style", format: st({ type: "json_schema", json_schema: { type: "string" }, style: "not_string" }), error: "format.style: unknown argument style \"not_string\"" },
  { name: "repeat min below 0", format: st({ type: "repeat", min: -1, max: 5, content: str("x") }), error: "format.min: expected a non-negative integer at most 2147483647" },
  { name: "repeat min above max", format: st({ type: "repeat", min: 5, max: 3, content: str("x") }), error: "format.max: expected -1" },
  { name: "repeat max below -1", format: st({ type: "repeat", min: 0, max: -2, content: str("x") }), error: "format.max: expected -1" },
  { name: "unbounded content and an empty end", format: st(tag("start", anyText(), "")), error: "format.end: expected at least one non-empty end string: the content" },
  { name: "a tag that two triggers begin", format: st({ type: "triggered_tags", triggers: ["A", "AB"], tags: [tag("ABC", hello, "end")] }), error: "format.tags[0].begin: expected a begin that starts with exactly one tr" },
  { name: "a tag that no trigger begins", format: st({ type: "triggered_tags", triggers: ["X", "Y"], tags: [tag("ABC", hello, "end")] }), error: "format.triggers[0]: expected a prefix of at least one tag's begin [\"AB" },
  {
    name: "tags_with_separator in a tag with an empty end",
    format: st(tag("<start>", { type: "tags_with_separator", tags: [tag("<start2>", str("[TEXT]"), "<end2>")], separator: "<sep>" }, "")),
    error: "format.end: expected at least one non-empty end string",
  },
  { name: "test_multiple_end_tokens_empty_array_error", format: st(tag("BEG", str("X"), [])), error: "format.end: expected a string" },
  { name: "test_multiple_end_tokens_unlimited_empty_error", format: st(tag("BEG", anyText(), ["", ""])), error: "format.end: expected at least one non-empty end string: the content" },
  { name: "test_token_format_missing_token_field", format: st({ type: "token" }), error: "format.token: missing required field of a token format" },
  { name: "test_exclude_token_format_invalid_exclude_tokens_type", format: st({ type: "exclude_token", exclude_tokens: "bad" }), error: "format.exclude_tokens: expected a list of token ids and token texts" },
  { name: "test_any_tokens_format_invalid_exclude_type", format: st({ type: "any_tokens", exclude_tokens: "bad" }), error: "format.exclude_tokens: expected a list of token ids and token texts" },
  ...["any_text", "any_tokens"].flatMap((type) => [-1, 1.5, "invalid", 2 ** 31].map((bad): RefusedCase => ({
    name: `test_length_budget_invalid[${type}, max_tokens=${JSON.stringify(bad)}]`, format: st({ type, max_tokens: bad }), error: "format.max_tokens: expected a non-negative integer at most 2147483647",
  }))),
  ...[-1, 1.5, "invalid", 2 ** 31].map((bad): RefusedCase => ({ name: `test_any_text_max_chars_invalid[${JSON.stringify(bad)}]`, format: st({ type: "any_text", max_chars: bad }), error: "format.max_chars: expected a non-negative integer at most 2147483647" })),
  { name: "test_token_triggered_tags_missing_triggers", format: st({ type: "token_triggered_tags", tags: [] }), error: "format.trigger_tokens: missing required field of a token_triggered_tag" },
  { name: "test_token_triggered_tags_missing_tags", format: st({ type: "token_triggered_tags", trigger_tokens: [1] }), error: "format.tags: missing required field of a token_triggered_tags format" },
  {
    name: "test_triggered_tags_rejects_token_begin",
    format: st({ type: "triggered_tags", triggers: ["<func>"], tags: [tag({ type: "token", token: 10 }, str("X"), "</func>")] }),
    error: "format.tags[0].begin: expected a string",
  },
  {
    name: "test_token_triggered_tags_rejects_string_begin",
    format: st({ type: "token_triggered_tags", trigger_tokens: [10], tags: [tag("<func>", str("X"), { type: "token", token: 99 })] }),
    error: "format.tags[0].begin: expected a token",
  },
  { name: "test_token_format_rejects_float", format: st({ type: "token", token: 3.5 }), error: "format.token: expected a token id" },
];
