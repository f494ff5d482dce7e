/**
 * Cases of xgrammar's tests/python/test_structural_tag_parser.py: formats carrying `parser_tag`
 * (the capture annotations of its Python output parser) load here and match the outputs its test
 * parses; what it extracts from them is that parser's business (tagmask parses per family), so
 * only the verdicts are checked. Also the annotation written out as `null`, and malformed ones.
 */
import { anyText, json, tag, type RefusedCase, type TagCase } from "./cases.js";

const capture = (capture_id: string, combine?: string) => ({ parser_tag: combine === undefined ? { capture_id } : { capture_id, combine } });
const toolCall = { type: "object", properties: { name: { type: "string" }, arguments: { type: "object" } }, required: ["name", "arguments"] };
const message = { type: "object", properties: { role: { type: "string" }, content: { type: "string" } }, required: ["role", "content"] };

export const STRUCTURAL_TAG_PARSER_CASES: TagCase[] = [
  {
    name: "test_parse_triggered_tags_tool_calls",
    format: {
      type: "triggered_tags",
      triggers: ["<tool_call>"],
      tags: [tag("<tool_call>", json(toolCall, capture("item")), "</tool_call>")],
      ...capture("tool_calls", "append"),
    },
    accepted: ['<tool_call>{"name": "weather", "arguments": {"location": "sf"}}</tool_call><tool_call>{"name": "time", "arguments": {}}</tool_call>'],
    rejected: ['<tool_call>{"name": "weather"}</tool_call>'],
  },
  {
    name: "test_parse_tags_with_separator_messages",
    format: {
      type: "tags_with_separator",
      tags: [tag("<message>", json(message, capture("item")), "</message>")],
      separator: "\n",
      ...capture("messages", "append"),
    },
    accepted: ['<message>{"role": "assistant", "content": "Hi there"}</message>\n<message>{"role": "tool", "content": "Done"}</message>'],
    rejected: ['<message>{"role": "assistant", "content": "Hi there"}</message><message>{"role": "tool", "content": "Done"}</message>'],
  },
  {
    name: "test_parse_concat_from_triggered_segments",
    format: { type: "triggered_tags", triggers: ["<part>"], tags: [tag("<part>", anyText(capture("item")), "</part>")], ...capture("content", "concat") },
    accepted: ["<part>Hello</part>\n<part>World</part>"],
    rejected: ["<part>Hello"],
  },
  {
    name: "test_parse_nested_paths_from_tag",
    format: { ...tag("<message>", anyText(capture("content")), "</message>"), ...capture("message") },
    accepted: ["<message>Hi</message>"],
    rejected: ["<message>Hi"],
  },
  {
    name: "parser_tag null, as xgrammar's models write it when absent",
    format: { type: "structural_tag", format: { type: "const_string", value: "hi", parser_tag: null } },
    accepted: ["hi"],
    rejected: ["h"],
  },
];

export const STRUCTURAL_TAG_PARSER_REFUSED: RefusedCase[] = [
  { name: "parser_tag not an object", format: { type: "const_string", value: "x", parser_tag: "item" }, error: "format.parser_tag: expected a parser tag {capture_id, combine?} or null" },
  { name: "parser_tag without capture_id", format: { type: "const_string", value: "x", parser_tag: { combine: "append" } }, error: "format.parser_tag.capture_id: missing required field of a parser tag" },
  { name: "parser_tag with an unknown field", format: { type: "const_string", value: "x", parser_tag: { capture_id: "a", combien: "append" } }, error: "format.parser_tag.combien: unknown field" },
];
