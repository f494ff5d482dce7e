/**
 * Chat templates: one renderer per model family (lib/tools/<family>/chat-template.ts) that turns
 * a conversation and its tool declarations into the prompt text the family's models were trained
 * on, left open where the model's message starts — exactly where the family's tool-calling
 * grammar (for the same reasoning mode) begins. Keyed by the family names of the tool-calling
 * registry; a server looks both up by name and stays family-agnostic.
 */
import { ToolError } from "../errors.js";
import { describeValue } from "../format/json-path.js";
import type { ChatMessage } from "./chat-messages.js";
import type { FunctionTool, ReasoningMode, ResponseFormat, ToolChoice } from "./types.js";
import { deepseekR1ChatTemplate } from "./deepseek-r1/chat-template.js";
import { deepseekV31ChatTemplate } from "./deepseek-v3.1/chat-template.js";
import { deepseekV32ChatTemplate } from "./deepseek-v3.2/chat-template.js";
import { deepseekV4ChatTemplate } from "./deepseek-v4/chat-template.js";
import { exaoneChatTemplate } from "./exaone/chat-template.js";
import { glm47ChatTemplate } from "./glm-4.7/chat-template.js";
import { harmonyChatTemplate } from "./harmony/chat-template.js";
import { hermesChatTemplate } from "./hermes/chat-template.js";
import { kimiK2ChatTemplate } from "./kimi-k2/chat-template.js";
import { kimiK3ChatTemplate } from "./kimi-k3/chat-template.js";
import { llama3ChatTemplate } from "./llama3/chat-template.js";
import { minimaxM2ChatTemplate } from "./minimax-m2/chat-template.js";
import { mistralChatTemplate } from "./mistral/chat-template.js";
import { qwen3ChatTemplate } from "./qwen3/chat-template.js";
import { qwen3CoderChatTemplate } from "./qwen3-coder/chat-template.js";

/** What a renderer gets. */
export interface ChatTemplateInput {
  /** The conversation, checked (see `normalizeConversation`). */
  messages: readonly ChatMessage[];
  /** The tools declared to the model (their names, descriptions and schemas); may be empty. */
  tools: readonly FunctionTool[];
  /**
   * Where the model's message starts, as the grammar of the same mode expects:
   * `final_output_only` — after any reasoning (a reasoning family's prompt closes an empty think
   * block or opens the answer); `think` — inside an opened think block; `auto` — at the start of
   * the message, the model may think first. Families without reasoning render all three alike.
   */
  reasoning: ReasoningMode;
  /** Open the model's message at the end (default true); false renders the conversation only. */
  addGenerationPrompt?: boolean;
  /**
   * The request's `reasoning_effort` (OpenAI's values: none, minimal, low, medium, high, xhigh,
   * max), for templates that tell the model how much to think.
   */
  reasoningEffort?: string;
  /** The request's tool_choice, for templates that tell the model about it. */
  toolChoice?: ToolChoice;
  /** The request's response_format, for templates that tell the model about it. */
  responseFormat?: ResponseFormat;
  /** The time for templates that write today's date (default: now). */
  now?: Date;
  /** The family's format variant, for families with several (mistral: v3, v13); default the family's default. */
  variant?: string;
}

/** A family's chat template. */
export interface ChatTemplate {
  /** The family name, as in the tool-calling registry. */
  family: string;
  /** Where the format comes from (the public template the renderer follows). */
  source: string;
  /** Whether the family has a think channel (so `think`/`auto` differ from `final_output_only`). */
  reasoning: boolean;
  /**
   * The reasoning mode a request's `reasoning_effort` selects (absent: the template's own
   * default, e.g. thinking on for a model that always thinks).
   */
  reasoningMode(effort: string | undefined): ReasoningMode;
  /** The prompt text; special tokens are written as their text. */
  render(input: ChatTemplateInput): string;
  /** Whether a Jinja chat template (e.g. a GGUF's `tokenizer.chat_template`) is this family's. */
  detect(jinjaTemplate: string): boolean;
  /** The format variants the renderer renders, for families with several (absent: one format). */
  variants?: readonly string[];
  /**
   * The variant a model's vocabulary calls for (`hasSpecial`: whether a text is one of its special
   * tokens), for families with several.
   */
  variantOf?(hasSpecial: (text: string) => boolean): string;
}

/**
 * The renderers, in detection order: a family whose template is a superset of another's markers
 * comes first (detection returns the first match).
 */
const TEMPLATES: readonly ChatTemplate[] = [
  kimiK3ChatTemplate, harmonyChatTemplate, qwen3CoderChatTemplate, hermesChatTemplate, qwen3ChatTemplate, llama3ChatTemplate, deepseekR1ChatTemplate, deepseekV31ChatTemplate, kimiK2ChatTemplate,
  glm47ChatTemplate, minimaxM2ChatTemplate, exaoneChatTemplate, deepseekV32ChatTemplate, deepseekV4ChatTemplate, mistralChatTemplate,
];

const BY_FAMILY: ReadonlyMap<string, ChatTemplate> = new Map(TEMPLATES.map((t) => [t.family, t]));

/** The families that have a chat template. */
export function chatTemplateFamilies(): string[] {
  return TEMPLATES.map((t) => t.family);
}

/** The chat template of `family`; a `ToolError` (path `family`) lists the known ones otherwise. */
export function chatTemplate(family: unknown): ChatTemplate {
  const template = typeof family === "string" ? BY_FAMILY.get(family) : undefined;
  if (!template) throw new ToolError("family", `no chat template for model family ${describeValue(family)}; families with one: ${chatTemplateFamilies().join(", ")}`);
  return template;
}

/** Renders `input` with `family`'s chat template (see {@link ChatTemplateInput}). */
export function renderChat(family: string, input: ChatTemplateInput): string {
  return chatTemplate(family).render(input);
}

/** The family whose chat template a Jinja template (a model's `tokenizer.chat_template`) is, or null. */
export function detectChatTemplateFamily(jinjaTemplate: string): string | null {
  if (typeof jinjaTemplate !== "string" || jinjaTemplate === "") return null;
  return TEMPLATES.find((t) => t.detect(jinjaTemplate))?.family ?? null;
}
