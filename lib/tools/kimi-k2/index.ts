/**
 * The kimi-k2 family: Kimi K2 and K2.5 (and K2-Thinking's reasoning). Calls sit in a section:
 * `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>`,
 * IDX the call's number in the conversation; reasoning in `<think>…</think>`.
 */
import { constString, jsonSchema, regex, sequence, tag } from "../../format/build.js";
import { layoutFamily } from "../family.js";
import { THINK_CLOSE, THINK_OPEN } from "../qwen3/index.js";

export const SECTION_BEGIN = "<|tool_calls_section_begin|>";
export const SECTION_END = "<|tool_calls_section_end|>";
export const CALL_BEGIN = "<|tool_call_begin|>";
export const ARGUMENT_BEGIN = "<|tool_call_argument_begin|>";
export const CALL_END = "<|tool_call_end|>";

export const KIMI_K2 = layoutFamily({
  name: "kimi-k2",
  models: ["Kimi-K2-Instruct", "Kimi-K2-Thinking", "Kimi-K2.5"],
  markers: [SECTION_BEGIN, SECTION_END, CALL_BEGIN, ARGUMENT_BEGIN, CALL_END, THINK_OPEN, THINK_CLOSE],
  stops: ["<|im_end|>"],
  argumentEncoding: "JSON",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "" },
  sources: ["moonshotai/Kimi-K2-Instruct docs/tool_call_guidance.md and chat_template", "xgrammar builtin kimi", "vLLM kimi_k2_tool_parser"],
  example: `${SECTION_BEGIN}${CALL_BEGIN}functions.get_weather:0${ARGUMENT_BEGIN}{"location": "Paris"}${CALL_END}${SECTION_END}`,
  nameForbidden: [":"],
  layout: {
    contentExcludes: [CALL_BEGIN, SECTION_END],
    contentWithCalls: "before",
    calls: {
      section: { begin: SECTION_BEGIN, end: SECTION_END },
      separator: "",
      trigger: SECTION_BEGIN,
      call: (tool) => tag(`${CALL_BEGIN}functions.${tool.name}:`,
        sequence(regex("0|[1-9][0-9]*"), constString(ARGUMENT_BEGIN), jsonSchema(tool.parameters ?? true)), CALL_END),
    },
  },
  parser: {
    contentWithCalls: "before", contentExcludes: [CALL_BEGIN, SECTION_END], separator: "\n",
    section: { begin: SECTION_BEGIN, end: SECTION_END },
    call: {
      kind: "header",
      header: [{ lit: `${CALL_BEGIN}functions.` }, { name: ":" }, { index: ARGUMENT_BEGIN }],
      args: { kind: "json" },
      close: CALL_END,
    },
  },
});
