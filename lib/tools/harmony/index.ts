/** The harmony family: gpt-oss-20b and gpt-oss-120b (OpenAI's harmony response format). */
import type { ToolCallingFamily } from "../family.js";
import { buildHarmony } from "./builder.js";
import { ANALYSIS, END, HARMONY_MARKERS, HARMONY_STOPS, START } from "./markers.js";
import { HarmonyParser } from "./parser.js";

export const HARMONY: ToolCallingFamily = {
  name: "harmony",
  models: ["gpt-oss-20b", "gpt-oss-120b"],
  markers: HARMONY_MARKERS,
  stop: "<|return|>",
  stops: HARMONY_STOPS,
  argumentEncoding: "JSON",
  reasoning: { open: ANALYSIS, close: `${END}${START}assistant` },
  sources: ["openai/gpt-oss-120b chat_template.jinja", "OpenAI harmony response format guide", "xgrammar builtin harmony", "vLLM openai_tool_parser / harmony utils"],
  example: "<|channel|>analysis<|message|>Need the weather tool.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\": \"Paris\"}",
  build: (request) => buildHarmony(request),
  createParser: (options) => new HarmonyParser(options),
};
