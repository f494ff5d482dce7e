/**
 * The GLM-4.7 chat template (zai-org/GLM-4.7 chat_template.jinja; GLM-4.7-Flash ships the same
 * text): `[gMASK]<sop>`, the tools as JSON lines in a `<|system|>` turn, `<|user|>…`,
 * `<|system|>…` and `<|assistant|>` turns without end markers, an assistant turn opening with its
 * reasoning (`<think>…</think>`, only after the last user message) or a bare `</think>`, calls as
 * `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>` (strings raw, other
 * values as JSON), results as `<tool_response>` blocks after one `<|observation|>`.
 *
 * Reasoning modes: `think` is the template's default (`<|assistant|><think>`), `final_output_only`
 * its `enable_thinking=false` (`<|assistant|></think>`), `auto` (tagmask's) opens the turn only.
 * reasoning_effort "none" is final_output_only, any other effort or none given think.
 */
import type { ChatMessage } from "../chat-messages.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { thinkingByDefault } from "../chat-reasoning.js";
import { stripChars, trim } from "../chat-text.js";

const TOOLS_INTRO = "<|system|>\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
  "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n";
const TOOLS_OUTRO = "</tools>\n\nFor each function call, output the function name and arguments within the following XML format:\n" +
  "<tool_call>{function-name}<arg_key>{arg-key-1}</arg_key><arg_value>{arg-value-1}</arg_value><arg_key>{arg-key-2}</arg_key><arg_value>{arg-value-2}</arg_value>...</tool_call>";

/** A value as the template writes it in `<arg_value>`: strings as they are, anything else as JSON. */
export function rawOrJson(v: unknown): string {
  return typeof v === "string" ? v : pythonJson(v);
}

/** The reasoning and answer of an assistant message, split as the template splits them. */
function reasoningAndContent(m: Extract<ChatMessage, { role: "assistant" }>): [string, string] {
  if (m.reasoning !== undefined) return [m.reasoning, m.content];
  if (!m.content.includes("</think>")) return ["", m.content];
  const parts = m.content.split("</think>");
  const before = stripChars(parts[0]!, "\n", "right").split("<think>");
  return [stripChars(before[before.length - 1]!, "\n", "left"), stripChars(parts[parts.length - 1]!, "\n", "left")];
}

function render({ messages, tools, reasoning, addGenerationPrompt = true }: ChatTemplateInput): string {
  let out = "[gMASK]<sop>";
  if (tools.length > 0) out += `${TOOLS_INTRO}${tools.map((t) => `${pythonJson(t)}\n`).join("")}${TOOLS_OUTRO}`;
  const lastUser = messages.reduce((last, m, i) => (m.role === "user" ? i : last), -1);
  messages.forEach((m, i) => {
    if (m.role === "user" || m.role === "system") {
      out += `<|${m.role}|>${m.content}`;
    } else if (m.role === "assistant") {
      const [thought, content] = reasoningAndContent(m);
      out += "<|assistant|>";
      out += i > lastUser && thought !== "" ? `<think>${trim(thought)}</think>` : "</think>";
      out += trim(content);
      for (const c of m.toolCalls) {
        out += `<tool_call>${c.name}`;
        for (const [k, v] of Object.entries(c.arguments)) out += `<arg_key>${k}</arg_key><arg_value>${rawOrJson(v)}</arg_value>`;
        out += "</tool_call>";
      }
    } else {
      if (i === 0 || messages[i - 1]!.role !== "tool") out += "<|observation|>";
      out += `<tool_response>${m.content}</tool_response>`;
    }
  });
  if (!addGenerationPrompt) return out;
  out += "<|assistant|>";
  if (reasoning === "think") return `${out}<think>`;
  return reasoning === "final_output_only" ? `${out}</think>` : out;
}

export const glm47ChatTemplate: ChatTemplate = {
  family: "glm-4.7",
  source: "GLM-4.7's chat template (zai-org/GLM-4.7 chat_template.jinja)",
  reasoning: true,
  reasoningMode: thinkingByDefault,
  render,
  detect: (t) => t.includes("[gMASK]<sop>") && t.includes("<arg_key>") && t.includes("<|observation|>"),
};
