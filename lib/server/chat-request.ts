/**
 * Reading a `POST /v1/chat/completions` body (already checked against its JSON schema) into
 * what the server does with it: the conversation, the tool-calling request that shapes the
 * grammar, the reasoning mode, sampling, limits and streaming options. Every bad value is a
 * `RequestError` (400) naming the field.
 */
import { RequestError } from "../errors.js";
import type { GenerateOptions } from "../integrations/node-llama-cpp/generate.js";
import { normalizeConversation, type ChatMessage } from "../tools/chat-messages.js";
import type { FunctionTool, ReasoningMode, ToolCallingRequest } from "../tools/types.js";
import type { ReasoningEffort } from "./schemas.js";
import type { RepeatPenalties } from "./scheduler.js";

/** The body fields the server reads (the schema has checked their types). */
export interface ChatCompletionBody {
  model?: string;
  messages: unknown[];
  tools?: unknown[] | null;
  tool_choice?: unknown;
  parallel_tool_calls?: boolean | null;
  response_format?: { type: string; [key: string]: unknown } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  top_k?: number | null;
  min_p?: number | null;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  repetition_penalty?: number | null;
  stop?: string | string[] | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  reasoning_effort?: ReasoningEffort | null;
  n?: number | null;
  logprobs?: boolean | null;
}

/** A chat request, read. */
export interface ChatJob {
  messages: ChatMessage[];
  tools: FunctionTool[];
  /** What the grammar is built from (the family's builder checks it). */
  toolRequest: ToolCallingRequest;
  reasoning: ReasoningMode;
  /** The request's reasoning_effort, for templates that tell the model how much to think. */
  reasoningEffort: ReasoningEffort | undefined;
  /** Sampling options for node-llama-cpp. */
  sampling: Pick<GenerateOptions, "temperature" | "topP" | "topK" | "minP" | "seed">;
  /** Repetition penalties (OpenAI's presence and frequency penalties, vLLM's repetition_penalty), if any is set. */
  penalties: RepeatPenalties | undefined;
  /** The requested completion limit, if any (the server also bounds it by the context). */
  maxTokens: number | undefined;
  stop: string[];
  stream: boolean;
  includeUsage: boolean;
}

/** What the server knows when reading a request. */
export interface ChatRequestContext {
  family: string;
  /** The family's format variant the server serves, for families with several. */
  variant?: string;
  /** The model id `/v1/models` lists; a request naming another model is refused. */
  modelId: string;
  /** The reasoning mode a `reasoning_effort` selects (the family's chat template decides). */
  reasoningMode(effort: string | undefined): ReasoningMode;
}

function fail(param: string, message: string, status = 400, code?: string): never {
  throw new RequestError(status, `${param}: ${message}`, { param, ...(code ? { code } : {}) });
}

/** Reads a checked body; throws a RequestError naming the field for what the schema cannot see. */
export function readChatRequest(body: ChatCompletionBody, ctx: ChatRequestContext): ChatJob {
  if (body.model !== undefined && body.model !== ctx.modelId) {
    fail("model", `this server serves the model ${JSON.stringify(ctx.modelId)} only, not ${JSON.stringify(body.model)} (see GET /v1/models)`, 404, "model_not_found");
  }
  if (body.n !== undefined && body.n !== null && body.n !== 1) fail("n", `only one choice per request is supported (n = 1), found ${body.n}`);
  if (body.logprobs === true) fail("logprobs", "log probabilities are not supported");
  if (body.stream_options && body.stream !== true) fail("stream_options", "only allowed with stream: true");
  const messages = normalizeConversation(body.messages);
  const tools = (body.tools ?? []) as FunctionTool[];
  const reasoningEffort = body.reasoning_effort ?? undefined;
  const reasoning = ctx.reasoningMode(reasoningEffort);
  const toolRequest: ToolCallingRequest = { family: ctx.family, tools, reasoning, ...(ctx.variant === undefined ? {} : { variant: ctx.variant }) };
  if (body.tool_choice !== undefined && body.tool_choice !== null) toolRequest.tool_choice = body.tool_choice as ToolCallingRequest["tool_choice"];
  if (body.parallel_tool_calls !== undefined && body.parallel_tool_calls !== null) toolRequest.parallel_tool_calls = body.parallel_tool_calls;
  if (body.response_format) toolRequest.response_format = body.response_format as ToolCallingRequest["response_format"];
  const sampling: ChatJob["sampling"] = {};
  if (body.temperature != null) sampling.temperature = body.temperature;
  if (body.top_p != null) sampling.topP = body.top_p;
  if (body.top_k != null) sampling.topK = body.top_k;
  if (body.min_p != null) sampling.minP = body.min_p;
  if (body.seed != null) sampling.seed = body.seed;
  const presence = body.presence_penalty ?? 0;
  const frequency = body.frequency_penalty ?? 0;
  const repetition = body.repetition_penalty ?? 1;
  const penalties = presence !== 0 || frequency !== 0 || repetition !== 1 ? { presence, frequency, repetition } : undefined;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const stop = body.stop === undefined || body.stop === null ? [] : typeof body.stop === "string" ? [body.stop] : body.stop;
  return {
    messages, tools, toolRequest, reasoning, reasoningEffort, sampling, penalties, maxTokens, stop,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
  };
}
