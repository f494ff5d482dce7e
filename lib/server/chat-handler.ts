/**
 * One `POST /v1/chat/completions` request, from checked body to response: read the request,
 * take a place in the scheduler (429/503 before anything is sent), get the grammar from the cache
 * and render the prompt with the family's chat template (400s still before anything is sent),
 * then generate — streaming the deltas as server-sent events, or answering with the whole
 * completion. A client that goes away cancels its generation, which frees its sequence; a
 * shutdown that outlasts its grace period cancels generations and tells their clients so.
 */
import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Token } from "node-llama-cpp";
import { RequestError } from "../errors.js";
import type { ConstrainedGrammar, ConstrainedLlama } from "../integrations/node-llama-cpp/constrained-llama.js";
import type { ChatTemplate } from "../tools/chat-templates.js";
import { readChatRequest, type ChatCompletionBody, type ChatJob } from "./chat-request.js";
import { CompletionAssembler, type CompletionDelta } from "./completion.js";
import type { GrammarCache } from "./grammar-cache.js";
import { errorBody, locateGrammarError, toRequestError } from "./http-errors.js";
import type { Scheduler, ScheduledResult } from "./scheduler.js";
import type { ServerMetrics } from "./server-metrics.js";
import { SseStream } from "./sse.js";

/** What every request of one server shares. */
export interface ChatContext {
  family: string;
  /** The family's format variant, for families with several. */
  variant?: string;
  modelId: string;
  template: ChatTemplate;
  session: ConstrainedLlama;
  /** Tokens one sequence holds (prompt and completion). */
  contextSize: number;
  scheduler: Scheduler;
  grammars: GrammarCache;
  metrics: ServerMetrics;
  /** Aborted when a shutdown's grace period is over: generations still running are cancelled. */
  shutdown: AbortSignal;
}

/** Usage as OpenAI reports it. */
interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

function usageOf(promptTokens: number, result: ScheduledResult): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: result.tokens.length,
    total_tokens: promptTokens + result.tokens.length,
    prompt_tokens_details: { cached_tokens: result.reusedPromptTokens },
  };
}

/** The grammar, or the request field it cannot be built from. */
async function grammarFor(ctx: ChatContext, job: ChatJob): Promise<ConstrainedGrammar | null> {
  try {
    return await ctx.grammars.get(job.toolRequest);
  } catch (err) {
    throw (await locateGrammarError(job.toolRequest, err, ctx.shutdown)) ?? toRequestError(err);
  }
}

/** The prompt's tokens, refused when the context cannot hold them and at least one more. */
function promptTokens(ctx: ChatContext, job: ChatJob): Token[] {
  const { toolRequest } = job;
  const text = ctx.template.render({
    messages: job.messages, tools: job.tools, reasoning: job.reasoning,
    ...(toolRequest.variant === undefined ? {} : { variant: toolRequest.variant }),
    ...(job.reasoningEffort === undefined ? {} : { reasoningEffort: job.reasoningEffort }),
    ...(toolRequest.tool_choice === undefined ? {} : { toolChoice: toolRequest.tool_choice }),
    ...(toolRequest.response_format === undefined ? {} : { responseFormat: toolRequest.response_format }),
  });
  const tokens = ctx.session.model.tokenize(text, true) as Token[];
  if (tokens.length === 0) throw new RequestError(400, "messages: the conversation renders to an empty prompt", { param: "messages" });
  if (tokens.length >= ctx.contextSize) {
    throw new RequestError(400, `messages: the prompt is ${tokens.length} tokens, but a sequence holds ${ctx.contextSize} tokens (prompt and completion; the server's contextSize, \`tagmask serve --context N\`): shorten the conversation or restart the server with a larger context`, {
      param: "messages", code: "context_length_exceeded",
    });
  }
  return tokens;
}

/**
 * Serves one chat completion request. A response it sends (a completion, or a stream whatever
 * its end) is counted here; an error it throws is counted by the route's error handler, which
 * also sees the requests refused before the handler runs.
 */
export async function handleChatCompletion(ctx: ChatContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const started = performance.now();
  const outcome = { status: 200 };
  await serve(ctx, request, reply, started, outcome);
  ctx.metrics.requests.inc({ status: String(outcome.status) });
  ctx.metrics.requestSeconds.observe((performance.now() - started) / 1000);
}

async function serve(ctx: ChatContext, request: FastifyRequest, reply: FastifyReply, started: number, outcome: { status: number }): Promise<void> {
  const job = readChatRequest(request.body as ChatCompletionBody, {
    family: ctx.family, ...(ctx.variant === undefined ? {} : { variant: ctx.variant }), modelId: ctx.modelId, reasoningMode: (e) => ctx.template.reasoningMode(e),
  });
  const ticket = ctx.scheduler.admit();
  let grammar: ConstrainedGrammar | null;
  let tokens: Token[];
  try {
    grammar = await grammarFor(ctx, job);
    tokens = promptTokens(ctx, job);
  } catch (err) {
    ticket.cancel();
    throw err;
  }
  const maxTokens = Math.min(job.maxTokens ?? Infinity, ctx.contextSize - tokens.length);

  // Cancelled when the client goes away, a stop string is reached, or the shutdown's grace ends.
  const client = new AbortController();
  const stopString = new AbortController();
  const res = reply.raw;
  const onClose = (): void => {
    if (!res.writableEnded) client.abort(new RequestError(499, "the client closed the connection", { code: "TAGMASK_CANCELLED" }));
  };
  res.on("close", onClose);
  const signal = AbortSignal.any([client.signal, stopString.signal, ctx.shutdown]);

  const id = `chatcmpl-${randomBytes(12).toString("base64url")}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: CompletionDelta | Record<string, never>, finishReason: string | null = null): unknown => ({
    id, object: "chat.completion.chunk", created, model: ctx.modelId,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  let firstText = true;
  const stream = job.stream ? new SseStream(res) : undefined;
  const assembler = new CompletionAssembler({
    family: ctx.family, reasoning: job.reasoning, constrained: grammar !== null, stop: job.stop,
    ...(job.toolRequest.variant === undefined ? {} : { variant: job.toolRequest.variant }),
    ...(stream ? { onDelta: (d: CompletionDelta) => stream.send(chunk(d)) } : {}),
  });
  if (stream) {
    reply.hijack();
    stream.send(chunk({ role: "assistant", content: "" }));
  }

  try {
    const result = await ticket.run({
      tokens, grammar, ...(job.penalties ? { penalties: job.penalties } : {}),
      options: {
        ...job.sampling, maxTokens, signal,
        onText: (text) => {
          if (firstText) {
            firstText = false;
            ctx.metrics.firstTokenSeconds.observe((performance.now() - started) / 1000);
          }
          if (assembler.push(text)) stopString.abort();
        },
      },
    });
    if (result.stopReason === "aborted" && !assembler.stopped) {
      if (client.signal.aborted) throw client.signal.reason;
      throw new RequestError(503, `the server shut down before the generation finished (${result.tokens.length} tokens generated); retry the request`, { code: "TAGMASK_SHUTDOWN" });
    }
    const { message, finishReason } = assembler.finish(result.stopReason);
    const usage = usageOf(tokens.length, result);
    ctx.metrics.promptTokens.inc({}, tokens.length);
    ctx.metrics.reusedPromptTokens.inc({}, result.reusedPromptTokens);
    ctx.metrics.completionTokens.inc({}, result.tokens.length);
    for (const micros of result.stats.routeMicros) ctx.metrics.routeSeconds.observe(micros / 1e6);
    if (stream) {
      stream.send(chunk({}, finishReason));
      if (job.includeUsage) stream.send({ id, object: "chat.completion.chunk", created, model: ctx.modelId, choices: [], usage });
      stream.end();
    } else {
      await reply.send({
        id, object: "chat.completion", created, model: ctx.modelId,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
        usage,
      });
    }
  } catch (err) {
    if (!stream) throw err;
    const e = toRequestError(err);
    outcome.status = e.status;
    // Mid-stream: the error as an event (OpenAI's clients raise it), then the end of the stream.
    stream.send(errorBody(e));
    stream.end(false);
  } finally {
    res.off("close", onClose);
  }
}
