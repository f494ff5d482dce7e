/**
 * The Kimi K3 chat template. K3 has no public Jinja template; this is tagmask's rendering of a
 * conversation in the K3 channel format (spec: outline.md, "The Kimi K3 tool-call format"), the
 * same markers the builder and parser use:
 *
 * - system: `<|open|>system<|sep|>TEXT<|close|>system<|sep|>`
 * - tools (after the leading system messages): `<|open|>tool_declare<|sep|>` + the tools as a
 *   JSON list + `<|close|>tool_declare<|sep|>`
 * - user: `<|open|>user<|sep|>TEXT<|close|>user<|sep|>`
 * - assistant: the message as the model writes it — think channel (only in the turn still in
 *   progress, i.e. after the last user message), response channel, tools channel with each call
 *   in the JSON-object argument form — then `<|close|>message<|sep|><|end_of_msg|>`
 * - tool result: `<|open|>tool_result tool="NAME" index="N"<|sep|>TEXT<|close|>tool_result<|sep|>`,
 *   N the call's index (from 1) in its message
 *
 * The prompt ends where the grammar starts: `final_output_only` opens the response channel,
 * `think` opens the think channel, `auto` opens nothing (the model may think first).
 */
import type { ChatMessage, ChatToolCall } from "../chat-messages.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import {
  CALL_CLOSE, CALL_INDEX_PREFIX, CALL_OPEN_PREFIX, CALL_OPEN_SUFFIX, CLOSE, END_OF_MSG, JSON_CLOSE, JSON_OPEN, MESSAGE_CLOSE, OPEN,
  RESPONSE_CLOSE, RESPONSE_OPEN, SEP, THINK_CLOSE, THINK_OPEN, TOOLS_CLOSE, TOOLS_OPEN, closeChannel, escapeAttribute, openChannel,
} from "./markers.js";

function call(c: ChatToolCall, index: number): string {
  return `${CALL_OPEN_PREFIX}${escapeAttribute(c.name)}${CALL_INDEX_PREFIX}${index + 1}${CALL_OPEN_SUFFIX}` +
    `${JSON_OPEN}${JSON.stringify(c.arguments)}${JSON_CLOSE}${CALL_CLOSE}`;
}

function assistant(m: Extract<ChatMessage, { role: "assistant" }>, withReasoning: boolean): string {
  let out = "";
  if (withReasoning && m.reasoning) out += `${THINK_OPEN}${m.reasoning}${THINK_CLOSE}`;
  if (m.content !== "" || m.toolCalls.length === 0) out += `${RESPONSE_OPEN}${m.content}${RESPONSE_CLOSE}`;
  if (m.toolCalls.length > 0) out += `${TOOLS_OPEN}${m.toolCalls.map(call).join("")}${TOOLS_CLOSE}`;
  return `${out}${MESSAGE_CLOSE}${END_OF_MSG}`;
}

function render({ messages, tools, reasoning, addGenerationPrompt = true }: ChatTemplateInput): string {
  let out = "";
  let i = 0;
  for (; i < messages.length && messages[i]!.role === "system"; i++) out += `${openChannel("system")}${messages[i]!.content}${closeChannel("system")}`;
  if (tools.length > 0) out += `${openChannel("tool_declare")}${JSON.stringify(tools)}${closeChannel("tool_declare")}`;
  let lastUser = -1;
  messages.forEach((m, k) => {
    if (m.role === "user") lastUser = k;
  });
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    switch (m.role) {
      case "system":
      case "user":
        out += `${openChannel(m.role)}${m.content}${closeChannel(m.role)}`;
        break;
      case "assistant":
        out += assistant(m, i > lastUser);
        break;
      case "tool":
        out += `${OPEN}tool_result tool="${escapeAttribute(m.name)}" index="${m.callIndex + 1}"${SEP}${m.content}${CLOSE}tool_result${SEP}`;
        break;
    }
  }
  if (!addGenerationPrompt) return out;
  if (reasoning === "final_output_only") return out + RESPONSE_OPEN;
  if (reasoning === "think") return out + THINK_OPEN;
  return out;
}

export const kimiK3ChatTemplate: ChatTemplate = {
  family: "kimi-k3",
  source: "tagmask's own rendering in the K3 channel format (K3 publishes no Jinja template); spec: outline.md",
  reasoning: true,
  render,
  detect: (template) => template.includes(OPEN) && template.includes(CLOSE) && template.includes(END_OF_MSG),
};
