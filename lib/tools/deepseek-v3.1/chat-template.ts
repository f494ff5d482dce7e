/**
 * The DeepSeek V3.1 chat template (also V3.1-Terminus and V3.2-Exp): the models' own template
 * with the "## Tools" section of the model card in the system prompt, as vLLM's
 * examples/tool_chat_template_deepseekv32.jinja writes it, whitespace as in DeepSeek's one-line
 * templates. `<｜User｜>…`, `<｜Assistant｜>` then `</think>` (thinking off) or `<think>` (on),
 * calls as `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>…
 * <｜tool▁calls▁end｜><｜end▁of▁sentence｜>`, results as `<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>`
 * after which no new assistant turn is opened (the model continues).
 *
 * Reasoning modes: `final_output_only` is thinking off (the template's default), `think` thinking
 * on; `auto` (tagmask's) opens the assistant turn only. reasoning_effort "none" or absent: off;
 * any other: on.
 */
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { thinkingOnRequest } from "../chat-reasoning.js";

export const DEEPSEEK_BOS = "<｜begin▁of▁sentence｜>";
export const DEEPSEEK_EOS = "<｜end▁of▁sentence｜>";

const TOOL_RULES = "\nIMPORTANT: ALWAYS adhere to this exact format for tool use:\n" +
  "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_call_name<｜tool▁sep｜>tool_call_arguments<｜tool▁call▁end｜>{{additional_tool_calls}}<｜tool▁calls▁end｜>\n\n" +
  "Where:\n\n- `tool_call_name` must be an exact match to one of the available tools\n" +
  "- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema\n" +
  "- For multiple tool calls, chain them directly without separators or spaces\n";

/** The system messages' texts joined by blank lines, as DeepSeek's templates gather them. */
export function deepseekSystemPrompt(input: ChatTemplateInput): string {
  return input.messages.filter((m) => m.role === "system").map((m) => m.content).join("\n\n");
}

function render(input: ChatTemplateInput): string {
  const { messages, tools, reasoning, addGenerationPrompt = true } = input;
  let system = deepseekSystemPrompt(input);
  if (tools.length > 0) {
    let text = "## Tools\nYou have access to the following tools:\n";
    for (const { function: f } of tools) text += `\n### ${f.name}\nDescription: ${f.description ?? ""}\n\nParameters: ${pythonJson(f.parameters ?? null)}\n`;
    system += `\n\n${text}${TOOL_RULES}`;
  }
  let out = DEEPSEEK_BOS + system;
  let lastUser = false;
  let afterTool = false;
  let onlySystem = messages.some((m) => m.role === "system");
  for (const m of messages) {
    if (m.role === "user") {
      afterTool = false;
      lastUser = true;
      out += `<｜User｜>${m.content}`;
    } else if (m.role === "assistant" && m.toolCalls.length > 0) {
      if (lastUser || onlySystem) out += "<｜Assistant｜></think>";
      lastUser = false;
      afterTool = false;
      m.toolCalls.forEach((c, k) => {
        out += `${k === 0 ? `${m.content}<｜tool▁calls▁begin｜>` : ""}<｜tool▁call▁begin｜>${c.name}<｜tool▁sep｜>${pythonJson(c.arguments)}<｜tool▁call▁end｜>`;
      });
      out += `<｜tool▁calls▁end｜>${DEEPSEEK_EOS}`;
    } else if (m.role === "assistant") {
      if (lastUser) out += "<｜Assistant｜></think>";
      lastUser = false;
      if (afterTool) {
        out += m.content + DEEPSEEK_EOS;
        afterTool = false;
      } else {
        const cut = m.content.indexOf("</think>");
        out += (cut >= 0 ? m.content.slice(cut + "</think>".length) : m.content) + DEEPSEEK_EOS;
      }
    } else if (m.role === "tool") {
      lastUser = false;
      afterTool = true;
      out += `<｜tool▁output▁begin｜>${m.content}<｜tool▁output▁end｜>`;
    }
    if (m.role !== "system") onlySystem = false;
  }
  if (!addGenerationPrompt || afterTool) return out;
  out += "<｜Assistant｜>";
  if (reasoning === "final_output_only") return `${out}</think>`;
  return reasoning === "think" ? `${out}<think>` : out;
}

export const deepseekV31ChatTemplate: ChatTemplate = {
  family: "deepseek-v3.1",
  source: "DeepSeek V3.1's chat template with the model card's tool section (vLLM examples/tool_chat_template_deepseekv32.jinja)",
  reasoning: true,
  reasoningMode: thinkingOnRequest,
  render,
  detect: (t) => t.includes("<｜tool▁calls▁begin｜>") && t.includes("<｜tool▁output▁begin｜>") && !t.includes("<｜tool▁outputs▁begin｜>") && t.includes("thinking"),
};
