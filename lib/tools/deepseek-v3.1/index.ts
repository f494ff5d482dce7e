/**
 * The deepseek-v3.1 family: DeepSeek-V3.1 (and V3.1-Terminus, V3.2-Exp). A call is
 * `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`, calls back to back inside
 * `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`; thinking mode opens `<think>` in the prompt and the
 * model closes it with `</think>`.
 */
import { jsonSchema, tag } from "../../format/build.js";
import { CALL_BEGIN, CALL_END, CALLS_BEGIN, CALLS_END, DEEPSEEK_TOOL_MARKERS, END_OF_SENTENCE, TOOL_SEP } from "../deepseek-r1/markers.js";
import { layoutFamily } from "../family.js";
import { THINK_CLOSE, THINK_OPEN } from "../qwen3/index.js";

export const DEEPSEEK_V3_1 = layoutFamily({
  name: "deepseek-v3.1",
  models: ["DeepSeek-V3.1", "DeepSeek-V3.1-Terminus", "DeepSeek-V3.2-Exp"],
  markers: [...DEEPSEEK_TOOL_MARKERS, THINK_OPEN, THINK_CLOSE],
  stops: [END_OF_SENTENCE],
  argumentEncoding: "JSON",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "" },
  sources: ["deepseek-ai/DeepSeek-V3.1 tokenizer_config.json chat_template", "xgrammar builtin deepseek_v3_1", "vLLM deepseekv31_tool_parser"],
  example: `${CALLS_BEGIN}${CALL_BEGIN}get_weather${TOOL_SEP}{"location": "Paris"}${CALL_END}${CALLS_END}`,
  nameForbidden: [TOOL_SEP],
  layout: {
    contentExcludes: [CALL_BEGIN, CALLS_END],
    contentWithCalls: "before",
    calls: {
      section: { begin: CALLS_BEGIN, end: CALLS_END },
      separator: "",
      trigger: CALLS_BEGIN,
      call: (tool) => tag(`${CALL_BEGIN}${tool.name}${TOOL_SEP}`, jsonSchema(tool.parameters ?? true), CALL_END),
    },
  },
  parser: {
    contentWithCalls: "before", contentExcludes: [CALL_BEGIN, CALLS_END], separator: "\n",
    section: { begin: CALLS_BEGIN, end: CALLS_END },
    call: { kind: "header", header: [{ lit: CALL_BEGIN }, { name: TOOL_SEP }], args: { kind: "json" }, close: CALL_END },
  },
});
