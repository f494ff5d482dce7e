/** The hermes family: Hermes 2 Pro / Hermes 3, Qwen 2.5 Instruct. */
import { layoutFamily } from "../family.js";
import { HERMES_CALLS } from "./builder.js";
import { HERMES_MARKERS, HERMES_STOPS, TOOL_CALL_CLOSE } from "./markers.js";
import { HERMES_CALL_SYNTAX } from "./parser.js";

export const HERMES = layoutFamily({
  name: "hermes",
  models: ["Hermes 2 Pro", "Hermes 3", "Qwen2.5-Instruct", "Qwen2.5-Coder-Instruct"],
  markers: HERMES_MARKERS,
  stops: HERMES_STOPS,
  argumentEncoding: "JSON",
  reasoning: null,
  sources: ["Qwen2.5-7B-Instruct tokenizer_config.json chat_template", "NousResearch Hermes-2-Pro tool_use template", "vLLM hermes_tool_parser"],
  example: 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>',
  nameForbidden: [],
  layout: { contentExcludes: [TOOL_CALL_CLOSE], calls: HERMES_CALLS, contentWithCalls: "before" },
  parser: { contentWithCalls: "before", contentExcludes: [TOOL_CALL_CLOSE], separator: "\n", call: HERMES_CALL_SYNTAX },
});
