/**
 * The minimax-m2 family: MiniMax-M2, M2.1, M2.5, M2.7. Calls in
 * `<minimax:tool_call>\n<invoke name="NAME">\n<parameter name="K">V</parameter>\n…</invoke>\n</minimax:tool_call>`
 * (style minimax_xml); the reasoning `<think>…</think>\n\n` comes first (the prompt opens `<think>\n`).
 */
import { FLAT_STYLES } from "../../compile/styles/index.js";
import { jsonSchema, tag } from "../../format/build.js";
import { layoutFamily } from "../family.js";
import { THINK_CLOSE, THINK_OPEN } from "../qwen3/index.js";

const BLOCK_OPEN = "<minimax:tool_call>";
const BLOCK_CLOSE = "</minimax:tool_call>";
const INVOKE = '<invoke name="';
const INVOKE_CLOSE = "</invoke>";

export const MINIMAX_M2 = layoutFamily({
  name: "minimax-m2",
  models: ["MiniMax-M2", "MiniMax-M2.1", "MiniMax-M2.5", "MiniMax-M2.7"],
  markers: [BLOCK_OPEN, BLOCK_CLOSE, THINK_OPEN, THINK_CLOSE],
  stops: ["[e~["],
  argumentEncoding: "minimax_xml",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "\n\n" },
  sources: ["MiniMaxAI/MiniMax-M2 chat_template.jinja", "xgrammar builtin minimax", "vLLM minimax_m2_tool_parser"],
  example: `${BLOCK_OPEN}\n${INVOKE}get_weather">\n<parameter name="location">Paris</parameter>\n${INVOKE_CLOSE}\n${BLOCK_CLOSE}`,
  nameForbidden: ['"'],
  layout: {
    contentExcludes: [BLOCK_CLOSE, INVOKE],
    contentWithCalls: "before",
    calls: {
      section: { begin: `${BLOCK_OPEN}\n`, end: BLOCK_CLOSE },
      separator: "",
      trigger: BLOCK_OPEN,
      call: (tool) => tag(`${INVOKE}${tool.name}">\n`, jsonSchema(tool.parameters ?? true, { style: "minimax_xml" }), `${INVOKE_CLOSE}\n`),
    },
  },
  parser: {
    contentWithCalls: "before", contentExcludes: [BLOCK_CLOSE, INVOKE], separator: "\n",
    section: { begin: `${BLOCK_OPEN}\n`, end: BLOCK_CLOSE },
    call: { kind: "header", header: [{ lit: INVOKE }, { name: '">' }], args: { kind: "flat", style: FLAT_STYLES.minimax_xml }, close: `${INVOKE_CLOSE}\n` },
  },
});
