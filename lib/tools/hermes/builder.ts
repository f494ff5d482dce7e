/**
 * Hermes-style calls: `<tool_call>\n{"name": "NAME", "arguments": {…}}\n</tool_call>`, calls
 * separated by `\n`, after the content. Shared by hermes, qwen3 and exaone (which differ in
 * whitespace and reasoning).
 */
import { jsonSchema, tag } from "../../format/build.js";
import type { TagFormat } from "../../format/types.js";
import { jsonName } from "../family.js";
import type { CallsLayout } from "../layout.js";
import type { NormalizedTool } from "../normalize.js";
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./markers.js";

/** The calls layout of a Hermes-style family; `nl` is the newline the template puts inside the tag ("" for EXAONE). */
export function hermesCalls(nl: string): CallsLayout {
  return {
    separator: "\n",
    trigger: TOOL_CALL_OPEN,
    call: (tool: NormalizedTool): TagFormat =>
      tag(`${TOOL_CALL_OPEN}${nl}{"name": ${jsonName(tool.name)}, "arguments": `, jsonSchema(tool.parameters ?? true), `}${nl}${TOOL_CALL_CLOSE}`),
  };
}

export const HERMES_CALLS = hermesCalls("\n");
