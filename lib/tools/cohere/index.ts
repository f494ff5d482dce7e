/**
 * The cohere family: Command A (reasoning / tool-use releases with the cofl markup). Reasoning in
 * `<|START_THINKING|>…<|END_THINKING|>`; calls in `<cofl:tool_calls>` as
 * `<cofl:tool_call id="N" name="NAME">` + nested values (style cohere_xml) + `</cofl:tool_call>`.
 */
import { constString, jsonSchema, regex, sequence, tag } from "../../format/build.js";
import { layoutFamily } from "../family.js";

const THINK_OPEN = "<|START_THINKING|>";
const THINK_CLOSE = "<|END_THINKING|>";
const BLOCK_OPEN = "<cofl:tool_calls>";
const BLOCK_CLOSE = "</cofl:tool_calls>";
const CALL_OPEN = '<cofl:tool_call id="';
const CALL_CLOSE = "</cofl:tool_call>";

export const COHERE_FAMILY = layoutFamily({
  name: "cohere",
  models: ["Command A (cofl tool-call releases)", "Command A Reasoning"],
  markers: [THINK_OPEN, THINK_CLOSE],
  stops: ["<|END_OF_TURN_TOKEN|>"],
  argumentEncoding: "cohere_xml",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "" },
  sources: ["xgrammar cohere_xml converter (cpp/converter_ext/cohere.cc)", "xgrammar-rs cohere builder", "Cohere's cmd5 nested-xml cofl parser (recursive <cofl:value> nodes)"],
  example: `${BLOCK_OPEN}${CALL_OPEN}0" name="get_weather"><cofl:value name="location" type="raw">Paris</cofl:value>${CALL_CLOSE}${BLOCK_CLOSE}`,
  nameForbidden: ['"'],
  layout: {
    contentExcludes: [BLOCK_CLOSE, CALL_OPEN],
    contentWithCalls: "before",
    calls: {
      section: { begin: BLOCK_OPEN, end: BLOCK_CLOSE },
      separator: "",
      trigger: BLOCK_OPEN,
      call: (tool) => tag(CALL_OPEN, sequence(regex("0|[1-9][0-9]*"), constString(`" name="${tool.name}">`),
        jsonSchema(tool.parameters ?? true, { style: "cohere_xml" })), CALL_CLOSE),
    },
  },
  parser: {
    contentWithCalls: "before", contentExcludes: [BLOCK_CLOSE, CALL_OPEN], separator: "\n",
    section: { begin: BLOCK_OPEN, end: BLOCK_CLOSE },
    call: { kind: "header", header: [{ lit: CALL_OPEN }, { index: '" name="' }, { name: '">' }], args: { kind: "cohere" }, close: CALL_CLOSE },
  },
});
