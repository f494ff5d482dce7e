/**
 * The DeepSeek R1 chat template with tools (R1-0528's tool format), as vLLM's
 * examples/tool_chat_template_deepseekr1.jinja (adapted from SGLang's) writes it, whitespace as in
 * DeepSeek's one-line templates: the tool instructions and each tool as a ```json block in the
 * system prompt, `<｜User｜>…<｜Assistant｜>`, calls as `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>
 * function<｜tool▁sep｜>NAME\n```json\nARGS\n```<｜tool▁call▁end｜>` (newline-separated),
 * results inside `<｜tool▁outputs▁begin｜>…<｜tool▁outputs▁end｜>`, after which the model
 * continues.
 *
 * R1 opens its `<think>` block itself: the template's prompt is the `auto` mode (reasoning_effort
 * absent); `think` (any effort) adds `<think>\n`, `final_output_only` ("none") an empty think
 * block `<think>\n\n</think>\n\n` — tagmask's modes.
 */
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { switchableThinking } from "../qwen3/chat-template.js";
import { DEEPSEEK_BOS, DEEPSEEK_EOS, deepseekSystemPrompt } from "../deepseek-v3.1/chat-template.js";

const TOOL_INTRO = "You are a helpful assistant with tool calling capabilities. When a tool call is needed, you MUST use the following format to issue the call:\n" +
  "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>FUNCTION_NAME\n```json\n{\"param1\": \"value1\", \"param2\": \"value2\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n\n" +
  "Make sure the JSON is valid.## Tools\n\n### Function\n\nYou have the following functions available:\n\n";

function render(input: ChatTemplateInput): string {
  const { messages, tools, reasoning, addGenerationPrompt = true } = input;
  let system = deepseekSystemPrompt(input);
  if (tools.length > 0) system += `\n\n${TOOL_INTRO}${tools.map((t) => `\n\`\`\`json\n${pythonJson(t)}\n\`\`\`\n`).join("")}`;
  let out = DEEPSEEK_BOS + system;
  let lastUser = false;
  let inOutputs = false;
  let firstOutput = true;
  for (const m of messages) {
    if (m.role === "user") {
      inOutputs = false;
      lastUser = true;
      out += `<｜User｜>${m.content}<｜Assistant｜>`;
    } else if (m.role === "assistant") {
      const parts = m.content.split("</think>");
      const content = parts[parts.length - 1]!;
      lastUser = false;
      if (m.toolCalls.length > 0) {
        if (inOutputs) out += "<｜tool▁outputs▁end｜>";
        inOutputs = false;
        firstOutput = true;
        m.toolCalls.forEach((c, k) => {
          out += `${k === 0 ? `${content}<｜tool▁calls▁begin｜>` : "\n"}<｜tool▁call▁begin｜>function<｜tool▁sep｜>${c.name}\n\`\`\`json\n${pythonJson(c.arguments)}\n\`\`\`<｜tool▁call▁end｜>`;
        });
        out += `<｜tool▁calls▁end｜>${DEEPSEEK_EOS}`;
      } else {
        out += `${inOutputs ? "<｜tool▁outputs▁end｜>" : ""}${content}${DEEPSEEK_EOS}`;
        inOutputs = false;
      }
    } else if (m.role === "tool") {
      lastUser = false;
      inOutputs = true;
      out += `${firstOutput ? "<｜tool▁outputs▁begin｜>" : "\n"}<｜tool▁output▁begin｜>${m.content}<｜tool▁output▁end｜>`;
      firstOutput = false;
    }
  }
  if (inOutputs) out += "<｜tool▁outputs▁end｜>";
  if (!addGenerationPrompt) return out;
  if (!lastUser && !inOutputs) out += "<｜Assistant｜>";
  if (reasoning === "think") return `${out}<think>\n`;
  if (reasoning === "final_output_only") return `${out}<think>\n\n</think>\n\n`;
  return out;
}

export const deepseekR1ChatTemplate: ChatTemplate = {
  family: "deepseek-r1",
  source: "DeepSeek R1's chat template with tools (vLLM examples/tool_chat_template_deepseekr1.jinja, adapted from SGLang's)",
  reasoning: true,
  reasoningMode: (effort) => (effort === undefined ? "auto" : switchableThinking(effort)),
  render,
  detect: (t) => t.includes("<｜tool▁outputs▁begin｜>") && t.includes("<｜tool▁calls▁begin｜>"),
};
