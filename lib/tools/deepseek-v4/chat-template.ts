/**
 * The DeepSeek-V4 prompt, as the model's own encoder writes it (deepseek-ai/DeepSeek-V4-Pro
 * encoding/encoding_dsv4.py; the model ships no Jinja template). As V3.2 (the tools on a system
 * message, DSML calls) with these differences: the call block is `<｜DSML｜tool_calls>`; tool
 * results become a user turn (`<｜User｜><tool_result>…</tool_result>`, blocks joined by a blank
 * line, in the order of the calls they answer, a following user message joined to them), after
 * which a new `<｜Assistant｜>` turn opens; the tools prompt is V4's; and when tools are declared
 * every assistant turn keeps its reasoning and every user turn opens `<think>` in thinking mode
 * (the encoder keeps the reasoning of conversations with tools).
 *
 * Reasoning modes as V3.2's (`final_output_only` chat mode, `think` thinking mode, `auto` thinking
 * without the final `<think>`); reasoning_effort "max" or "xhigh" adds V4's maximum-effort
 * instruction at the start of the prompt in thinking mode.
 */
import type { ChatMessage } from "../chat-messages.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import { thinkingOnRequest } from "../chat-reasoning.js";
import { DEEPSEEK_BOS, DEEPSEEK_EOS } from "../deepseek-v3.1/chat-template.js";
import { DSML } from "../deepseek-v3.2/builder.js";
import { dsmlCalls, lastUserIndex, withToolsOnSystem, type DeepseekMessage } from "../deepseek-v3.2/chat-template.js";
import type { FunctionTool } from "../types.js";

const EFFORT_MAX = "Reasoning Effort: Absolute maximum with no shortcuts permitted.\n" +
  "You MUST be very thorough in your thinking and comprehensively decompose the problem to resolve the root cause, rigorously stress-testing your logic against all potential paths, edge cases, and adversarial scenarios.\n" +
  "Explicitly write out your entire deliberation process, documenting every intermediate step, considered alternative, and rejected hypothesis to ensure absolutely no assumption is left unchecked.\n\n";

const TOOLS_PROMPT = (tools: readonly FunctionTool[]): string => `## Tools

You have access to a set of tools to help answer the user's question. You can invoke tools by writing a "<${DSML}tool_calls>" block like the following:

<${DSML}tool_calls>
<${DSML}invoke name="$TOOL_NAME">
<${DSML}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</${DSML}parameter>
...
</${DSML}invoke>
<${DSML}invoke name="$TOOL_NAME2">
...
</${DSML}invoke>
</${DSML}tool_calls>

String parameters should be specified as is and set \`string="true"\`. For all other types (numbers, booleans, arrays, objects), pass the value in JSON format and set \`string="false"\`.

If thinking_mode is enabled (triggered by <think>), you MUST output your complete reasoning inside <think>...</think> BEFORE any tool calls or final response.

Otherwise, output directly after </think> with tool calls or final response.

### Available Tool Schemas

${tools.map((t) => pythonJson(t.function)).join("\n")}

You MUST strictly follow the above defined tool name and parameter schemas to invoke tool calls.
`;

/** A block of a V4 user turn: user text, or a tool result with the position of the call it answers. */
interface Block {
  text: string;
  /** The answered call's position (results without a matching id count as the first); absent: user text. */
  order?: number;
}

/** A turn of V4's encoder: tool results and the user text after them are one user turn of blocks. */
type V4Turn = Exclude<DeepseekMessage, { role: "user" } | { role: "tool" }> | { role: "user"; blocks: Block[] };

/** Tool results and user messages merged into user turns, each turn's results in the order of their calls, as the encoder does. */
function v4Turns(messages: readonly DeepseekMessage[]): V4Turn[] {
  const turns: V4Turn[] = [];
  for (const m of messages) {
    const last = turns[turns.length - 1];
    if (m.role === "tool" || m.role === "user") {
      const block: Block = m.role === "tool" ? { text: `<tool_result>${m.content}</tool_result>`, order: m.byId ? m.callIndex : 0 } : { text: m.content };
      if (last?.role === "user") last.blocks.push(block);
      else turns.push({ role: "user", blocks: [block] });
    } else {
      turns.push(m);
    }
  }
  for (const t of turns) {
    if (t.role !== "user") continue;
    // Results take the places of results, sorted (stably) by call; user text keeps its place.
    const sorted = t.blocks.filter((b) => b.order !== undefined).sort((a, b) => a.order! - b.order!);
    let k = 0;
    t.blocks = t.blocks.map((b) => (b.order === undefined ? b : sorted[k++]!));
  }
  return turns;
}

function render({ messages, tools, reasoning, reasoningEffort, addGenerationPrompt = true }: ChatTemplateInput): string {
  const turns = v4Turns(withToolsOnSystem(messages, tools));
  const thinking = reasoning !== "final_output_only";
  // With tools declared the encoder keeps every turn's reasoning.
  const keepAll = tools.length > 0;
  const lastUser = lastUserIndex(turns);
  let out = DEEPSEEK_BOS;
  if (thinking && (reasoningEffort === "max" || reasoningEffort === "xhigh")) out += EFFORT_MAX;
  let opener = "";
  turns.forEach((t, i) => {
    if (t.role === "system") {
      out += t.content;
      if ("tools" in t) out += `\n\n${TOOLS_PROMPT(t.tools)}`;
    } else if (t.role === "user") {
      out += `<｜User｜>${t.blocks.map((b) => b.text).join("\n\n")}`;
    } else {
      const a = t as Extract<ChatMessage, { role: "assistant" }>;
      const thought = thinking && (keepAll || i > lastUser) ? `${a.reasoning ?? ""}</think>` : "";
      out += `${thought}${a.content}${dsmlCalls(a.toolCalls, "tool_calls")}${DEEPSEEK_EOS}`;
    }
    const next = turns[i + 1];
    if (t.role === "user" && (next === undefined || next.role === "assistant")) {
      const open = `<｜Assistant｜>${thinking && (keepAll || i >= lastUser) ? "<think>" : "</think>"}`;
      if (next === undefined) opener = open;
      else out += open;
    }
  });
  if (!addGenerationPrompt) return out;
  return reasoning === "auto" ? out + opener.replace(/<think>$/, "") : out + opener;
}

export const deepseekV4ChatTemplate: ChatTemplate = {
  family: "deepseek-v4",
  source: "DeepSeek-V4's encoder (deepseek-ai/DeepSeek-V4-Pro encoding/encoding_dsv4.py; no Jinja template ships)",
  reasoning: true,
  reasoningMode: thinkingOnRequest,
  render,
  detect: (t) => t.includes(DSML) && t.includes("tool_calls") && !t.includes("function_calls"),
};
