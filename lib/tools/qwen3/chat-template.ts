/**
 * The Qwen3 chat template (Qwen/Qwen3-* tokenizer_config.json, kept in llama.cpp as
 * models/templates/Qwen-Qwen3-0.6B.jinja): ChatML turns (`<|im_start|>ROLE\n…<|im_end|>\n`),
 * the tools as JSON lines inside `<tools></tools>` in the system turn, calls as
 * `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`, tool results as `<tool_response>`
 * blocks in a user turn, and the reasoning of the turn in progress in a `<think>` block.
 *
 * Reasoning modes: `final_output_only` is the template's `enable_thinking=false` (the prompt
 * closes an empty think block), `auto` its default (the model may open one), `think` opens the
 * think block (tagmask's mode). `reasoning_effort` "none" is final_output_only, any other effort
 * think, none given auto.
 */
import type { ChatMessage } from "../chat-messages.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { stripChars } from "../chat-text.js";
import type { ReasoningMode } from "../types.js";

const TOOLS_INTRO = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
  "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";
const TOOLS_OUTRO = "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n" +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';

/** The index of the last user message that is not a wrapped tool response. */
function lastQueryIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && !(m.content.startsWith("<tool_response>") && m.content.endsWith("</tool_response>"))) return i;
  }
  return messages.length - 1;
}

function assistant(m: Extract<ChatMessage, { role: "assistant" }>, i: number, last: boolean, lastQuery: number): string {
  let content = m.content;
  let reasoning = "";
  if (m.reasoning !== undefined) {
    reasoning = m.reasoning;
  } else if (content.includes("</think>")) {
    const parts = content.split("</think>");
    content = stripChars(parts[parts.length - 1]!, "\n", "left");
    const before = stripChars(parts[0]!, "\n", "right").split("<think>");
    reasoning = stripChars(before[before.length - 1]!, "\n", "left");
  }
  let out = i > lastQuery && (last || reasoning)
    ? `<|im_start|>assistant\n<think>\n${stripChars(reasoning, "\n")}\n</think>\n\n${stripChars(content, "\n", "left")}`
    : `<|im_start|>assistant\n${content}`;
  m.toolCalls.forEach((c, k) => {
    if (k > 0 || content) out += "\n";
    out += `<tool_call>\n{"name": "${c.name}", "arguments": ${pythonJson(c.arguments)}}\n</tool_call>`;
  });
  return `${out}<|im_end|>\n`;
}

/** The Qwen3 family's rendering; also the base of templates that share it. */
export function renderQwen3({ messages, tools, reasoning, addGenerationPrompt = true }: ChatTemplateInput): string {
  let out = "";
  const first = messages[0];
  if (tools.length > 0) {
    out += "<|im_start|>system\n";
    if (first?.role === "system") out += `${first.content}\n\n`;
    out += TOOLS_INTRO;
    for (const t of tools) out += `\n${pythonJson(t)}`;
    out += TOOLS_OUTRO;
  } else if (first?.role === "system") {
    out += `<|im_start|>system\n${first.content}<|im_end|>\n`;
  }
  const lastQuery = lastQueryIndex(messages);
  messages.forEach((m, i) => {
    if (m.role === "user" || (m.role === "system" && i > 0)) {
      out += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
    } else if (m.role === "assistant") {
      out += assistant(m, i, i === messages.length - 1, lastQuery);
    } else if (m.role === "tool") {
      if (i === 0 || messages[i - 1]!.role !== "tool") out += "<|im_start|>user";
      out += `\n<tool_response>\n${m.content}\n</tool_response>`;
      if (i === messages.length - 1 || messages[i + 1]!.role !== "tool") out += "<|im_end|>\n";
    }
  });
  if (!addGenerationPrompt) return out;
  out += "<|im_start|>assistant\n";
  if (reasoning === "final_output_only") out += "<think>\n\n</think>\n\n";
  else if (reasoning === "think") out += "<think>\n";
  return out;
}

/** reasoning_effort → mode for the templates whose thinking is on by default and switchable. */
export function switchableThinking(effort: string | undefined): ReasoningMode {
  if (effort === undefined) return "auto";
  return effort === "none" ? "final_output_only" : "think";
}

export const qwen3ChatTemplate: ChatTemplate = {
  family: "qwen3",
  source: "Qwen3's chat template (Qwen/Qwen3-0.6B tokenizer_config.json; llama.cpp models/templates/Qwen-Qwen3-0.6B.jinja)",
  reasoning: true,
  reasoningMode: switchableThinking,
  render: renderQwen3,
  detect: (t) => t.includes("<|im_start|>") && t.includes("<tool_call>") && t.includes("</think>") && t.includes("<tool_response>") && !t.includes("<function="),
};
