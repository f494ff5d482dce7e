/**
 * The tool-calling options shared by the commands that build a family's grammar (`outline`,
 * `masks`): the tools file and the tool choice.
 */
import { TagmaskError } from "../errors.js";
import { parseJsonText } from "../format/json-text.js";
import type { ToolChoice } from "../tools/types.js";
import { UsageError } from "./args.js";
import { readOptionJson } from "./files.js";

/**
 * The tools in a --tools file: a list of OpenAI-style tools, or an object with a "tools" list.
 * The value is returned as written; the family's builder checks it and names what is wrong.
 */
export function readToolsFile(file: string): unknown {
  const content = readOptionJson(file, "--tools");
  return content !== null && typeof content === "object" && !Array.isArray(content) && "tools" in content
    ? (content as { tools: unknown }).tools
    : content;
}

/** --tool-choice: auto (when absent), required, none, the name of a tool, or a tool_choice object as JSON text. */
export function toolChoiceArg(value: string | undefined): ToolChoice {
  if (value === undefined) return "auto";
  if (value === "auto" || value === "required" || value === "none") return value;
  if (value.trimStart().startsWith("{")) {
    try {
      return parseJsonText(value) as ToolChoice;
    } catch (err) {
      if (err instanceof TagmaskError) throw new UsageError(`--tool-choice: invalid JSON: ${err.message}`);
      throw err;
    }
  }
  if (value === "") throw new UsageError("--tool-choice needs a value: auto, required, none or a tool name");
  return { type: "function", function: { name: value } };
}
