/**
 * The EXAONE 4.0 chat template (LGAI-EXAONE/EXAONE-4.0-32B chat_template.jinja): turns
 * `[|ROLE|]\n…[|endofturn|]\n`, the tools as `<tool>JSON</tool>` lines in the first system turn
 * (a system turn of their own when the conversation has none), assistant turns opening with an
 * empty think block `<think>\n\n</think>\n\n` (the template's `skip_think`: earlier reasoning is
 * never shown), calls as `<tool_call>{"name": "NAME", "arguments": {…}}</tool_call>` one per line,
 * results as `<tool_result>{"result": "…"}</tool_result>` lines in one `[|tool|]` turn.
 *
 * Reasoning modes: `final_output_only` is the template's default (an empty think block),
 * `think` its `enable_thinking=true` (`<think>\n` opened), `auto` (tagmask's) opens the turn only.
 * reasoning_effort "none" or none given is final_output_only, any other think.
 */
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { thinkingOnRequest } from "../chat-reasoning.js";
import { trim } from "../chat-text.js";
import type { FunctionTool } from "../types.js";

const END = "[|endofturn|]\n";
const EMPTY_THINK = "<think>\n\n</think>\n\n";

function availableTools(tools: readonly FunctionTool[]): string {
  return "# Available Tools\nYou can use none, one, or multiple of the following tools by calling them as functions to help with the user\u2019s query.\n" +
    `Here are the tools available to you in JSON format within <tool> and </tool> tags:\n${tools.map((t) => `<tool>${pythonJson(t)}</tool>\n`).join("")}` +
    "\nFor each function call you want to make, return a JSON object with function name and arguments within <tool_call> and </tool_call> tags, like:\n" +
    '<tool_call>{"name": function_1_name, "arguments": {argument_1_name: argument_1_value, argument_2_name: argument_2_value}}</tool_call>\n' +
    '<tool_call>{"name": function_2_name, "arguments": {...}}</tool_call>\n...\n' +
    "Note that if no argument name is specified for a tool, you can just print the argument value directly, without the argument name or JSON formatting.";
}

function render({ messages, tools, reasoning, addGenerationPrompt = true }: ChatTemplateInput): string {
  let out = "";
  messages.forEach((m, i) => {
    if (i === 0 && m.role === "system") {
      out += `[|system|]\n${m.content}${tools.length > 0 ? `\n\n${availableTools(tools)}` : ""}${END}`;
      return;
    }
    if (i === 0 && tools.length > 0) out += `[|system|]\n${availableTools(tools)}${END}`;
    if (m.role === "assistant") {
      out += "[|assistant|]\n";
      if (m.content !== "") {
        const cut = m.content.split("</think>");
        out += EMPTY_THINK + (cut.length > 1 ? trim(cut[cut.length - 1]!) : m.content);
      }
      if (m.toolCalls.length > 0) {
        out += m.content !== "" ? "\n" : EMPTY_THINK;
        out += m.toolCalls.map((c) => `<tool_call>{"name": "${c.name}", "arguments": ${pythonJson(c.arguments)}}</tool_call>`).join("\n");
      }
      out += END;
    } else if (m.role === "tool") {
      if (i === 0 || messages[i - 1]!.role !== "tool") out += "[|tool|]\n";
      out += `<tool_result>{"result": ${pythonJson(m.content)}}</tool_result>`;
      out += i === messages.length - 1 || messages[i + 1]!.role !== "tool" ? END : "\n";
    } else {
      out += `[|${m.role}|]\n${m.content}${END}`;
    }
  });
  if (!addGenerationPrompt) return out;
  out += "[|assistant|]\n";
  if (reasoning === "think") return `${out}<think>\n`;
  return reasoning === "final_output_only" ? out + EMPTY_THINK : out;
}

export const exaoneChatTemplate: ChatTemplate = {
  family: "exaone",
  source: "EXAONE 4.0's chat template (LGAI-EXAONE/EXAONE-4.0-32B chat_template.jinja)",
  reasoning: true,
  reasoningMode: thinkingOnRequest,
  render,
  detect: (t) => t.includes("[|endofturn|]") && t.includes("[|assistant|]") && t.includes("[|tool|]"),
};
