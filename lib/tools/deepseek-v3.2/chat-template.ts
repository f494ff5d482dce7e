/**
 * The DeepSeek-V3.2 prompt, as the model's own encoder writes it (deepseek-ai/DeepSeek-V3.2
 * encoding/encoding_dsv32.py; the model ships no Jinja template). The tools go into a system
 * message ("## Tools" with the DSML call format and the functions as JSON lines); a user turn is
 * `<｜User｜>…<｜Assistant｜>` followed by `<think>` (thinking mode, last user message) or
 * `</think>`; an assistant turn is its content, then its calls as a DSML block
 * (`\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="NAME">\n<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>…`),
 * then `<｜end▁of▁sentence｜>`; tool results are `<result>` lines in a `<function_results>` block
 * after which the model continues the same turn (`\n\n<think>` or `\n\n</think>`).
 *
 * The encoder takes the tools as a field of a system message; tagmask gives them to the
 * conversation's first system message, or to an empty one put first (vLLM always puts a new
 * empty one first, which moves the tools before the client's system prompt).
 *
 * Reasoning modes: `final_output_only` is the encoder's chat mode, `think` its thinking mode;
 * `auto` (tagmask's) is thinking mode without the final `<think>`. reasoning_effort "none" or
 * none given: chat mode; any other: thinking.
 */
import { RequestError } from "../../errors.js";
import type { ChatMessage, ChatToolCall } from "../chat-messages.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { thinkingOnRequest } from "../chat-reasoning.js";
import { DEEPSEEK_BOS, DEEPSEEK_EOS } from "../deepseek-v3.1/chat-template.js";
import { rawOrJson } from "../glm-4.7/chat-template.js";
import type { FunctionTool } from "../types.js";
import { DSML } from "./builder.js";

const TOOLS_PROMPT = (tools: readonly FunctionTool[]): string => `## Tools
You have access to a set of tools you can use to answer the user's question.
You can invoke functions by writing a "<${DSML}function_calls>" block like the following as part of your reply to the user:
<${DSML}function_calls>
<${DSML}invoke name="$FUNCTION_NAME">
<${DSML}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</${DSML}parameter>
...
</${DSML}invoke>
<${DSML}invoke name="$FUNCTION_NAME2">
...
</${DSML}invoke>
</${DSML}function_calls>
String and scalar parameters should be specified as is without any escaping or quotes, while lists and objects should use JSON format. The "string" attribute should be set to "true" for string type parameters and "false" for other types (numbers, booleans, arrays, objects).
If the thinking_mode is enabled, then after function results you should strongly consider outputting a thinking block. Here is an example:
<${DSML}function_calls>
...
</${DSML}function_calls>
<function_results>
...
</function_results>
<think>...thinking about results</think>
Here are the functions available in JSONSchema format:
<functions>
${tools.map((t) => pythonJson(t.function)).join("\n")}
</functions>
`;

/** A message of DeepSeek's encoders: the conversation's, or the empty system message that carries the tools. */
export type DeepseekMessage = ChatMessage | { role: "system"; content: string; tools: readonly FunctionTool[] };

/** The conversation with the tools on its first system message (one is put first when it has none). */
export function withToolsOnSystem(messages: readonly ChatMessage[], tools: readonly FunctionTool[]): DeepseekMessage[] {
  if (tools.length === 0) return [...messages];
  const [first, ...rest] = messages;
  if (first?.role === "system") return [{ ...first, tools }, ...rest];
  return [{ role: "system", content: "", tools }, ...messages];
}

/** One call as a DSML invoke block: string values raw with `string="true"`, others as JSON. */
export function dsmlInvoke(call: ChatToolCall): string {
  const params = Object.entries(call.arguments).map(([k, v]) =>
    `<${DSML}parameter name="${k}" string="${typeof v === "string"}">${rawOrJson(v)}</${DSML}parameter>`);
  return `<${DSML}invoke name="${call.name}">\n${params.join("\n")}\n</${DSML}invoke>`;
}

/** The calls of an assistant message as the DSML block named `block`, after a blank line; "" without calls. */
export function dsmlCalls(calls: readonly ChatToolCall[], block: string): string {
  return calls.length === 0 ? "" : `\n\n<${DSML}${block}>\n${calls.map(dsmlInvoke).join("\n")}\n</${DSML}${block}>`;
}

/** The index of the last user message (-1: none). */
export function lastUserIndex(messages: readonly { role: string }[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return i;
  return -1;
}

/** The conversation's text and, apart, the opener of the model's turn that ends it (when it ends with one). */
function encode(messages: readonly DeepseekMessage[], thinking: boolean, offset: number): { body: string; opener: string } {
  const lastUser = lastUserIndex(messages);
  let body = DEEPSEEK_BOS;
  let opener = "";
  messages.forEach((m, i) => {
    body += opener;
    opener = "";
    if (m.role === "system") {
      body += m.content;
      if ("tools" in m) body += `\n\n${TOOLS_PROMPT(m.tools)}`;
    } else if (m.role === "user") {
      body += `<｜User｜>${m.content}`;
      opener = `<｜Assistant｜>${i === lastUser && thinking ? "<think>" : "</think>"}`;
    } else if (m.role === "tool") {
      let start = i - 1;
      while (start >= 0 && messages[start]!.role === "tool") start--;
      const order = i - start;
      const owner = messages[start];
      const calls = owner?.role === "assistant" ? owner.toolCalls.length : 0;
      if (order === 1) body += "\n\n<function_results>";
      body += `\n<result>${m.content}</result>`;
      if (order === calls) {
        body += "\n</function_results>";
        opener = `\n\n${i >= lastUser && thinking ? "<think>" : "</think>"}`;
      }
    } else {
      let thought = "";
      if (thinking && i > lastUser) {
        if (m.reasoning === undefined && m.toolCalls.length === 0) {
          const param = `messages[${i - offset}]`;
          throw new RequestError(400, `${param}: in thinking mode DeepSeek-V3.2's encoder needs reasoning_content (or tool_calls) on an assistant message after the last user message`, { param });
        }
        thought = `${m.reasoning ?? ""}</think>`;
      }
      body += `${thought}${m.content}${dsmlCalls(m.toolCalls, "function_calls")}${DEEPSEEK_EOS}`;
    }
  });
  return { body, opener };
}

function render({ messages, tools, reasoning, addGenerationPrompt = true }: ChatTemplateInput): string {
  // The encoder's indices count the system message that carries the tools; errors name the client's.
  const all = withToolsOnSystem(messages, tools);
  const { body, opener } = encode(all, reasoning !== "final_output_only", all.length - messages.length);
  if (!addGenerationPrompt) return body;
  return reasoning === "auto" ? body + opener.replace(/<think>$/, "") : body + opener;
}

export const deepseekV32ChatTemplate: ChatTemplate = {
  family: "deepseek-v3.2",
  source: "DeepSeek-V3.2's encoder (deepseek-ai/DeepSeek-V3.2 encoding/encoding_dsv32.py; no Jinja template ships)",
  reasoning: true,
  reasoningMode: thinkingOnRequest,
  render,
  detect: (t) => t.includes(DSML) && t.includes("function_calls"),
};
