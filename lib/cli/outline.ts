/**
 * `tagmask outline`: the structural tag a model family's builder makes for a tools file, printed
 * as an outline (or, with --json, in xgrammar's structural-tag JSON).
 */
import { readFileSync } from "node:fs";
import { InvalidArgumentError, TagmaskError } from "../errors.js";
import { parseJsonText } from "../format/json-text.js";
import { printOutline } from "../format/outline.js";
import { stringifyStructuralTag } from "../format/serialize.js";
import { buildToolCallingFormat, toolCallingFamilies } from "../tools/families.js";
import { REASONING_MODES, type ReasoningMode, type ToolChoice } from "../tools/types.js";
import { optional, parseArgs, required, UsageError } from "./args.js";
import type { CliCommand } from "./command.js";

const USAGE = [
  "tagmask outline --family FAMILY [--tools FILE] [--tool-choice auto|required|none|NAME|JSON]",
  "                [--reasoning final_output_only|think|auto] [--no-parallel] [--response-format FILE] [--json]",
  "",
  "  --family           the model family: " + toolCallingFamilies().join(", "),
  "  --tools            a JSON file: a list of OpenAI-style tools, or an object with a \"tools\" list",
  "  --tool-choice      auto (default), required, none, the name of a tool to force, or a tool_choice",
  "                     object as JSON text (e.g. {\"type\":\"allowed_tools\",...})",
  "  --reasoning        final_output_only (default), think or auto",
  "  --no-parallel      at most one tool call (parallel_tool_calls: false)",
  "  --response-format  a JSON file holding the response_format (the answer constraint)",
  "  --json             print the structural tag as xgrammar JSON instead of the outline",
].join("\n");

/** Reads and parses a JSON file; a missing file or bad JSON is one clear line naming the file. */
function readJsonFile(file: string, option: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (err as Error).message;
    throw new InvalidArgumentError(`${option} ${file}: cannot read the file (${why})`);
  }
  try {
    return parseJsonText(text);
  } catch (err) {
    if (err instanceof TagmaskError) throw new InvalidArgumentError(`${option} ${file}: invalid JSON: ${err.message}`);
    throw err;
  }
}

function toolChoiceArg(value: string): ToolChoice {
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

function reasoningArg(value: string | undefined): ReasoningMode {
  if (value === undefined) return "final_output_only";
  if (!(REASONING_MODES as readonly string[]).includes(value)) {
    throw new UsageError(`--reasoning must be one of ${REASONING_MODES.join(", ")}, not '${value}'`);
  }
  return value as ReasoningMode;
}

export const command: CliCommand = {
  summary: "print the structural tag a model family's tool-calling builder makes (outline or JSON)",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, {
      family: { type: "string" },
      tools: { type: "string" },
      "tool-choice": { type: "string" },
      reasoning: { type: "string" },
      "no-parallel": { type: "boolean" },
      "response-format": { type: "string" },
      json: { type: "boolean" },
    });
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
    const family = required(args, "family", "FAMILY");
    if (!toolCallingFamilies().includes(family)) {
      throw new UsageError(`unknown --family '${family}' (known: ${toolCallingFamilies().join(", ")})`);
    }
    const toolsFile = optional(args, "tools");
    let tools: unknown = [];
    if (toolsFile !== undefined) {
      const content = readJsonFile(toolsFile, "--tools");
      tools = content !== null && typeof content === "object" && !Array.isArray(content) && "tools" in content
        ? (content as { tools: unknown }).tools
        : content;
    }
    const choice = optional(args, "tool-choice");
    const formatFile = optional(args, "response-format");
    const tag = buildToolCallingFormat({
      family,
      tools: tools as never,
      tool_choice: choice === undefined ? "auto" : toolChoiceArg(choice),
      parallel_tool_calls: !args.flags.has("no-parallel"),
      reasoning: reasoningArg(optional(args, "reasoning")),
      ...(formatFile === undefined ? {} : { response_format: readJsonFile(formatFile, "--response-format") as never }),
    });
    if (tag === null) {
      if (args.flags.has("json")) io.stdout.write("null\n");
      io.stderr.write("tagmask outline: nothing to constrain (no tool may be called and there is no response format)\n");
      return 0;
    }
    io.stdout.write(args.flags.has("json") ? `${stringifyStructuralTag(tag, 2)}\n` : printOutline(tag));
    return 0;
  },
};
