/**
 * The MiniMax-M2 chat template (MiniMaxAI/MiniMax-M2 chat_template.jinja): `]~!b[` then turns
 * `]~b]ROLE\n…[e~[\n`; the system turn holds the first system message (else "You are a helpful
 * assistant.") and the tools as `<tool>{function JSON}</tool>` lines with the call format;
 * assistant turns keep their reasoning (`<think>\n…\n</think>\n\n`) only after the last user
 * message; calls as `<minimax:tool_call>\n<invoke name="NAME">\n<parameter name="K">V</parameter>\n
 * …</invoke>\n</minimax:tool_call>` (strings raw, other values as JSON); results as
 * `<response>` lines in one `]~b]tool` turn. Later system messages are not rendered (the
 * template has no branch for them).
 *
 * Reasoning modes: `think` is the template's prompt (`]~b]ai\n<think>\n`: the model always
 * reasons); `final_output_only` (tagmask's) writes an empty block `<think>\n\n</think>\n\n`, as
 * the template writes a turn's reasoning; `auto` (tagmask's) opens the turn only.
 * reasoning_effort "none" is final_output_only, any other or none given think.
 */
import type { ChatMessage } from "../chat-messages.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { thinkingByDefault } from "../chat-reasoning.js";
import { stripChars } from "../chat-text.js";
import { rawOrJson } from "../glm-4.7/chat-template.js";

const END = "[e~[\n";
const TOOLS_INTRO = "\n\n# Tools\nYou may call one or more tools to assist with the user query.\nHere are the tools available in JSONSchema format:\n\n<tools>\n";
const TOOLS_OUTRO = "</tools>\n\nWhen making tool calls, use XML format to invoke tools and pass parameters:\n\n<minimax:tool_call>\n" +
  '<invoke name="tool-name-1">\n<parameter name="param-key-1">param-value-1</parameter>\n<parameter name="param-key-2">param-value-2</parameter>\n...\n</invoke>\n</minimax:tool_call>';

function reasoningAndContent(m: Extract<ChatMessage, { role: "assistant" }>): [string, string] {
  if (m.reasoning !== undefined) return [m.reasoning, m.content];
  if (!m.content.includes("</think>")) return ["", m.content];
  const parts = m.content.split("</think>");
  const before = stripChars(parts[0]!, "\n").split("<think>");
  return [stripChars(before[before.length - 1]!, "\n"), stripChars(parts[parts.length - 1]!, "\n")];
}

function render({ messages, tools, reasoning, addGenerationPrompt = true }: ChatTemplateInput): string {
  const first = messages[0];
  const system = first?.role === "system" ? first.content : "";
  const conversation = first?.role === "system" ? messages.slice(1) : messages;
  let out = `]~!b[]~b]system\n${system !== "" ? system : "You are a helpful assistant."}`;
  if (tools.length > 0) out += `${TOOLS_INTRO}${tools.map((t) => `<tool>${pythonJson(t.function)}</tool>\n`).join("")}${TOOLS_OUTRO}`;
  out += END;
  const lastUser = conversation.reduce((last, m, i) => (m.role === "user" ? i : last), -1);
  conversation.forEach((m, i) => {
    if (m.role === "assistant") {
      const [thought, content] = reasoningAndContent(m);
      out += "]~b]ai\n";
      if (thought !== "" && i > lastUser) out += `<think>\n${thought}\n</think>\n\n`;
      out += content;
      if (m.toolCalls.length > 0) {
        out += "\n<minimax:tool_call>\n";
        for (const c of m.toolCalls) {
          out += `<invoke name="${c.name}">\n`;
          for (const [k, v] of Object.entries(c.arguments)) out += `<parameter name="${k}">${rawOrJson(v)}</parameter>\n`;
          out += "</invoke>\n";
        }
        out += "</minimax:tool_call>";
      }
      out += END;
    } else if (m.role === "tool") {
      if (i === 0 || conversation[i - 1]!.role !== "tool") out += "]~b]tool";
      out += `\n<response>${m.content}</response>`;
      if (i === conversation.length - 1 || conversation[i + 1]!.role !== "tool") out += END;
    } else if (m.role === "user") {
      out += `]~b]user\n${m.content}${END}`;
    }
  });
  if (!addGenerationPrompt) return out;
  out += "]~b]ai\n";
  if (reasoning === "think") return `${out}<think>\n`;
  return reasoning === "final_output_only" ? `${out}<think>\n\n</think>\n\n` : out;
}

export const minimaxM2ChatTemplate: ChatTemplate = {
  family: "minimax-m2",
  source: "MiniMax-M2's chat template (MiniMaxAI/MiniMax-M2 chat_template.jinja)",
  reasoning: true,
  reasoningMode: thinkingByDefault,
  render,
  detect: (t) => t.includes("]~b]") && t.includes("<minimax:tool_call>"),
};
