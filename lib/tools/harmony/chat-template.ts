/**
 * The harmony chat template of gpt-oss (openai/gpt-oss-* chat_template.jinja, kept in llama.cpp
 * as models/templates/openai-gpt-oss-120b.jinja): `<|start|>ROLE<|message|>…<|end|>` messages; a
 * system message with the model identity, knowledge cutoff, today's date and the reasoning
 * level; a developer message with the first system message as "# Instructions" and the tools as
 * a TypeScript namespace; assistant answers in the `final` channel, calls as
 * `<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>ARGS<|call|>` (an
 * accompanying text or reasoning in the `analysis` channel, unless a later final answer exists),
 * tool results from `functions.NAME` as JSON strings.
 *
 * The template renders one call per assistant message — the first; gpt-oss makes one call per
 * message, and clients should send its calls so. Later system messages are not rendered (as in
 * the template). The prompt ends at `<|start|>assistant`: the model picks its channel, so every
 * request is in the `auto` reasoning mode; reasoning_effort sets the template's "Reasoning:"
 * level (none and minimal become low, xhigh and max high; absent: medium).
 */
import type { ChatMessage } from "../chat-messages.js";
import { pythonJson } from "../chat-json.js";
import type { ChatTemplate, ChatTemplateInput } from "../chat-templates.js";
import type { FunctionTool } from "../types.js";

type Schema = Record<string, unknown>;

const asSchema = (v: unknown): Schema => (v !== null && typeof v === "object" && !Array.isArray(v) ? v as Schema : {});

/** The template's render_typescript_type. */
function tsType(spec: Schema): string {
  const nullable = spec.nullable ? " | null" : "";
  const type = spec.type;
  if (type === "array") {
    const items = spec.items;
    if (!items || (typeof items === "object" && Object.keys(items).length === 0)) return `any[]${nullable}`;
    const itemType = asSchema(items).type;
    if (itemType === "string") return `string[]${nullable}`;
    if (itemType === "number" || itemType === "integer") return `number[]${nullable}`;
    if (itemType === "boolean") return `boolean[]${nullable}`;
    const inner = tsType(asSchema(items));
    return `${inner === "object | object" || inner.length > 50 ? "any[]" : `${inner}[]`}${nullable}`;
  }
  if (Array.isArray(type) && type.length > 0) return type.length > 1 ? type.join(" | ") : String(type[0]);
  if (Array.isArray(spec.oneOf) && spec.oneOf.length > 0) {
    const variants = spec.oneOf.map(asSchema);
    if (variants.some((v) => v.type === "object") && variants.length > 1) return "any";
    return variants.map((v, i) => {
      let s = tsType(v);
      if (v.description) s += `// ${String(v.description)}`;
      if (v.default !== undefined) s += `\n                    // default: ${pythonJson(v.default)}`;
      return i < variants.length - 1 ? `${s} | \n` : s;
    }).join("");
  }
  if (type === "string") {
    if (Array.isArray(spec.enum) && spec.enum.length > 0) return `"${spec.enum.join('" | "')}"`;
    return `string${nullable}`;
  }
  if (type === "number" || type === "integer") return "number";
  if (type === "boolean") return "boolean";
  if (type === "object") {
    const props = Object.entries(asSchema(spec.properties));
    if (props.length === 0) return "object";
    const required = Array.isArray(spec.required) ? spec.required : [];
    // The template writes a newline and indentation before each nested property's type.
    return `{\n${props.map(([name, p]) => `${name}${required.includes(name) ? "" : "?"}: \n                ${tsType(asSchema(p))}`).join(", ")}}`;
  }
  return "any";
}

/** A default value as the template appends it. */
function defaultNote(spec: Schema): string {
  if (spec.default === undefined) return "";
  if (spec.enum) return `, // default: ${String(spec.default)}`;
  if (spec.oneOf) return `// default: ${String(spec.default)}`;
  return `, // default: ${pythonJson(spec.default)}`;
}

function toolNamespace(tools: readonly FunctionTool[]): string {
  let out = "## functions\n\nnamespace functions {\n\n";
  for (const { function: f } of tools) {
    out += `// ${f.description ?? ""}\ntype ${f.name} = `;
    const params = asSchema(f.parameters);
    const props = Object.entries(asSchema(params.properties));
    if (props.length === 0) {
      out += "() => any;\n\n";
      continue;
    }
    const required = Array.isArray(params.required) ? params.required : [];
    out += "(_: {\n";
    for (const [name, p] of props) {
      const spec = asSchema(p);
      if (spec.description) out += `// ${String(spec.description)}\n`;
      out += `${name}${required.includes(name) ? "" : "?"}: ${tsType(spec)}${defaultNote(spec)},\n`;
    }
    out += "}) => any;\n\n";
  }
  return `${out}} // namespace functions`;
}

const LEVELS: Record<string, string> = { none: "low", minimal: "low", low: "low", medium: "medium", high: "high", xhigh: "high", max: "high" };

function isoDate(now: Date): string {
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

function render(input: ChatTemplateInput): string {
  const { messages, tools, addGenerationPrompt = true } = input;
  const level = input.reasoningEffort === undefined ? "medium" : LEVELS[input.reasoningEffort] ?? "medium";
  let out = "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n" +
    `Current date: ${isoDate(input.now ?? new Date())}\n\nReasoning: ${level}\n\n` +
    "# Valid channels: analysis, commentary, final. Channel must be included for every message.";
  if (tools.length > 0) out += "\nCalls to these tools must go to the commentary channel: 'functions'.";
  out += "<|end|>";
  let rest: readonly ChatMessage[] = messages;
  let developer = "";
  if (messages[0]?.role === "system") {
    developer = messages[0].content;
    rest = messages.slice(1);
  }
  if (developer || tools.length > 0) {
    out += "<|start|>developer<|message|>";
    if (developer) out += `# Instructions\n\n${developer}\n\n`;
    if (tools.length > 0) out += `# Tools\n\n${toolNamespace(tools)}`;
    out += "<|end|>";
  }
  let lastCall: string | undefined;
  rest.forEach((m, i) => {
    if (m.role === "assistant" && m.toolCalls.length > 0) {
      const finalLater = rest.slice(i + 1).some((f) => f.role === "assistant" && f.toolCalls.length === 0);
      const analysis = m.content || m.reasoning;
      if (analysis && !finalLater) out += `<|start|>assistant<|channel|>analysis<|message|>${analysis}<|end|>`;
      const c = m.toolCalls[0]!;
      out += `<|start|>assistant to=functions.${c.name}<|channel|>commentary json<|message|>${pythonJson(c.arguments)}<|call|>`;
      lastCall = c.name;
    } else if (m.role === "assistant") {
      if (i === rest.length - 1 && !addGenerationPrompt) {
        if (m.reasoning !== undefined) out += `<|start|>assistant<|channel|>analysis<|message|>${m.reasoning}<|end|>`;
        out += `<|start|>assistant<|channel|>final<|message|>${m.content}<|return|>`;
      } else {
        out += `<|start|>assistant<|channel|>final<|message|>${m.content}<|end|>`;
        lastCall = undefined;
      }
    } else if (m.role === "tool") {
      out += `<|start|>functions.${lastCall ?? m.name} to=assistant<|channel|>commentary<|message|>${pythonJson(m.content)}<|end|>`;
    } else if (m.role === "user") {
      out += `<|start|>user<|message|>${m.content}<|end|>`;
    }
  });
  return addGenerationPrompt ? `${out}<|start|>assistant` : out;
}

export const harmonyChatTemplate: ChatTemplate = {
  family: "harmony",
  source: "gpt-oss's chat template (openai/gpt-oss-120b chat_template.jinja, the harmony format)",
  reasoning: true,
  reasoningMode: () => "auto",
  render,
  detect: (t) => t.includes("<|channel|>") && t.includes("<|start|>") && t.includes("<|message|>"),
};
