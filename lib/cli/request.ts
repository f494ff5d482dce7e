/**
 * `tagmask request`: the chat completion request body that runs a family's tool-calling grammar
 * on vLLM or SGLang (the structural tag in the field each documents; see
 * lib/server/remote-request.ts and docs/server.md).
 */
import { REMOTE_SERVERS, remoteRequestBodies, type RemoteServer } from "../server/remote-request.js";
import { toolCallingFamilies } from "../tools/families.js";
import { REASONING_MODES, type ReasoningMode } from "../tools/types.js";
import { optional, parseArgs, UsageError } from "./args.js";
import type { CliCommand } from "./command.js";
import { readOptionJson } from "./files.js";
import { readToolsFile, toolChoiceArg } from "./tool-args.js";

const USAGE = [
  "tagmask request --family FAMILY --tools FILE [--tool-choice auto|required|none|NAME|JSON] [--model ID]",
  "                [--server vllm|sglang] [--reasoning final_output_only|think|auto] [--no-parallel]",
  "                [--response-format FILE] [--messages FILE]",
  "",
  "  --family           the model family: " + toolCallingFamilies().join(", "),
  "  --tools            a JSON file: a list of OpenAI-style tools, or an object with a \"tools\" list",
  "  --tool-choice      auto (default), required, none, a tool name, or a tool_choice object as JSON text",
  "  --model            the model name the server serves (default \"default\")",
  "  --server           print only this server's body (default: both, as {\"vllm\": …, \"sglang\": …})",
  "  --reasoning        where the grammar starts (default final_output_only: after any reasoning, as",
  "                     vLLM and SGLang apply a grammar when they run a reasoning parser)",
  "  --no-parallel      at most one tool call (parallel_tool_calls: false)",
  "  --response-format  a JSON file holding the response_format (the answer constraint)",
  "  --messages         a JSON file holding the messages (default: one placeholder user message)",
  "",
  "vLLM gets the structural tag in structured_outputs.structural_tag (a JSON string), SGLang in",
  "response_format ({\"type\": \"structural_tag\", \"format\": …}); tool_choice is sent as \"auto\" since the",
  "structural tag enforces the choice.",
].join("\n");

export const command: CliCommand = {
  summary: "print the vLLM / SGLang chat completion request body carrying a family's structural tag",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, {
      family: { type: "string" },
      tools: { type: "string" },
      "tool-choice": { type: "string" },
      model: { type: "string" },
      server: { type: "string" },
      reasoning: { type: "string" },
      "no-parallel": { type: "boolean" },
      "response-format": { type: "string" },
      messages: { type: "string" },
    });
    const family = optional(args, "family");
    const toolsFile = optional(args, "tools");
    const server = optional(args, "server");
    const reasoning = optional(args, "reasoning") ?? "final_output_only";
    const messagesFile = optional(args, "messages");
    const responseFormatFile = optional(args, "response-format");
    const model = optional(args, "model");
    if (family === undefined) throw new UsageError("--family FAMILY is required");
    if (!toolCallingFamilies().includes(family)) throw new UsageError(`unknown --family '${family}' (known: ${toolCallingFamilies().join(", ")})`);
    if (toolsFile === undefined) throw new UsageError("--tools FILE is required");
    if (server !== undefined && !(REMOTE_SERVERS as readonly string[]).includes(server)) {
      throw new UsageError(`--server must be one of ${REMOTE_SERVERS.join(", ")}, not '${server}'`);
    }
    if (!(REASONING_MODES as readonly string[]).includes(reasoning)) {
      throw new UsageError(`--reasoning must be one of ${REASONING_MODES.join(", ")}, not '${reasoning}'`);
    }
    const messages = messagesFile === undefined ? undefined : readOptionJson(messagesFile, "--messages");
    if (messages !== undefined && !Array.isArray(messages)) throw new UsageError(`--messages ${messagesFile}: expected a JSON list of messages`);
    const { tag, bodies } = remoteRequestBodies({
      family,
      tools: readToolsFile(toolsFile) as never,
      tool_choice: toolChoiceArg(optional(args, "tool-choice")),
      parallel_tool_calls: !args.flags.has("no-parallel"),
      reasoning: reasoning as ReasoningMode,
      ...(responseFormatFile === undefined ? {} : { response_format: readOptionJson(responseFormatFile, "--response-format") as never }),
      ...(model === undefined ? {} : { model }),
      ...(messages === undefined ? {} : { messages }),
    });
    if (tag === null) io.stderr.write("tagmask request: nothing to constrain (no tool may be called and there is no response format): the bodies carry no structural tag\n");
    const out = server === undefined ? bodies : bodies[server as RemoteServer];
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  },
};
