/**
 * `tagmask parse`: a model output (a file or standard input) read with a family's output
 * parser, printed as JSON `{reasoning?, content, tool_calls: [{name, arguments}]}`. Malformed
 * output is exit code 1 with the parser's positioned error on stderr.
 */
import { OutputParseError } from "../errors.js";
import { parseToolOutput, toolCallingFamilies, toolCallingFamily } from "../tools/families.js";
import type { FunctionTool, ResponseFormat, ToolOutputParserOptions } from "../tools/types.js";
import { optional, parseArgs, required, UsageError } from "./args.js";
import type { CliCommand, CliIO } from "./command.js";
import { readOptionJson, readOptionText, readStdinText } from "./files.js";
import { reasoningArg } from "./outline.js";
import { readToolsFile } from "./tool-args.js";

const USAGE = [
  "tagmask parse --family FAMILY [--input FILE] [--reasoning final_output_only|think|auto] [--tools FILE]",
  "              [--variant V] [--response-format FILE]",
  "",
  "  --family           the model family: " + toolCallingFamilies().join(", "),
  "  --input            the model output (default: standard input)",
  "  --reasoning        the reasoning mode the output was generated in (where it starts; default final_output_only)",
  "  --tools            the request's tools (a JSON list, or an object with a \"tools\" list): families whose",
  "                     markup does not say a value's type decode raw values by the argument's schema",
  "  --variant          the family's format variant (mistral: v3, v11, v13)",
  "  --response-format  the request's response_format (a JSON answer is read as JSON)",
  "",
  "Prints {reasoning?, content, tool_calls: [{name, arguments}]} as JSON. Exit code 0 when the output parses,",
  "1 when it is malformed (the error says at which offset and what was expected), 2 for bad arguments.",
].join("\n");

export const command: CliCommand = {
  summary: "parse a model output with a family's parser and print reasoning, content and tool calls as JSON",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, {
      family: { type: "string" },
      input: { type: "string" },
      reasoning: { type: "string" },
      tools: { type: "string" },
      variant: { type: "string" },
      "response-format": { type: "string" },
    });
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
    const family = required(args, "family", "FAMILY");
    if (!toolCallingFamilies().includes(family)) throw new UsageError(`unknown --family '${family}' (known: ${toolCallingFamilies().join(", ")})`);
    const variant = optional(args, "variant");
    const variants = toolCallingFamily(family).variants;
    if (variant !== undefined && !(variants ?? []).includes(variant)) {
      throw new UsageError(variants ? `--variant must be one of ${variants.join(", ")} for ${family}, not '${variant}'` : `the ${family} family has no variants`);
    }
    const inputFile = optional(args, "input");
    const text = inputFile === undefined ? await readStdinText(io.stdin) : readOptionText(inputFile, "--input");
    const toolsFile = optional(args, "tools");
    const formatFile = optional(args, "response-format");
    const options: ToolOutputParserOptions = {
      reasoning: reasoningArg(optional(args, "reasoning")),
      ...(toolsFile === undefined ? {} : { tools: readToolsFile(toolsFile) as FunctionTool[] }),
      ...(variant === undefined ? {} : { variant }),
      ...(formatFile === undefined ? {} : { response_format: readOptionJson(formatFile, "--response-format") as ResponseFormat }),
    };
    try {
      const parsed = parseToolOutput(family, text, options);
      const out = {
        ...(parsed.reasoning === undefined ? {} : { reasoning: parsed.reasoning }),
        content: parsed.content,
        tool_calls: parsed.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })),
      };
      io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return 0;
    } catch (err) {
      if (err instanceof OutputParseError) {
        io.stderr.write(`tagmask parse: malformed ${family} output ${err.message}\n`);
        return 1;
      }
      throw err;
    }
  },
};
