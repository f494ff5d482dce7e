/**
 * The Kimi K3 builder: a normalized tool request → the structural tag of the model's message
 * (spec: outline.md and docs/tool-calling.md; the seed outlines are its golden output).
 *
 * The message, after the part the reasoning mode leaves to the prompt:
 *
 * - `final_output_only`: `optional <|open|>response<|sep|>`, the response text ended by
 *   `<|close|>response<|sep|>`, then the tools channel (optional with `auto` tool choice);
 * - `think`: the rest of the think channel (text ended by `<|close|>think<|sep|>`), then
 * - `auto`: an optional whole think channel, then
 *   - `auto` tool choice: a response channel followed by an optional tools channel, or a tools
 *     channel alone (written `or(sequence(optional RESPONSE, TOOLS), RESPONSE)`, which keeps the
 *     tools subtree, usually the large part, in one copy);
 *   - `required` or a named tool: an optional response channel, then the tools channel;
 * - every path may end with `<|close|>message<|sep|>`.
 *
 * An answer constraint replaces the response text. Where tool calls follow, the response may
 * then be empty instead; with `auto` tool choice an empty response needs tool calls after it.
 */
import { anyText, constString, optional, or, regex, sequence, structuralTag, tag, tagsWithSeparator } from "../../format/build.js";
import { keyPath } from "../../format/json-path.js";
import type { Format, StructuralTag, TagFormat } from "../../format/types.js";
import type { NormalizedTool, NormalizedToolRequest } from "../normalize.js";
import { cachedToolFormat } from "../tool-format-cache.js";
import { argumentsFormat, checkNoMarkers } from "./arguments.js";
import {
  CALL_CLOSE, CALL_INDEX_PREFIX, CALL_OPEN_PREFIX, CALL_OPEN_SUFFIX, CLOSE, END_OF_MSG, MESSAGE_CLOSE, OPEN, RESPONSE_CLOSE,
  RESPONSE_OPEN, THINK_CLOSE, THINK_OPEN, TOOLS_CLOSE, TOOLS_OPEN, escapeAttribute,
} from "./markers.js";

/** A call's index attribute: 1, 2, … */
const INDEX = "[1-9][0-9]*";

/** The text of the response channel: no marker may start inside it. */
function responseText(): Format {
  return anyText({ excludes: [OPEN, CLOSE, END_OF_MSG] });
}

/** The text of the think channel: anything up to its close marker, within the message. */
function thinkText(): Format {
  return anyText({ excludes: [THINK_CLOSE, END_OF_MSG] });
}

/** One call of `tool`: `<|open|>call tool="NAME" index="N"<|sep|>` + arguments + `<|close|>call<|sep|>`. */
function callTag(tool: NormalizedTool): TagFormat {
  checkNoMarkers(tool.name, keyPath(keyPath(tool.path, "function"), "name"), "tool name");
  const begin = `${CALL_OPEN_PREFIX}${escapeAttribute(tool.name)}${CALL_INDEX_PREFIX}`;
  return tag(begin, sequence(regex(INDEX), constString(CALL_OPEN_SUFFIX), argumentsFormat(tool)), CALL_CLOSE);
}

/** The tools channel: one or more calls (exactly one without parallel calls). */
function toolsChannel(request: NormalizedToolRequest): TagFormat {
  // A tool's call tag depends on the tool alone: built once per tool content (tool-format-cache.ts).
  const calls = request.tools.map((tool) => cachedToolFormat("kimi-k3 call", tool, callTag));
  const options = request.parallel ? { at_least_one: true } : { at_least_one: true, stop_after_first: true };
  return tag(TOOLS_OPEN, tagsWithSeparator(calls, "", options), TOOLS_CLOSE);
}

/** The structural tag of a Kimi K3 message, or null when nothing constrains it. */
export function buildKimiK3(request: NormalizedToolRequest): StructuralTag | null {
  const { mode, answer, reasoning } = request;
  if (mode === "none" && answer === null) return null;
  const final = reasoning === "final_output_only";
  const elements: Format[] = [];
  if (final) elements.push(optional(constString(RESPONSE_OPEN)));
  else if (reasoning === "think") elements.push(tag("", thinkText(), THINK_CLOSE));
  else elements.push(optional(tag(THINK_OPEN, thinkText(), THINK_CLOSE)));
  // In final_output_only the opening marker is handled above, so the channel's tag begins empty.
  const response = (content: Format): TagFormat => tag(final ? "" : RESPONSE_OPEN, content, RESPONSE_CLOSE);
  // The response's content where tool calls follow it: an answer may then be left out.
  const beforeTools = answer === null ? responseText() : optional(answer);
  const alone = answer ?? responseText();
  if (mode === "none") {
    elements.push(response(alone));
  } else {
    const tools = toolsChannel(request);
    if (mode === "required") {
      elements.push(final ? response(beforeTools) : optional(response(beforeTools)), tools);
    } else if (final && answer === null) {
      elements.push(response(alone), optional(tools));
    } else {
      elements.push(or(sequence(final ? response(beforeTools) : optional(response(beforeTools)), tools), response(alone)));
    }
  }
  elements.push(optional(constString(MESSAGE_CLOSE)));
  return structuralTag(sequence(...elements));
}
