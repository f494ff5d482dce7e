/**
 * The Mistral chat templates, by tokenizer variant (the family's `variant`):
 *
 * - `v3`: Mistral-Nemo-Instruct-2407's template (Tekken, the `[TOOL_CALLS][` form the grammar
 *   writes): `<s>`, `[INST]…[/INST]` turns (the system message joined to the last user message,
 *   only when the conversation ends with it), `[AVAILABLE_TOOLS][…][/AVAILABLE_TOOLS]` before the
 *   last user message (string fields unescaped, as the template writes them), calls as
 *   `[TOOL_CALLS][{"name": …, "arguments": …, "id": "ID"}, …]</s>` (an assistant message with
 *   calls loses its text), results as `[TOOL_RESULTS]{"content": TEXT, "call_id": "ID"}[/TOOL_RESULTS]`.
 * - `v13`: Ministral-3-14B-Instruct-2512's template: `<s>[SYSTEM_PROMPT]…[/SYSTEM_PROMPT]` (its
 *   own default when the conversation has none), `[AVAILABLE_TOOLS]JSON[/AVAILABLE_TOOLS]`,
 *   `[INST]…[/INST]`, an assistant turn's text then `[TOOL_CALLS]NAME[ARGS]{…}` per call and `</s>`,
 *   results as `[TOOL_RESULTS]…[/TOOL_RESULTS]`.
 * - `v11` (Mistral-Small-3.2, `[CALL_ID]`): no template of the model could be checked; refused
 *   with a `ToolError` naming the variants that render.
 *
 * Both templates refuse what the models were not trained on: user and assistant turns that do
 * not alternate (tool calls and results aside), a system message after the first. v3 needs
 * nine-character call ids: an id of another shape becomes its last nine letters and digits
 * (vLLM keeps an id's last nine characters), left-padded with zeros. Neither template opens the
 * model's turn (the prompt ends where the model writes) and neither has reasoning: every mode
 * renders alike.
 */
import { RequestError, ToolError } from "../../errors.js";
import type { ChatMessage } from "../chat-messages.js";
import { pythonJson, pythonJsonString } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import type { FunctionTool } from "../types.js";
import { MISTRAL, mistralVariantOf } from "./index.js";

const BOS = "<s>";
const EOS = "</s>";

/** The nine-character id the templates require for a call id of any shape. */
export function mistralCallId(id: string): string {
  if (/^[A-Za-z0-9]{9}$/.test(id)) return id;
  const alnum = id.replace(/[^A-Za-z0-9]/g, "");
  return alnum.length >= 9 ? alnum.slice(-9) : alnum.padStart(9, "0");
}

/** Refuses turns that do not alternate user / assistant (`counted` says which messages take part). */
function checkAlternation(messages: readonly ChatMessage[], offset: number, counted: (m: ChatMessage) => boolean): void {
  let n = 0;
  messages.forEach((m, i) => {
    if (m.role === "system") {
      const param = `messages[${i + offset}]`;
      throw new RequestError(400, `${param}: the mistral chat template takes one system message, the first`, { param });
    }
    if (!counted(m)) return;
    if ((m.role === "user") !== (n % 2 === 0)) {
      const param = `messages[${i + offset}]`;
      throw new RequestError(400, `${param}: the mistral chat template needs user and assistant turns to alternate (tool calls and results aside), starting with a user turn; found ${m.role === "user" ? "two user turns" : "an assistant turn"} in a row`, { param });
    }
    n++;
  });
}

/** A tool declaration as the v3 template writes it: string fields between quotes as they are. */
function v3Tool(tool: FunctionTool): string {
  const fields = Object.entries(tool.function).filter(([k]) => k !== "return")
    .map(([k, v]) => (typeof v === "string" ? `"${k}": "${v}"` : `"${k}": ${pythonJson(v)}`));
  return `{"type": "function", "function": {${fields.join(", ")}}}`;
}

function renderV3(messages: readonly ChatMessage[], tools: readonly FunctionTool[]): string {
  const system = messages[0]?.role === "system" ? messages[0].content : undefined;
  const rest = system === undefined ? messages : messages.slice(1);
  checkAlternation(rest, messages.length - rest.length, (m) => m.role === "user" || (m.role === "assistant" && m.toolCalls.length === 0));
  let lastUser: string | undefined;
  for (const m of rest) if (m.role === "user") lastUser = m.content;
  let out = BOS;
  rest.forEach((m, i) => {
    if (m.role === "user") {
      // The template compares messages by value: every user message equal to the last gets the tools.
      if (tools.length > 0 && m.content === lastUser) out += `[AVAILABLE_TOOLS][${tools.map(v3Tool).join(", ")}][/AVAILABLE_TOOLS]`;
      const text = i === rest.length - 1 && system !== undefined ? `${system}\n\n${m.content}` : m.content;
      out += `[INST]${text}[/INST]`;
    } else if (m.role === "assistant" && m.toolCalls.length > 0) {
      const calls = m.toolCalls.map((c) => `{"name": ${pythonJsonString(c.name)}, "arguments": ${pythonJson(c.arguments)}, "id": "${mistralCallId(c.id)}"}`);
      out += `[TOOL_CALLS][${calls.join(", ")}]${EOS}`;
    } else if (m.role === "assistant") {
      out += m.content + EOS;
    } else if (m.role === "tool") {
      out += `[TOOL_RESULTS]{"content": ${m.content}, "call_id": "${mistralCallId(m.toolCallId)}"}[/TOOL_RESULTS]`;
    }
  });
  return out;
}

const V13_DEFAULT_SYSTEM = "You are Ministral-3-14B-Instruct-2512, a Large Language Model (LLM) created by Mistral AI, a French startup headquartered in Paris.\n" +
  "You power an AI assistant called Le Chat.\nYour knowledge base was last updated on 2023-10-01.\nThe current date is {today}.\n\n" +
  "When you're not sure about some information or when the user's request requires up-to-date or specific data, you must use the available tools to fetch the information. " +
  "Do not hesitate to use tools whenever they can provide a more accurate or complete response. If no relevant tools are available, then clearly state that you don't have the information and avoid making up anything.\n" +
  "If the user's question is not clear, ambiguous, or does not provide enough context for you to accurately answer the question, you do not try to answer it right away and you rather ask the user to clarify their request " +
  "(e.g. \"What are some good restaurants around me?\" => \"Where are you?\" or \"When is the next flight to Tokyo\" => \"Where do you travel from?\").\n" +
  "You are always very attentive to dates, in particular you try to resolve dates (e.g. \"yesterday\" is {yesterday}) and when asked about information at specific dates, you discard information that is at another date.\n" +
  "You follow these instructions in all languages, and always respond to the user in the language they use or request.\nNext sections describe the capabilities that you have.\n\n" +
  "# WEB BROWSING INSTRUCTIONS\n\nYou cannot perform any web search or access internet to open URLs, links etc. If it seems like the user is expecting you to do so, you clarify the situation and ask the user to copy paste the text directly in the chat.\n\n" +
  "# MULTI-MODAL INSTRUCTIONS\n\nYou have the ability to read images, but you cannot generate images. You also cannot transcribe audio files or videos.\nYou cannot read nor transcribe audio files or videos.\n\n" +
  "# TOOL CALLING INSTRUCTIONS\n\nYou may have access to tools that you can use to fetch information or perform actions. You must use these tools in the following situations:\n\n" +
  "1. When the request requires up-to-date information.\n2. When the request requires specific data that you do not have in your knowledge base.\n3. When the request involves actions that you cannot perform without tools.\n\n" +
  "Always prioritize using tools to provide the most accurate and helpful response. If tools are not available, inform the user that you cannot perform the requested action at the moment.";

function renderV13(messages: readonly ChatMessage[], tools: readonly FunctionTool[]): string {
  const system = messages[0]?.role === "system" ? messages[0].content : undefined;
  const rest = system === undefined ? messages : messages.slice(1);
  const offset = messages.length - rest.length;
  let out = `${BOS}[SYSTEM_PROMPT]${system ?? V13_DEFAULT_SYSTEM}[/SYSTEM_PROMPT]`;
  if (tools.length > 0) out += `[AVAILABLE_TOOLS]${pythonJson(tools)}[/AVAILABLE_TOOLS]`;
  checkAlternation(rest, offset, (m) => m.role === "user" || (m.role === "assistant" && m.toolCalls.length === 0));
  rest.forEach((m, i) => {
    if (m.role === "user") {
      out += `[INST]${m.content}[/INST]`;
    } else if (m.role === "assistant") {
      if (m.content === "" && m.toolCalls.length === 0) {
        const param = `messages[${i + offset}]`;
        throw new RequestError(400, `${param}: the mistral v13 chat template needs an assistant message to have content or tool calls`, { param });
      }
      out += m.content;
      for (const c of m.toolCalls) out += `[TOOL_CALLS]${c.name}[ARGS]${pythonJson(c.arguments)}`;
      out += EOS;
    } else if (m.role === "tool") {
      out += `[TOOL_RESULTS]${m.content}[/TOOL_RESULTS]`;
    }
  });
  return out;
}

const RENDERED = ["v3", "v13"] as const;

function render({ messages, tools, variant }: ChatTemplateInput): string {
  const v = variant ?? MISTRAL.variants![0]!;
  if (v === "v3") return renderV3(messages, tools);
  if (v === "v13") return renderV13(messages, tools);
  throw new ToolError("variant", `no chat template for the mistral variant ${JSON.stringify(v)}: the renderer follows ${RENDERED.join(" and ")} (v11, Mistral-Small-3.2, has no template that could be checked here)`);
}

export const mistralChatTemplate: ChatTemplate = {
  family: "mistral",
  source: "Mistral's chat templates (v3: mistralai/Mistral-Nemo-Instruct-2407 tokenizer_config.json; v13: mistralai/Ministral-3-14B-Instruct-2512 chat_template.jinja)",
  reasoning: false,
  variants: RENDERED,
  variantOf: mistralVariantOf,
  reasoningMode: () => "final_output_only",
  render,
  detect: (t) => t.includes("[INST]") && t.includes("[TOOL_CALLS]"),
};
