/**
 * The qwen3 family: Qwen3 and Qwen3-Next. Hermes-style calls, reasoning in `<think>…</think>`
 * followed by a blank line (the template's `</think>\n\n`).
 */
import { layoutFamily } from "../family.js";
import { HERMES_CALLS } from "../hermes/builder.js";
import { HERMES_MARKERS, HERMES_STOPS } from "../hermes/markers.js";
import { HERMES_CALL_SYNTAX } from "../hermes/parser.js";

export const THINK_OPEN = "<think>";
export const THINK_CLOSE = "</think>";

export const QWEN3 = layoutFamily({
  name: "qwen3",
  models: ["Qwen3 (0.6B–235B)", "Qwen3-Next", "QwQ-32B"],
  markers: [...HERMES_MARKERS, THINK_OPEN, THINK_CLOSE],
  stops: HERMES_STOPS,
  argumentEncoding: "JSON",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "\n\n" },
  sources: ["Qwen3-8B tokenizer_config.json chat_template", "xgrammar builtin qwen_3", "vLLM hermes_tool_parser, qwen3 reasoning parser"],
  example: '<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>',
  nameForbidden: [],
  layout: { contentExcludes: ["</tool_call>"], calls: HERMES_CALLS, contentWithCalls: "before" },
  parser: { contentWithCalls: "before", contentExcludes: ["</tool_call>"], separator: "\n", call: HERMES_CALL_SYNTAX },
});
