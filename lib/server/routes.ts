/**
 * The HTTP routes: `POST /v1/chat/completions`, `GET /v1/models` (and `/v1/models/:id`),
 * `GET /health`, `GET /metrics`; every error in OpenAI's shape, unknown routes included.
 */
import type { FastifyInstance } from "fastify";
import { RequestError } from "../errors.js";
import { handleChatCompletion, type ChatContext } from "./chat-handler.js";
import { errorBody, toRequestError } from "./http-errors.js";
import { chatCompletionBodySchema } from "./schemas.js";

const CHAT_ROUTE = "/v1/chat/completions";

/** What the routes read besides the chat context. */
export interface RouteContext extends ChatContext {
  /** Seconds since the epoch when the model was loaded (`created` of /v1/models). */
  createdAt: number;
  /** Whether a shutdown has begun (new requests get 503). */
  closing(): boolean;
  /** The chat requests being served, so that a shutdown can wait for them. */
  inflight: Set<Promise<void>>;
}

/** Registers the routes and the error handlers on `app`. */
export function registerRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.setErrorHandler((err, request, reply) => {
    const e = toRequestError(err);
    if (e.status >= 500) app.log.error(err);
    if (request.routeOptions.url === CHAT_ROUTE) ctx.metrics.requests.inc({ status: String(e.status) });
    if (e.retryAfter !== undefined) void reply.header("retry-after", String(e.retryAfter));
    void reply.code(e.status).send(errorBody(e));
  });
  app.setNotFoundHandler((request, reply) => {
    const e = new RequestError(404, `no route ${request.method} ${request.url}; this server answers POST /v1/chat/completions, GET /v1/models, GET /health and GET /metrics`, { code: "TAGMASK_NOT_FOUND" });
    void reply.code(404).send(errorBody(e));
  });
  // Once closing, new work is refused in OpenAI's shape; health and metrics still answer.
  app.addHook("onRequest", async (request) => {
    if (ctx.closing() && request.url.startsWith("/v1/")) throw new RequestError(503, "the server is shutting down", { code: "TAGMASK_SHUTTING_DOWN" });
  });

  app.post(CHAT_ROUTE, { schema: { body: chatCompletionBodySchema } }, (request, reply) => {
    // Answers sent while closing end their connection, so that the shutdown need not wait for it.
    if (ctx.closing()) void reply.header("connection", "close");
    const served = handleChatCompletion(ctx, request, reply);
    const settled = served.then(() => {}, () => {});
    ctx.inflight.add(settled);
    void settled.then(() => ctx.inflight.delete(settled));
    return served;
  });

  const model = (): Record<string, unknown> => ({ id: ctx.modelId, object: "model", created: ctx.createdAt, owned_by: "tagmask" });
  app.get("/v1/models", async () => ({ object: "list", data: [model()] }));
  app.get<{ Params: { id: string } }>("/v1/models/:id", async (request) => {
    if (request.params.id !== ctx.modelId) {
      throw new RequestError(404, `model ${JSON.stringify(request.params.id)} is not served here; this server serves ${JSON.stringify(ctx.modelId)}`, { param: "model", code: "model_not_found" });
    }
    return model();
  });

  app.get("/health", async (_request, reply) => {
    const closing = ctx.closing();
    void reply.code(closing ? 503 : 200);
    return {
      status: closing ? "shutting_down" : "ok",
      model: ctx.modelId,
      family: ctx.family,
      ...(ctx.variant === undefined ? {} : { variant: ctx.variant }),
      route: ctx.session.route,
      parallel: ctx.scheduler.parallel,
      active: ctx.scheduler.active,
      queued: ctx.scheduler.queued,
      context_size: ctx.contextSize,
    };
  });

  app.get("/metrics", async (_request, reply) => {
    void reply.header("content-type", "text/plain; version=0.0.4; charset=utf-8");
    return ctx.metrics.registry.render();
  });
}
