/**
 * The Kimi K3 chat template (the model's public Jinja template, as kept in llama.cpp's
 * models/templates/Kimi-K3.jinja), for text conversations:
 *
 * - tools: a system message of type `tool-declare` holding the tools as compact JSON with
 *   sorted keys; with thinking on, a `thinking-effort` system message follows;
 * - every message is `<|open|>message role="ROLE"<|sep|>…<|close|>message<|sep|><|end_of_msg|>`;
 *   an assistant message holds its channels: think (when thinking is on), response, and tools
 *   with one call per tool call, its arguments one `<|open|>argument key="K" type="T"<|sep|>` tag
 *   each (strings raw, other values as JSON);
 * - tool results are `role="tool" tool="NAME" index="N"` messages, in the order of the calls
 *   they answer when every result names its call;
 * - `tool_choice` "required"/"none" and a JSON `response_format` add a system message each;
 * - the prompt opens the assistant's message and then its think channel (thinking on) or its
 *   response channel (off).
 *
 * Reasoning modes: `think` is thinking on (the prompt opens the think channel), `final_output_only`
 * thinking off (it opens the response channel), `auto` renders like thinking on but opens no
 * channel (tagmask's mode: the model may think first). `reasoning_effort` "none" turns thinking
 * off; any other effort becomes the template's `thinking_effort` (low, medium, high, max; absent:
 * max, the template's default).
 */
import type { ChatMessage, ChatToolCall } from "../chat-messages.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import type { ReasoningMode } from "../types.js";
import { CLOSE, END_OF_MSG, OPEN, SEP, closeChannel, escapeAttribute } from "./markers.js";

function openTag(tag: string, attrs: [string, string | number][] = []): string {
  return `${OPEN}${tag}${attrs.map(([k, v]) => ` ${k}="${escapeAttribute(String(v))}"`).join("")}${SEP}`;
}

/** A whole message: open tag, body, close tag, end of message. */
function message(attrs: [string, string | number][], body: string): string {
  return `${openTag("message", attrs)}${body}${closeChannel("message")}${END_OF_MSG}`;
}

/** The template's `json_sorted`: compact JSON, keys sorted as Jinja's dictsort sorts them. */
function jsonSorted(value: unknown): string {
  return pythonJson(value, { itemSeparator: ",", keySeparator: ":", sortKeys: "casefold" });
}

function argumentType(value: unknown): string {
  if (typeof value === "boolean") return "boolean";
  if (value === null) return "null";
  if (typeof value === "number") return "number";
  if (typeof value === "string") return "string";
  return Array.isArray(value) ? "array" : "object";
}

function call(c: ChatToolCall, index: number): string {
  const args = Object.entries(c.arguments).map(([key, value]) =>
    `${openTag("argument", [["key", key], ["type", argumentType(value)]])}${typeof value === "string" ? value : pythonJson(value)}${closeChannel("argument")}`);
  return `${openTag("call", [["tool", c.name], ["index", index + 1]])}${args.join("")}${closeChannel("call")}`;
}

function assistant(m: Extract<ChatMessage, { role: "assistant" }>, thinking: boolean): string {
  let body = "";
  if (thinking) body += `${openTag("think")}${m.reasoning?.trim() ? m.reasoning : ""}${closeChannel("think")}`;
  body += `${openTag("response")}${m.content}${closeChannel("response")}`;
  if (m.toolCalls.length > 0) body += `${openTag("tools")}${m.toolCalls.map(call).join("")}${closeChannel("tools")}`;
  return message([["role", "assistant"]], body);
}

/** OpenAI's reasoning_effort as the template's thinking_effort. */
function thinkingEffort(effort: string | undefined): string {
  switch (effort) {
    case "minimal":
    case "low":
      return "low";
    case "medium":
      return "medium";
    case "high":
      return "high";
    default:
      return "max";
  }
}

function render(input: ChatTemplateInput): string {
  const { messages, tools, reasoning, addGenerationPrompt = true, toolChoice, responseFormat } = input;
  const thinking = reasoning !== "final_output_only";
  let out = "";
  if (tools.length > 0) {
    out += message([["role", "system"], ["type", "tool-declare"]], `# Tools\nHere are the available tools, described in JSONSchema.\n\n\`\`\`json\n${jsonSorted(tools)}\n\`\`\``);
  }
  if (thinking) {
    out += message([["role", "system"], ["type", "thinking-effort"]],
      "`thinking_effort` guides on how much to think in your thinking channel (not including the response channel), supported values include `low`, `medium`, `high`, and `max`.\n" +
      `Now the system is invoked with \`thinking_effort=${thinkingEffort(input.reasoningEffort)}\`.`);
  }
  let calls: ChatToolCall[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "system" || m.role === "user") {
      out += message([["role", m.role]], m.content);
    } else if (m.role === "assistant") {
      calls = m.toolCalls;
      out += assistant(m, thinking);
    } else {
      // A run of tool results: in the order of the calls when each names its call by id.
      let end = i;
      while (end < messages.length && messages[end]!.role === "tool") end++;
      const run = messages.slice(i, end) as Extract<ChatMessage, { role: "tool" }>[];
      const ordered = run.every((r) => r.byId)
        ? calls.flatMap((c) => run.filter((r) => r.toolCallId === c.id).map((r) => ({ ...r, name: c.name })))
        : run;
      ordered.forEach((r, k) => {
        out += message([["role", "tool"], ["tool", r.name], ["index", k + 1]], r.content);
      });
      i = end - 1;
    }
  }
  if (toolChoice === "required") {
    out += message([["role", "system"], ["type", "tool-choice"]], "The system is invoked with `tool_choice=required`.\nYou MUST call tools in the next message.");
  } else if (toolChoice === "none") {
    out += message([["role", "system"], ["type", "tool-choice"]], "The system is invoked with `tool_choice=none`.\nYou MUST NOT call any tools in the next message.");
  }
  const raw = "Your response must be raw JSON data without markdown code blocks (```json) or any additional formatting.";
  if (responseFormat?.type === "json_object") {
    out += message([["role", "system"], ["type", "response-format"]], `The system is invoked with \`response_format=json_object\`.\n${raw}`);
  } else if (responseFormat?.type === "json_schema") {
    out += message([["role", "system"], ["type", "response-format"]],
      `The system is invoked with \`response_format=json_schema\`.\n${raw}\nThe JSON data must match the following schema:\n\`\`\`json\n${jsonSorted(responseFormat.json_schema.schema ?? responseFormat.json_schema)}\n\`\`\``);
  }
  if (!addGenerationPrompt) return out;
  out += openTag("message", [["role", "assistant"]]);
  if (reasoning === "think") return out + openTag("think");
  if (reasoning === "final_output_only") return out + openTag("response");
  return out;
}

export const kimiK3ChatTemplate: ChatTemplate = {
  family: "kimi-k3",
  source: "Kimi K3's Jinja chat template (llama.cpp models/templates/Kimi-K3.jinja)",
  reasoning: true,
  reasoningMode: (effort): ReasoningMode => (effort === "none" ? "final_output_only" : "think"),
  render,
  detect: (template) => template.includes(OPEN) && template.includes(CLOSE) && template.includes(END_OF_MSG),
};
