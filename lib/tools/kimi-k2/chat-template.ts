/**
 * The Kimi K2 chat template (moonshotai/Kimi-K2-Thinking chat_template.jinja, kept in llama.cpp):
 * `<|im_system|>tool_declare<|im_middle|>TOOLS<|im_end|>`, a default system message when the
 * conversation has none, `<|im_user|>user<|im_middle|>…<|im_end|>` turns, assistant turns with
 * a `<think>…</think>` block (its reasoning only after the last assistant answer without calls),
 * calls as `<|tool_calls_section_begin|><|tool_call_begin|>ID<|tool_call_argument_begin|>ARGS
 * <|tool_call_end|>…<|tool_calls_section_end|>`, results as `## Return of ID\n…` in `tool` turns.
 *
 * K2 reads call ids as `functions.NAME:IDX`; an id of another form (an OpenAI client's `call_…`)
 * is rendered as such, IDX counting the conversation's calls. The template's prompt lets the
 * model open `<think>` (`auto`, reasoning_effort absent); `think` opens it, `final_output_only`
 * ("none") writes an empty block `<think></think>`, as the template writes turns without reasoning.
 */
import type { ChatMessage } from "../chat-messages.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { switchableThinking } from "../qwen3/chat-template.js";

/** The K2 id of every call in the conversation, by the call's own id. */
function k2Ids(messages: readonly ChatMessage[]): Map<string, string> {
  const ids = new Map<string, string>();
  let n = 0;
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.toolCalls) {
      ids.set(c.id, /^functions\.[^:]+:\d+$/.test(c.id) ? c.id : `functions.${c.name}:${n}`);
      n++;
    }
  }
  return ids;
}

function roleHeader(m: ChatMessage): string {
  if (m.role === "user") return "<|im_user|>user<|im_middle|>";
  if (m.role === "assistant") return "<|im_assistant|>assistant<|im_middle|>";
  return `<|im_system|>${m.role}<|im_middle|>`;
}

function render({ messages, tools, reasoning, addGenerationPrompt = true }: ChatTemplateInput): string {
  const ids = k2Ids(messages);
  let lastAnswer = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.toolCalls.length === 0) {
      lastAnswer = i;
      break;
    }
  }
  let out = "";
  if (tools.length > 0) out += `<|im_system|>tool_declare<|im_middle|>${pythonJson(tools)}<|im_end|>`;
  if (messages[0]?.role !== "system") out += "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot AI.<|im_end|>";
  messages.forEach((m, i) => {
    out += roleHeader(m);
    if (m.role === "assistant") {
      out += `<think>${i > lastAnswer ? m.reasoning ?? "" : ""}</think>${m.content}`;
      if (m.toolCalls.length > 0) {
        out += "<|tool_calls_section_begin|>";
        for (const c of m.toolCalls) out += `<|tool_call_begin|>${ids.get(c.id)}<|tool_call_argument_begin|>${pythonJson(c.arguments)}<|tool_call_end|>`;
        out += "<|tool_calls_section_end|>";
      }
    } else if (m.role === "tool") {
      out += `## Return of ${ids.get(m.toolCallId) ?? m.toolCallId}\n${m.content}`;
    } else {
      out += m.content;
    }
    out += "<|im_end|>";
  });
  if (!addGenerationPrompt) return out;
  out += "<|im_assistant|>assistant<|im_middle|>";
  if (reasoning === "think") return `${out}<think>`;
  if (reasoning === "final_output_only") return `${out}<think></think>`;
  return out;
}

export const kimiK2ChatTemplate: ChatTemplate = {
  family: "kimi-k2",
  source: "Kimi K2's chat template (moonshotai/Kimi-K2-Thinking chat_template.jinja)",
  reasoning: true,
  reasoningMode: (effort) => (effort === undefined ? "auto" : switchableThinking(effort)),
  render,
  detect: (t) => t.includes("<|im_middle|>") && t.includes("tool_declare"),
};
