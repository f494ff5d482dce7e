/**
 * The Qwen3-Coder chat template (Qwen/Qwen3-Coder-480B-A35B-Instruct chat_template.jinja; the
 * same file as vLLM's examples/tool_chat_template_qwen3coder.jinja): ChatML turns, the tools as
 * XML (`<function><name>…</name><description>…</description><parameters><parameter>…` with every
 * other schema key as a `<KEY>VALUE</KEY>` line), calls as
 * `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…</function>\n</tool_call>`
 * (objects and arrays as JSON, other values as Python prints them: `True`, `None`), results as
 * `<tool_response>` blocks in a user turn.
 *
 * The template has no thinking; Qwen3.5/3.6, which share the format, reason: `think` (any
 * reasoning_effort but none) opens `<think>\n`, tagmask's mode; otherwise `final_output_only`.
 */
import type { ChatMessage } from "../chat-messages.js";
import { pythonJson, pythonStr } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { trim } from "../chat-text.js";
import type { FunctionTool } from "../types.js";

const INSTRUCTIONS = "\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n" +
  "<parameter=example_parameter_1>\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n" +
  "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\n" +
  "- Required parameters MUST be specified\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n" +
  "- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>";

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** A value as the template writes it: objects and lists as JSON, anything else as Python's str(). */
function value(v: unknown): string {
  return isMapping(v) || Array.isArray(v) ? pythonJson(v) : pythonStr(v);
}

/** The template's render_extra_keys: every key not handled elsewhere, one `<KEY>VALUE</KEY>` line each. */
function extraKeys(dict: unknown, handled: readonly string[]): string {
  if (!isMapping(dict)) return "";
  return Object.entries(dict).filter(([k]) => !handled.includes(k)).map(([k, v]) => `\n<${k}>${value(v)}</${k}>`).join("");
}

function toolXml(tool: FunctionTool): string {
  const f = tool.function as unknown as Record<string, unknown>;
  let out = `\n<function>\n<name>${String(f.name)}</name>`;
  if (f.description !== undefined) out += `\n<description>${trim(pythonStr(f.description))}</description>`;
  out += "\n<parameters>";
  const params = f.parameters;
  if (isMapping(params) && isMapping(params.properties)) {
    for (const [name, spec] of Object.entries(params.properties)) {
      out += `\n<parameter>\n<name>${name}</name>`;
      if (isMapping(spec) && spec.type !== undefined) out += `\n<type>${pythonStr(spec.type)}</type>`;
      if (isMapping(spec) && spec.description !== undefined) out += `\n<description>${trim(pythonStr(spec.description))}</description>`;
      out += `${extraKeys(spec, ["name", "type", "description"])}\n</parameter>`;
    }
  }
  return `${out}${extraKeys(params, ["type", "properties"])}\n</parameters>${extraKeys(f, ["type", "name", "description", "parameters"])}\n</function>`;
}

function render({ messages, tools, reasoning, addGenerationPrompt = true }: ChatTemplateInput): string {
  let rest: readonly ChatMessage[] = messages;
  let out = "";
  const system = messages[0]?.role === "system" ? messages[0].content : undefined;
  if (system !== undefined) {
    rest = messages.slice(1);
    out += `<|im_start|>system\n${system}`;
  } else if (tools.length > 0) {
    out += "<|im_start|>system\nYou are Qwen, a helpful AI assistant that can interact with a computer to solve tasks.";
  }
  if (tools.length > 0) out += `\n\n# Tools\n\nYou have access to the following functions:\n\n<tools>${tools.map(toolXml).join("")}\n</tools>${INSTRUCTIONS}`;
  if (system !== undefined || tools.length > 0) out += "<|im_end|>\n";
  rest.forEach((m, i) => {
    const last = i === rest.length - 1;
    if (m.role === "assistant" && m.toolCalls.length > 0) {
      out += "<|im_start|>assistant";
      if (trim(m.content).length > 0) out += `\n${trim(m.content)}\n`;
      for (const c of m.toolCalls) {
        out += `\n<tool_call>\n<function=${c.name}>\n`;
        for (const [k, v] of Object.entries(c.arguments)) out += `<parameter=${k}>\n${value(v)}\n</parameter>\n`;
        out += "</function>\n</tool_call>";
      }
      out += "<|im_end|>\n";
    } else if (m.role === "tool") {
      if (i > 0 && rest[i - 1]!.role !== "tool") out += "<|im_start|>user\n";
      out += `<tool_response>\n${m.content}\n</tool_response>\n`;
      if (last || rest[i + 1]!.role !== "tool") out += "<|im_end|>\n";
    } else {
      out += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
    }
  });
  if (!addGenerationPrompt) return out;
  out += "<|im_start|>assistant\n";
  return reasoning === "think" ? `${out}<think>\n` : out;
}

export const qwen3CoderChatTemplate: ChatTemplate = {
  family: "qwen3-coder",
  source: "Qwen3-Coder's chat template (Qwen/Qwen3-Coder-480B-A35B-Instruct chat_template.jinja)",
  reasoning: true,
  reasoningMode: (effort) => (effort === undefined || effort === "none" ? "final_output_only" : "think"),
  render,
  detect: (t) => t.includes("<|im_start|>") && t.includes("<function=") && t.includes("<parameter="),
};
