/**
 * The Llama 3 chat template (Llama 3.1 / 3.3 Instruct, tokenizer_config.json; kept in llama.cpp
 * as models/templates/meta-llama-Llama-3.3-70B-Instruct.jinja), JSON tool calling:
 * `<|start_header_id|>ROLE<|end_header_id|>\n\n…<|eot_id|>` turns, a system turn with the
 * knowledge and today's date (the template's default, 26 Jul 2024) and "Environment: ipython"
 * when there are tools, the tools as indented JSON in the first user turn, a call as
 * `{"name": …, "parameters": …}`, a tool result in an `ipython` turn (a string result is written
 * as a JSON string, as the template's `is iterable` test does). The template takes one call per
 * assistant message: several are refused. No reasoning: every mode renders alike.
 */
import { RequestError } from "../../errors.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { trim } from "../chat-text.js";

const BOS = "<|begin_of_text|>";

function header(role: string): string {
  return `<|start_header_id|>${role}<|end_header_id|>\n\n`;
}

function render({ messages, tools, addGenerationPrompt = true }: ChatTemplateInput): string {
  let rest = [...messages];
  let system = "";
  if (rest[0]?.role === "system") {
    system = trim(rest[0].content);
    rest = rest.slice(1);
  }
  let out = `${BOS}${header("system")}`;
  if (tools.length > 0) out += "Environment: ipython\n";
  out += `Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n${system}<|eot_id|>`;
  if (tools.length > 0) {
    const first = rest[0];
    if (!first) throw new RequestError(400, "messages: the llama3 chat template puts the tools into the first user message, and there is none", { param: "messages" });
    rest = rest.slice(1);
    out += `${header("user")}Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n` +
      'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.Do not use variables.\n\n';
    for (const t of tools) out += `${pythonJson(t, { indent: 4 })}\n\n`;
    out += `${trim(first.content)}<|eot_id|>`;
  }
  const offset = messages.length - rest.length;
  rest.forEach((m, i) => {
    if (m.role === "tool") {
      out += `${header("ipython")}${pythonJson(m.content)}<|eot_id|>`;
    } else if (m.role === "assistant" && m.toolCalls.length > 0) {
      if (m.toolCalls.length !== 1) {
        const param = `messages[${offset + i}].tool_calls`;
        throw new RequestError(400, `${param}: the llama3 chat template takes one tool call per assistant message, found ${m.toolCalls.length}`, { param });
      }
      const c = m.toolCalls[0]!;
      out += `${header("assistant")}{"name": "${c.name}", "parameters": ${pythonJson(c.arguments)}}<|eot_id|>`;
    } else {
      out += `${header(m.role)}${trim(m.content)}<|eot_id|>`;
    }
  });
  return addGenerationPrompt ? `${out}${header("assistant")}` : out;
}

export const llama3ChatTemplate: ChatTemplate = {
  family: "llama3",
  source: "Llama 3.1/3.3 Instruct's chat template (meta-llama/Llama-3.3-70B-Instruct tokenizer_config.json)",
  reasoning: false,
  reasoningMode: () => "final_output_only",
  render,
  detect: (t) => t.includes("<|start_header_id|>") && t.includes("<|eot_id|>") && t.includes("ipython"),
};
