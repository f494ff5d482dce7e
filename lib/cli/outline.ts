/**
 * `tagmask outline`: the structural tag a model family's builder makes for a tools file, printed
 * as an outline (or, with --json, in xgrammar's structural-tag JSON).
 */
import { printOutline } from "../format/outline.js";
import { stringifyStructuralTag } from "../format/serialize.js";
import { buildToolCallingFormat, toolCallingFamilies } from "../tools/families.js";
import { REASONING_MODES, type ReasoningMode } from "../tools/types.js";
import { optional, parseArgs, required, UsageError } from "./args.js";
import type { CliCommand } from "./command.js";
import { readOptionJson } from "./files.js";
import { readToolsFile, toolChoiceArg } from "./tool-args.js";

const USAGE = [
  "tagmask outline --family FAMILY [--tools FILE] [--tool-choice auto|required|none|NAME|JSON]",
  "                [--reasoning final_output_only|think|auto] [--no-parallel] [--response-format FILE] [--variant V] [--json]",
  "",
  "  --family           the model family: " + toolCallingFamilies().join(", "),
  "  --tools            a JSON file: a list of OpenAI-style tools, or an object with a \"tools\" list",
  "  --tool-choice      auto (default), required, none, the name of a tool to force, or a tool_choice",
  "                     object as JSON text (e.g. {\"type\":\"allowed_tools\",...})",
  "  --reasoning        final_output_only (default), think or auto",
  "  --no-parallel      at most one tool call (parallel_tool_calls: false)",
  "  --response-format  a JSON file holding the response_format (the answer constraint)",
  "  --variant          the family's format variant (mistral: v3 (default), v11, v13)",
  "  --json             print the structural tag as xgrammar JSON instead of the outline",
].join("\n");

/** --reasoning: final_output_only (when absent), think or auto. */
export function reasoningArg(value: string | undefined): ReasoningMode {
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
      variant: { type: "string" },
      json: { type: "boolean" },
    });
    const family = required(args, "family", "FAMILY");
    if (!toolCallingFamilies().includes(family)) {
      throw new UsageError(`unknown --family '${family}' (known: ${toolCallingFamilies().join(", ")})`);
    }
    const toolsFile = optional(args, "tools");
    const tools = toolsFile === undefined ? [] : readToolsFile(toolsFile);
    const formatFile = optional(args, "response-format");
    const variant = optional(args, "variant");
    const tag = buildToolCallingFormat({
      ...(variant === undefined ? {} : { variant }),
      family,
      tools: tools as never,
      tool_choice: toolChoiceArg(optional(args, "tool-choice")),
      parallel_tool_calls: !args.flags.has("no-parallel"),
      reasoning: reasoningArg(optional(args, "reasoning")),
      ...(formatFile === undefined ? {} : { response_format: readOptionJson(formatFile, "--response-format") as never }),
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
