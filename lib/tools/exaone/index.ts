/**
 * The exaone family: EXAONE 4.0. `<tool_call>{"name": …, "arguments": …}</tool_call>` with no
 * newlines inside the tag, calls separated by `\n`; reasoning `<think>\n…\n</think>\n\n` (the
 * prompt opens `<think>\n` in reasoning mode); turns end with `[|endofturn|]`.
 */
import { layoutFamily } from "../family.js";
import { hermesCalls } from "../hermes/builder.js";
import { HERMES_MARKERS } from "../hermes/markers.js";
import { THINK_CLOSE, THINK_OPEN } from "../qwen3/index.js";

export const EXAONE = layoutFamily({
  name: "exaone",
  models: ["EXAONE-4.0-32B", "EXAONE-4.0-1.2B", "EXAONE-4.0.1"],
  markers: [...HERMES_MARKERS, THINK_OPEN, THINK_CLOSE],
  stops: ["[|endofturn|]"],
  argumentEncoding: "JSON",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "\n\n" },
  sources: ["LGAI-EXAONE/EXAONE-4.0-32B chat_template (tool_call without inner newlines, [|endofturn|])", "BFCL Exaone4FCHandler"],
  example: '<tool_call>{"name": "get_weather", "arguments": {"location": "Paris"}}</tool_call>',
  nameForbidden: [],
  layout: { contentExcludes: ["</tool_call>"], calls: hermesCalls(""), contentWithCalls: "before" },
  parser: {
    contentWithCalls: "before", contentExcludes: ["</tool_call>"], separator: "\n",
    call: { kind: "envelope", open: "<tool_call>\n", close: "\n</tool_call>", argumentKeys: ["arguments"] },
  },
});
