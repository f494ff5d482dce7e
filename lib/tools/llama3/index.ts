/**
 * The llama3 family: Llama 3.1–3.3 JSON tool calling. A message is either content or calls:
 * `{"name": "NAME", "parameters": {…}}`, several separated by `; ` (vLLM's llama3_json reading);
 * the message ends with `<|eot_id|>` (or `<|eom_id|>`). The content may not start with `{`,
 * which is how the two are told apart.
 */
import { jsonSchema, tag } from "../../format/build.js";
import { jsonName, layoutFamily } from "../family.js";

export const LLAMA3_STOPS: readonly string[] = ["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"];

export const LLAMA3 = layoutFamily({
  name: "llama3",
  models: ["Llama-3.1-8B/70B/405B-Instruct", "Llama-3.2-1B/3B-Instruct", "Llama-3.3-70B-Instruct"],
  markers: [],
  stops: LLAMA3_STOPS,
  argumentEncoding: "JSON",
  reasoning: null,
  sources: ["Llama-3.1-8B-Instruct tokenizer_config.json chat_template (JSON tool calls)", "llama.com prompt format docs for 3.1", "xgrammar builtin llama", "vLLM llama3_json tool parser (`; ` between calls)"],
  example: '{"name": "get_weather", "parameters": {"location": "Paris"}}',
  nameForbidden: [],
  layout: {
    contentExcludes: [],
    contentWithCalls: "alone",
    calls: {
      separator: "; ",
      trigger: "",
      call: (tool) => tag(`{"name": ${jsonName(tool.name)}, "parameters": `, jsonSchema(tool.parameters ?? true), "}"),
    },
  },
  parser: {
    contentWithCalls: "alone", contentExcludes: [], separator: ";",
    call: { kind: "envelope", open: "", close: "", argumentKeys: ["parameters", "arguments"] },
  },
});
