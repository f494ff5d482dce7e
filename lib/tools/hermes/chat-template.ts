/**
 * The Hermes chat template (NousResearch Hermes 3, tokenizer_config.json: the `tool_use`
 * template when tools are given — as transformers picks it — else the default ChatML one; kept
 * in llama.cpp as models/templates/NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja).
 *
 * With tools the system turn lists each tool as a JSON object whose description is a Python-like
 * signature and an "Args:" list (the template's own wording and quirks: an array parameter reads
 * `list[Union[]]`, the Args lines are not separated), then asks for
 * `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`. An assistant turn with calls holds only
 * the calls; tool results are `<tool_response>` blocks in a `tool` turn. No reasoning: every mode
 * renders alike.
 */
import type { ChatMessage } from "../chat-messages.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { trim } from "../chat-text.js";
import type { FunctionTool } from "../types.js";

const BOS = "<|begin_of_text|>";
const PYTHON_TYPES: Record<string, string> = { string: "str", number: "float", integer: "int", boolean: "bool" };

/** The template's json_to_python_type, with its outcomes for the cases it handles oddly. */
function pythonType(spec: unknown): string {
  const type = (spec as { type?: unknown } | null)?.type;
  if (typeof type === "string" && PYTHON_TYPES[type]) return PYTHON_TYPES[type];
  // `json_spec|items` yields key-value pairs, whose type is undefined: an empty union.
  if (type === "array") return "list[Union[]]";
  if (type === "object") {
    const extra = (spec as { additionalProperties?: unknown }).additionalProperties;
    return extra === undefined ? "dict" : `dict[str, ${pythonType(extra)}]`;
  }
  if (Array.isArray(type)) return `Union[${type.map((t) => pythonType({ type: t })).join(",")}]`;
  // An undefined type iterates as nothing; other strings are not types it knows.
  return type === undefined ? "Union[]" : "Any";
}

function toolLine(tool: FunctionTool): string {
  const f = tool.function;
  const props = Object.entries(((f.parameters as { properties?: Record<string, unknown> } | undefined)?.properties) ?? {});
  let out = `{"type": "function", "function": {"name": "${f.name}", "description": "${f.name}(`;
  out += props.map(([name, spec]) => `${name}: ${pythonType(spec)}`).join(", ");
  out += `) - ${f.description ?? ""}\n\n`;
  if (props.length > 0) out += "    Args:\n";
  for (const [name, spec] of props) {
    const description = (spec as { description?: unknown } | null)?.description;
    out += `        ${name}(${pythonType(spec)}): ${trim(typeof description === "string" ? description : "")}`;
  }
  out += `", "parameters": ${props.length === 0 ? "{}" : pythonJson(f.parameters)}}`;
  return out;
}

function renderWithTools(messages: readonly ChatMessage[], tools: readonly FunctionTool[], addGenerationPrompt: boolean): string {
  let out = `${BOS}<|im_start|>system\nYou are a function calling AI model. You are provided with function signatures within <tools></tools> XML tags. ` +
    "You may call one or more functions to assist with the user query. Don't make assumptions about what values to plug into functions. Here are the available tools: <tools> ";
  out += tools.map(toolLine).join("\n");
  out += ' </tools>Use the following pydantic model json schema for each tool call you will make: {"properties": {"name": {"title": "Name", "type": "string"}, ' +
    '"arguments": {"title": "Arguments", "type": "object"}}, "required": ["name", "arguments"], "title": "FunctionCall", "type": "object"}}\n' +
    "For each function call return a json object with function name and arguments within <tool_call></tool_call> XML tags as follows:\n" +
    '<tool_call>\n{"name": <function-name>, "arguments": <args-dict>}\n</tool_call><|im_end|>\n';
  messages.forEach((m, i) => {
    const last = i === messages.length - 1;
    if (m.role === "assistant" && m.toolCalls.length > 0) {
      out += "<|im_start|>assistant";
      for (const c of m.toolCalls) out += `\n<tool_call>\n{"name": "${c.name}", "arguments": ${pythonJson(c.arguments)}}\n</tool_call>`;
      out += "<|im_end|>\n";
    } else if (m.role === "tool") {
      if (i > 0 && messages[i - 1]!.role !== "tool") out += "<|im_start|>tool\n";
      out += `<tool_response>\n${m.content}${last ? "\n</tool_response>" : "\n</tool_response>\n"}`;
      if (last || messages[i + 1]!.role !== "tool") out += "<|im_end|>";
    } else {
      out += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
    }
  });
  return addGenerationPrompt ? `${out}<|im_start|>assistant\n` : out;
}

function render({ messages, tools, addGenerationPrompt = true }: ChatTemplateInput): string {
  if (tools.length > 0) return renderWithTools(messages, tools, addGenerationPrompt);
  let out = BOS;
  for (const m of messages) out += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
  return addGenerationPrompt ? `${out}<|im_start|>assistant\n` : out;
}

export const hermesChatTemplate: ChatTemplate = {
  family: "hermes",
  source: "Hermes 3's chat templates (NousResearch/Hermes-3-Llama-3.1-8B tokenizer_config.json: tool_use, default)",
  reasoning: false,
  reasoningMode: () => "final_output_only",
  render,
  detect: (t) => t.includes("<|im_start|>") && t.includes("<tool_call>") && t.includes("You are a function calling AI model"),
};
