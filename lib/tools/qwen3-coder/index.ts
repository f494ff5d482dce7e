/**
 * The qwen3-coder family: Qwen3-Coder, Qwen3-Coder-Next, Qwen3.5 / Qwen3.6. Calls are
 * `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…</function>\n</tool_call>`:
 * the arguments in style qwen_xml (string values raw, others JSON), calls separated by `\n`;
 * reasoning (Qwen3.5/3.6) in `<think>…</think>\n\n`.
 */
import { jsonSchema, tag } from "../../format/build.js";
import { FLAT_STYLES } from "../../compile/styles/index.js";
import { layoutFamily } from "../family.js";
import { HERMES_MARKERS, HERMES_STOPS } from "../hermes/markers.js";
import { THINK_CLOSE, THINK_OPEN } from "../qwen3/index.js";

const FUNCTION_CLOSE = "</function>";

export const QWEN3_CODER = layoutFamily({
  name: "qwen3-coder",
  models: ["Qwen3-Coder-480B-A35B / 30B-A3B", "Qwen3-Coder-Next", "Qwen3.5", "Qwen3.6"],
  markers: [...HERMES_MARKERS, THINK_OPEN, THINK_CLOSE],
  stops: HERMES_STOPS,
  argumentEncoding: "qwen_xml",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "\n\n" },
  sources: ["Qwen3-Coder-480B-A35B-Instruct chat_template.jinja", "xgrammar builtin qwen_3_coder / qwen_3_5", "vLLM qwen3coder_tool_parser (one newline stripped around values)"],
  example: "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>\n</tool_call>",
  nameForbidden: [">", "\n"],
  layout: {
    contentExcludes: ["</tool_call>"],
    contentWithCalls: "before",
    calls: {
      separator: "\n",
      trigger: "<tool_call>",
      // The arguments' own whitespace takes the newline before </function> (none when there are no arguments).
      call: (tool) => tag(`<tool_call>\n<function=${tool.name}>\n`,
        jsonSchema(tool.parameters ?? true, { style: "qwen_xml" }), `${FUNCTION_CLOSE}\n</tool_call>`),
    },
  },
  parser: {
    contentWithCalls: "before", contentExcludes: ["</tool_call>"], separator: "\n",
    call: {
      kind: "header",
      header: [{ lit: "<tool_call>\n<function=" }, { name: ">" }],
      args: { kind: "flat", style: FLAT_STYLES.qwen_xml },
      close: `${FUNCTION_CLOSE}\n</tool_call>`,
    },
  },
});
