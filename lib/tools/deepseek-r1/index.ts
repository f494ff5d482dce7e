/**
 * The deepseek-r1 family: DeepSeek-R1 and R1-0528 (and V3-0324's tool format). A call names its
 * type and tool, then the arguments in a fenced JSON block:
 * `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>`, calls
 * separated by `\n` inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`; reasoning in
 * `<think>…</think>\n\n` (the prompt usually opens `<think>\n`).
 */
import { jsonSchema, tag } from "../../format/build.js";
import { layoutFamily } from "../family.js";
import { THINK_CLOSE, THINK_OPEN } from "../qwen3/index.js";
import { CALL_BEGIN, CALL_END, CALLS_BEGIN, CALLS_END, DEEPSEEK_TOOL_MARKERS, END_OF_SENTENCE, TOOL_SEP } from "./markers.js";

export const DEEPSEEK_R1 = layoutFamily({
  name: "deepseek-r1",
  models: ["DeepSeek-R1", "DeepSeek-R1-0528", "DeepSeek-V3-0324"],
  markers: [...DEEPSEEK_TOOL_MARKERS, THINK_OPEN, THINK_CLOSE],
  stops: [END_OF_SENTENCE],
  argumentEncoding: "JSON (in a ```json fence)",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "\n\n" },
  sources: ["deepseek-ai/DeepSeek-R1-0528 tokenizer_config.json chat_template", "xgrammar builtin deepseek_r1", "vLLM deepseekv3_tool_parser"],
  example: `${CALLS_BEGIN}${CALL_BEGIN}function${TOOL_SEP}get_weather\n\`\`\`json\n{"location": "Paris"}\n\`\`\`${CALL_END}${CALLS_END}`,
  nameForbidden: ["\n"],
  layout: {
    contentExcludes: [CALL_BEGIN, CALLS_END],
    contentWithCalls: "before",
    calls: {
      section: { begin: CALLS_BEGIN, end: CALLS_END },
      separator: "\n",
      trigger: CALLS_BEGIN,
      call: (tool) => tag(`${CALL_BEGIN}function${TOOL_SEP}${tool.name}\n\`\`\`json\n`, jsonSchema(tool.parameters ?? true), `\n\`\`\`${CALL_END}`),
    },
  },
  parser: {
    contentWithCalls: "before", contentExcludes: [CALL_BEGIN, CALLS_END], separator: "\n",
    section: { begin: CALLS_BEGIN, end: CALLS_END },
    call: {
      kind: "header",
      header: [{ lit: `${CALL_BEGIN}function${TOOL_SEP}` }, { nameTo: ["```"] }, { lit: "\n```json\n" }],
      args: { kind: "json" },
      close: `\n\`\`\`\n${CALL_END}`,
    },
  },
});
