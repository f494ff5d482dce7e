/**
 * {@link createServer}: an OpenAI-compatible chat completions server on one GGUF model, on
 * fastify. One node-llama-cpp context holds `parallel` sequences; concurrent requests share them
 * (continuous batching, see scheduler.ts), each under its own grammar, with one batched mask fill
 * per decoding step. The family's chat template renders the conversation; its builder makes the
 * grammar, which is cached; its parser turns the output back into tool calls.
 */
import { basename } from "node:path";
import type { FastifyInstance } from "fastify";
import type { Llama, LlamaContext, LlamaModel } from "node-llama-cpp";
import { warmUpCompiler } from "../engine/compiled-grammar.js";
import { GrammarCompiler } from "../engine/grammar-compiler.js";
import { loweringWorkers, setLoweringWorkers } from "../engine/lowering-pool.js";
import { InvalidArgumentError, RequestError, TagmaskError } from "../errors.js";
import { ConstrainedLlama } from "../integrations/node-llama-cpp/constrained-llama.js";
import { familyVocabularyOptions } from "../integrations/node-llama-cpp/family-model.js";
import { MASK_ROUTES, type MaskRouteName } from "../integrations/node-llama-cpp/routes.js";
import { chatTemplate, chatTemplateFamilies, detectChatTemplateFamily } from "../tools/chat-templates.js";
import { toolCallingFamilies, toolCallingFamily } from "../tools/families.js";
import type { VocabularyOptions } from "../tokenizer/build-vocabulary.js";
import { GrammarCache } from "./grammar-cache.js";
import { registerRoutes } from "./routes.js";
import { installExactJsonParser } from "./request-json.js";
import type { MaskFill } from "./mask-batcher.js";
import { Scheduler } from "./scheduler.js";
import { createServerMetrics, type ServerMetrics } from "./server-metrics.js";

/** Options of {@link createServer}. */
export interface ServerOptions {
  /** A GGUF file to load, or a model already loaded with node-llama-cpp (the caller keeps ownership of it). */
  model: string | LlamaModel;
  /** The model's id in `/v1/models` and in responses. Default: the file name without `.gguf`. */
  modelId?: string;
  /** The model family (`kimi-k3`, …). Default: detected from the model's chat template (`tokenizer.chat_template`). */
  family?: string;
  /**
   * The family's format variant, for families with several (mistral: `v3`, `v13`). Default: the
   * one the model's vocabulary calls for (its special tokens).
   */
  variant?: string;
  /** Address `listen()` binds by default. Default `127.0.0.1`. */
  host?: string;
  /** Port `listen()` binds by default (0: any free port). Default 8080. */
  port?: number;
  /** Sequences generating at once (the context's sequences). Default 4. */
  parallel?: number;
  /** Tokens per sequence, prompt and completion together. Default: the model's training context, at most 4096. */
  contextSize?: number;
  /** Requests that may wait for a sequence; past it the server answers 429. Default 64. */
  maxQueue?: number;
  /** Seconds in the `Retry-After` header of a 429. Default 1. */
  retryAfter?: number;
  /** CPU threads of llama.cpp. Default: node-llama-cpp's choice. */
  threads?: number;
  /** Let node-llama-cpp use a GPU when it loads the model. Default false (CPU). */
  gpu?: boolean;
  /** The masking route (see docs/node-llama-cpp.md). Default "auto". */
  route?: MaskRouteName | "auto";
  /** Load a model file in a child process first (a malformed GGUF aborts the process that loads it). Default true. */
  probeModel?: boolean;
  /**
   * Limit every free-text part of every grammar to this many tokens (for models that write
   * noise, such as the tiny test model). Default: unlimited.
   */
  maxFreeTextTokens?: number;
  /** At most this many whitespace characters between JSON tokens (a guard against whitespace loops). Default: unlimited. */
  maxWhitespace?: number;
  /** Distinct grammars kept compiled. Default 256. */
  grammarCacheSize?: number;
  /** Largest request body in bytes. Default 8 MiB. */
  bodyLimit?: number;
  /**
   * Milliseconds a request's grammar may take to build (lowering and compilation) before it is
   * stopped and the request answered 400 `grammar_timeout`; 0: no limit. Default 60000.
   */
  grammarTimeoutMs?: number;
  /**
   * Worker threads that lower requests' grammars at once (process-wide: see
   * `setLoweringWorkers`). Default: one per spare core, at least 2 and at most 4.
   */
  loweringWorkers?: number;
  /**
   * Heap limit of each lowering worker in MB (process-wide: see `setLoweringWorkers`). A request
   * whose grammar needs more is answered 400 with a GrammarError. Default: Node's own limit.
   */
  loweringHeapLimitMb?: number;
  /** fastify's logger (`true`: JSON lines on stdout). Default false. */
  logger?: boolean;
  /** Milliseconds generations may go on after `close()` before they are cancelled (their clients get a 503 error). Default 30000. */
  shutdownGraceMs?: number;
  /** Called after every batched mask fill (one per decoding step with masked sequences): for profiling and load tests. */
  onMaskFill?: (fill: MaskFill) => void;
  /** Close gracefully on SIGINT and SIGTERM (a second signal cancels the generations still running at once). Default false. */
  handleSignals?: boolean;
}

/** A running (or ready) server. */
export interface TagmaskServer {
  /** The fastify instance (routes are registered; add your own hooks before `listen`). */
  readonly app: FastifyInstance;
  readonly modelId: string;
  readonly family: string;
  /** The family's format variant, for families with several. */
  readonly variant: string | undefined;
  readonly session: ConstrainedLlama;
  /** Tokens per sequence. */
  readonly contextSize: number;
  readonly parallel: number;
  readonly metrics: ServerMetrics;
  /** The base URL once listening (`http://127.0.0.1:8080`). */
  readonly url: string | undefined;
  /** Starts listening; resolves to the base URL. */
  listen(options?: { host?: string; port?: number }): Promise<string>;
  /**
   * Shuts down: refuses new requests (503), fails the ones still waiting for a sequence (503),
   * lets generating ones finish within `shutdownGraceMs` and then cancels them (their clients get
   * a 503 error, never a silently cut response), stops listening and frees the context and — if
   * the server loaded it — the model. Idempotent.
   */
  close(): Promise<void>;
  /** Settles when a shutdown (from `close()` or a signal) has finished. */
  readonly closed: Promise<void>;
}

interface Resolved {
  modelId?: string;
  family?: string;
  variant?: string;
  host: string;
  port: number;
  parallel: number;
  contextSize?: number;
  maxQueue: number;
  retryAfter: number;
  threads?: number;
  gpu: boolean;
  route: MaskRouteName | "auto";
  probeModel: boolean;
  maxFreeTextTokens?: number;
  maxWhitespace?: number;
  grammarCacheSize: number;
  bodyLimit: number;
  grammarTimeoutMs: number;
  loweringWorkers?: number;
  loweringHeapLimitMb?: number;
  logger: boolean;
  shutdownGraceMs: number;
  handleSignals: boolean;
}

const KNOWN_OPTIONS = [
  "model", "modelId", "family", "variant", "host", "port", "parallel", "contextSize", "maxQueue", "retryAfter", "threads", "gpu", "route", "probeModel",
  "maxFreeTextTokens", "maxWhitespace", "grammarCacheSize", "bodyLimit", "grammarTimeoutMs", "loweringWorkers", "loweringHeapLimitMb", "logger", "shutdownGraceMs", "handleSignals", "onMaskFill",
];

function integerOption(options: ServerOptions, key: keyof ServerOptions, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(`options.${key}: expected an integer in [${min}, ${max === Number.MAX_SAFE_INTEGER ? "∞" : max}], found ${JSON.stringify(value)}`);
  }
  return value;
}

function booleanOption(options: ServerOptions, key: keyof ServerOptions, fallback: boolean): boolean {
  const value = options[key];
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw new InvalidArgumentError(`options.${key}: expected true or false, found ${JSON.stringify(value)}`);
  return value;
}

function stringOption(options: ServerOptions, key: keyof ServerOptions): string | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new InvalidArgumentError(`options.${key}: expected a non-empty string, found ${JSON.stringify(value)}`);
  return value;
}

/** Checks every option (names and values) before anything is loaded. */
function resolveOptions(options: ServerOptions): Resolved {
  if (options === null || typeof options !== "object") throw new InvalidArgumentError("createServer(options): expected an options object with at least `model`");
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key)) throw new InvalidArgumentError(`options.${key}: unknown option; known options: ${KNOWN_OPTIONS.join(", ")}`);
  }
  const { model, route = "auto" } = options;
  if (typeof model !== "string" && (model === null || typeof model !== "object" || typeof (model as LlamaModel).tokenize !== "function")) {
    throw new InvalidArgumentError("options.model: expected a GGUF file path or a node-llama-cpp LlamaModel");
  }
  if (model === "") throw new InvalidArgumentError("options.model: expected a GGUF file path, found an empty string");
  if (options.onMaskFill !== undefined && typeof options.onMaskFill !== "function") throw new InvalidArgumentError("options.onMaskFill: expected a function");
  if (route !== "auto" && !MASK_ROUTES.includes(route)) {
    throw new InvalidArgumentError(`options.route: expected "auto" or one of ${MASK_ROUTES.join(", ")}, found ${JSON.stringify(route)}`);
  }
  const r: Resolved = {
    host: stringOption(options, "host") ?? "127.0.0.1",
    port: integerOption(options, "port", 0, 65535) ?? 8080,
    parallel: integerOption(options, "parallel", 1, 1024) ?? 4,
    maxQueue: integerOption(options, "maxQueue", 0) ?? 64,
    retryAfter: integerOption(options, "retryAfter", 0) ?? 1,
    gpu: booleanOption(options, "gpu", false),
    route,
    probeModel: booleanOption(options, "probeModel", true),
    grammarCacheSize: integerOption(options, "grammarCacheSize", 0) ?? 256,
    bodyLimit: integerOption(options, "bodyLimit", 1024) ?? 8 * 1024 * 1024,
    grammarTimeoutMs: integerOption(options, "grammarTimeoutMs", 0) ?? 60_000,
    logger: booleanOption(options, "logger", false),
    shutdownGraceMs: integerOption(options, "shutdownGraceMs", 0) ?? 30_000,
    handleSignals: booleanOption(options, "handleSignals", false),
  };
  const modelId = stringOption(options, "modelId");
  const family = stringOption(options, "family");
  const variant = stringOption(options, "variant");
  const contextSize = integerOption(options, "contextSize", 16);
  const threads = integerOption(options, "threads", 1);
  const maxFreeTextTokens = integerOption(options, "maxFreeTextTokens", 1);
  const maxWhitespace = integerOption(options, "maxWhitespace", 0);
  const loweringWorkers = integerOption(options, "loweringWorkers", 1, 64);
  const loweringHeapLimitMb = integerOption(options, "loweringHeapLimitMb", 16, 65536);
  if (modelId !== undefined) r.modelId = modelId;
  if (family !== undefined) r.family = family;
  if (variant !== undefined) r.variant = variant;
  if (contextSize !== undefined) r.contextSize = contextSize;
  if (threads !== undefined) r.threads = threads;
  if (maxFreeTextTokens !== undefined) r.maxFreeTextTokens = maxFreeTextTokens;
  if (maxWhitespace !== undefined) r.maxWhitespace = maxWhitespace;
  if (loweringWorkers !== undefined) r.loweringWorkers = loweringWorkers;
  if (loweringHeapLimitMb !== undefined) r.loweringHeapLimitMb = loweringHeapLimitMb;
  return r;
}

/**
 * The family to serve: the one asked for (it needs a builder and a chat template), or the one
 * whose chat template the model carries.
 */
export function resolveFamily(requested: string | undefined, modelChatTemplate: string | undefined): string {
  const served = toolCallingFamilies().filter((f) => chatTemplateFamilies().includes(f));
  if (requested !== undefined) {
    toolCallingFamily(requested);
    chatTemplate(requested);
    return requested;
  }
  const detected = modelChatTemplate ? detectChatTemplateFamily(modelChatTemplate) : null;
  if (detected && served.includes(detected)) return detected;
  const why = modelChatTemplate ? "its chat template is not one tagmask recognizes" : "the model file has no chat template (tokenizer.chat_template)";
  throw new InvalidArgumentError(`options.family: cannot tell the model family (${why}); name it: one of ${served.join(", ")}`);
}

/**
 * The format variant to serve, for families with several: the one asked for, else the one the
 * vocabulary calls for (`hasSpecial`); it must be one the family's chat template renders.
 */
export function resolveVariant(family: string, requested: string | undefined, hasSpecial: (text: string) => boolean): string | undefined {
  const template = chatTemplate(family);
  const variants = toolCallingFamily(family).variants;
  if (variants === undefined) {
    if (requested !== undefined) throw new InvalidArgumentError(`options.variant: the ${family} family has one format; leave the variant out`);
    return undefined;
  }
  const variant = requested ?? template.variantOf?.(hasSpecial) ?? variants[0]!;
  const rendered = template.variants ?? variants;
  if (!rendered.includes(variant)) {
    const why = requested === undefined ? `the model's vocabulary calls for ${JSON.stringify(variant)}` : `found ${JSON.stringify(variant)}`;
    throw new InvalidArgumentError(`options.variant: the ${family} chat template renders ${rendered.map((v) => JSON.stringify(v)).join(", ")} (the family's formats: ${variants.join(", ")}); ${why}`);
  }
  return variant;
}

/**
 * How the model's vocabulary is read for `family`: the family's markers stand for their text and
 * its stop texts end generation — those the vocabulary has as tokens. (Kimi K3's are the
 * vocabulary's defaults.)
 */
async function familyVocabulary(name: string, model: LlamaModel): Promise<VocabularyOptions> {
  return familyVocabularyOptions(name, await vocabularyHas(model));
}

/** Whether a text is a token of the model's vocabulary. */
async function vocabularyHas(model: LlamaModel): Promise<(text: string) => boolean> {
  const { TokenizerInfo } = await import("../tokenizer/tokenizer-info.js");
  const plain = TokenizerInfo.fromLlamaModel(model);
  return (text) => plain.tokenId(text) !== undefined;
}

async function loadNodeLlamaCpp(): Promise<typeof import("node-llama-cpp")> {
  try {
    return await import("node-llama-cpp");
  } catch {
    throw new TagmaskError("the server runs models with node-llama-cpp: npm install node-llama-cpp", "TAGMASK_MISSING_DEPENDENCY");
  }
}

/**
 * Loads the model (unless given one), picks the family, and prepares the server: context,
 * scheduler, grammar cache, routes. Call `listen()` to serve.
 *
 * @example
 * const server = await createServer({ model: "model.gguf", parallel: 8 });
 * const url = await server.listen({ port: 8080 });
 * // any OpenAI client: new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused" })
 * await server.close();
 */
export async function createServer(options: ServerOptions): Promise<TagmaskServer> {
  const o = resolveOptions(options);
  if (o.loweringWorkers !== undefined || o.loweringHeapLimitMb !== undefined) {
    setLoweringWorkers(o.loweringWorkers ?? loweringWorkers(), o.loweringHeapLimitMb === undefined ? {} : { heapLimitMb: o.loweringHeapLimitMb });
  }
  // The lowering worker builds its first-use automata while the model loads, not on the first request.
  warmUpCompiler().catch(() => undefined);
  const nodeLlamaCpp = await loadNodeLlamaCpp();
  const { default: Fastify } = await import("fastify");
  let llama: Llama | undefined;
  let model: LlamaModel;
  let ownsModel = false;
  if (typeof options.model === "string") {
    if (o.probeModel) {
      const { probeModelFile } = await import("../integrations/node-llama-cpp/tiny-model.js");
      probeModelFile(options.model);
    }
    llama = await nodeLlamaCpp.getLlama({
      gpu: o.gpu ? "auto" : false, build: "never", logLevel: nodeLlamaCpp.LlamaLogLevel.error, ...(o.threads === undefined ? {} : { maxThreads: o.threads }),
    });
    try {
      model = await llama.loadModel({ modelPath: options.model });
    } catch (err) {
      await llama.dispose();
      throw err;
    }
    ownsModel = true;
  } else {
    model = options.model;
  }
  let context: LlamaContext | undefined;
  const disposeModel = async (): Promise<void> => {
    await context?.dispose();
    if (ownsModel) {
      await model.dispose();
      await llama?.dispose();
    }
  };
  try {
    const family = resolveFamily(o.family, model.fileInfo.metadata.tokenizer?.chat_template);
    const template = chatTemplate(family);
    const vocabulary = family === "kimi-k3" ? undefined : await familyVocabulary(family, model);
    const variant = toolCallingFamily(family).variants === undefined && o.variant === undefined
      ? undefined : resolveVariant(family, o.variant, await vocabularyHas(model));
    const session = await ConstrainedLlama.create(model, { route: o.route, compiler: new GrammarCompiler(), ...(vocabulary === undefined ? {} : { vocabulary }) });
    context = await model.createContext({
      contextSize: o.contextSize ?? Math.min(model.trainContextSize, 4096),
      sequences: o.parallel,
      ...(o.threads === undefined ? {} : { threads: o.threads }),
    });
    const sequences = Array.from({ length: o.parallel }, () => context!.getSequence());
    const modelId = o.modelId ?? (typeof options.model === "string" ? basename(options.model).replace(/\.gguf$/i, "") : model.fileInfo.metadata.general?.name ?? "model");
    const limits = {
      ...(o.maxFreeTextTokens === undefined ? {} : { maxFreeTextTokens: o.maxFreeTextTokens }),
      ...(o.maxWhitespace === undefined ? {} : { maxWhitespace: o.maxWhitespace }),
    };
    // The metrics read from the scheduler and cache, which report into the metrics: tied after creation.
    let scheduler: Scheduler | undefined;
    let grammars: GrammarCache | undefined;
    const metrics = createServerMetrics({
      queued: () => scheduler?.queued ?? 0,
      active: () => scheduler?.active ?? 0,
      parallel: () => o.parallel,
      grammarCache: () => grammars?.stats ?? { hits: 0, misses: 0, entries: 0 },
    });
    scheduler = new Scheduler(session, sequences, {
      maxQueue: o.maxQueue, retryAfter: o.retryAfter,
      onMaskFill: (fill) => {
        metrics.maskFillSeconds.observe(fill.micros / 1e6);
        metrics.maskRows.observe(fill.rows);
        if (fill.sinceLastMicros !== undefined) metrics.stepSeconds.observe((fill.sinceLastMicros + fill.micros) / 1e6);
        options.onMaskFill?.(fill);
      },
    });
    grammars = new GrammarCache(session, limits, o.grammarCacheSize, (ms) => metrics.compileSeconds.observe(ms / 1000), o.grammarTimeoutMs);
    const shutdown = new AbortController();
    let closing: Promise<void> | undefined;
    const inflight = new Set<Promise<void>>();
    const app = Fastify({
      logger: o.logger,
      bodyLimit: o.bodyLimit,
      return503OnClosing: false,
      forceCloseConnections: "idle",
      ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
    });
    installExactJsonParser(app);
    registerRoutes(app, {
      family, ...(variant === undefined ? {} : { variant }), modelId, template, session, contextSize: context.contextSize, scheduler, grammars, metrics, shutdown: shutdown.signal,
      createdAt: Math.floor(Date.now() / 1000),
      closing: () => closing !== undefined,
      inflight,
    });
    let url: string | undefined;
    let settleClosed: { resolve(): void; reject(err: unknown): void } | undefined;
    const closed = new Promise<void>((resolve, reject) => {
      settleClosed = { resolve, reject };
    });
    // Nobody may be listening for `closed`; a failed shutdown still rejects `close()` itself.
    closed.catch(() => {});
    const signalHandlers: [NodeJS.Signals, () => void][] = [];

    const close = (): Promise<void> => {
      closing ??= (async () => {
        for (const [sig, handler] of signalHandlers) process.off(sig, handler);
        scheduler!.close();
        const grace = setTimeout(() => shutdown.abort(new RequestError(503, "the server shut down", { code: "TAGMASK_SHUTDOWN" })), o.shutdownGraceMs);
        try {
          // Stop listening; then wait for the requests being served (their generations finish, or
          // are cancelled when the grace period ends) and close the connections they leave open.
          const appClosed = app.close();
          while (inflight.size > 0) await Promise.allSettled([...inflight]);
          app.server.closeAllConnections();
          await appClosed;
        } finally {
          clearTimeout(grace);
          await disposeModel();
        }
      })();
      closing.then(() => settleClosed!.resolve(), (err: unknown) => settleClosed!.reject(err));
      return closing;
    };

    if (o.handleSignals) {
      for (const sig of ["SIGINT", "SIGTERM"] as const) {
        const handler = (): void => {
          // A second signal does not wait for the grace period: generations are cancelled now.
          if (closing) shutdown.abort(new RequestError(503, "the server shut down", { code: "TAGMASK_SHUTDOWN" }));
          app.log.info(`${sig}: shutting down`);
          void close();
        };
        signalHandlers.push([sig, handler]);
        process.on(sig, handler);
      }
    }

    return {
      app, modelId, family, variant, session, metrics,
      contextSize: context.contextSize,
      parallel: o.parallel,
      get url() {
        return url;
      },
      async listen(listenOptions = {}) {
        if (closing) throw new TagmaskError("the server is closed", "TAGMASK_SERVER_CLOSED");
        const host = listenOptions.host ?? o.host;
        await app.listen({ host, port: listenOptions.port ?? o.port });
        const address = app.server.address();
        const port = typeof address === "object" && address !== null ? address.port : listenOptions.port ?? o.port;
        url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
        return url;
      },
      close,
      closed,
    };
  } catch (err) {
    await disposeModel();
    throw err;
  }
}
