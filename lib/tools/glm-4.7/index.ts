/**
 * The glm-4.7 family: GLM-4.5, GLM-4.6, GLM-4.7 and GLM-5. A call is
 * `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>` (style glm_xml;
 * GLM-4.5/4.6 put a newline before each tag, which the style's whitespace allows); calls back
 * to back; reasoning in `<think>…</think>`.
 */
import { FLAT_STYLES } from "../../compile/styles/index.js";
import { jsonSchema, tag } from "../../format/build.js";
import { layoutFamily } from "../family.js";
import { THINK_CLOSE, THINK_OPEN } from "../qwen3/index.js";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";
const ARG_TOKENS = ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"];

export const GLM_4_7 = layoutFamily({
  name: "glm-4.7",
  models: ["GLM-4.5", "GLM-4.5-Air", "GLM-4.6", "GLM-4.7", "GLM-5"],
  markers: [OPEN, CLOSE, ...ARG_TOKENS, THINK_OPEN, THINK_CLOSE],
  stops: ["<|user|>", "<|observation|>", "<|endoftext|>"],
  argumentEncoding: "glm_xml",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "" },
  sources: ["zai-org/GLM-4.7 chat_template.jinja (no newlines between tags; GLM-4.5 adds them)", "xgrammar builtin glm_4_7", "vLLM glm4_moe_tool_parser"],
  example: "<tool_call>get_weather<arg_key>location</arg_key><arg_value>Paris</arg_value></tool_call>",
  nameForbidden: ["<", " "],
  layout: {
    contentExcludes: [CLOSE, ...ARG_TOKENS],
    contentWithCalls: "before",
    calls: {
      separator: "",
      trigger: OPEN,
      call: (tool) => tag(`${OPEN}${tool.name}`, jsonSchema(tool.parameters ?? true, { style: "glm_xml" }), CLOSE),
    },
  },
  parser: {
    contentWithCalls: "before", contentExcludes: [CLOSE, ...ARG_TOKENS], separator: "\n",
    call: { kind: "header", header: [{ lit: OPEN }, { nameTo: ["<arg_key>", CLOSE] }], args: { kind: "flat", style: FLAT_STYLES.glm_xml }, close: CLOSE },
  },
});
