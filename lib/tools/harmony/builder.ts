/**
 * The harmony builder (gpt-oss). Generation starts after the prompt's `<|start|>assistant`; the
 * model then writes messages: an optional analysis message (its reasoning) closed by `<|end|>`
 * and followed by `<|start|>assistant`, then either the final answer
 * `<|channel|>final<|message|>TEXT` (generation stops at `<|return|>`) or one tool call
 * `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}` (generation stops at
 * `<|call|>`, so one call per generation: parallel_tool_calls changes nothing). The recipient may
 * also come before the channel (` to=functions.NAME<|channel|>commentary <|constrain|>json`), as
 * gpt-oss sometimes writes and xgrammar's builtin accepts.
 */
import { anyText, constString, jsonSchema, optional, or, sequence, structuralTag, tag } from "../../format/build.js";
import type { Format, StructuralTag } from "../../format/types.js";
import { checkToolNames } from "../family.js";
import type { NormalizedTool, NormalizedToolRequest } from "../normalize.js";
import { cachedToolFormat } from "../tool-format-cache.js";
import { ANALYSIS, CALL, CHANNEL, CONSTRAIN, END, FINAL, HARMONY_MARKERS, MESSAGE, RETURN, START } from "./markers.js";

const TEXT_EXCLUDES = [...HARMONY_MARKERS, RETURN, CALL];

function call(tool: NormalizedTool): Format {
  const args = tool.parameters ?? true;
  return or(
    tag(`${CHANNEL}commentary to=functions.${tool.name} ${CONSTRAIN}json${MESSAGE}`, jsonSchema(args), ""),
    tag(` to=functions.${tool.name}${CHANNEL}commentary ${CONSTRAIN}json${MESSAGE}`, jsonSchema(args), ""),
  );
}

/** The harmony structural tag, or null when nothing constrains the output. */
export function buildHarmony(request: NormalizedToolRequest): StructuralTag | null {
  const { mode, answer, reasoning } = request;
  if (mode === "none" && answer === null) return null;
  checkToolNames("harmony", request.tools, [" ", "<", "\n"], []);
  const elements: Format[] = [];
  const thought = anyText({ excludes: TEXT_EXCLUDES });
  const next = constString(`${START}assistant`);
  if (reasoning === "think") elements.push(tag("", thought, END), next);
  else if (reasoning === "auto") elements.push(optional(sequence(tag(ANALYSIS, thought, END), next)));
  const final = sequence(constString(FINAL), answer ?? anyText({ excludes: TEXT_EXCLUDES }));
  // A tool's call depends on the tool alone: built once per tool content (tool-format-cache.ts).
  const calls = request.tools.map((tool) => cachedToolFormat("harmony call", tool, call));
  if (mode === "none") elements.push(final);
  else if (mode === "required") elements.push(calls.length === 1 ? calls[0]! : or(...calls));
  else elements.push(or(final, ...calls));
  return structuralTag(elements.length === 1 ? elements[0]! : sequence(...elements));
}
