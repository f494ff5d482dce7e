/**
 * The server's grammar cache: one compiled grammar per distinct (family, tools, tool_choice,
 * parallel_tool_calls, reasoning mode, response_format, limits), built once and shared by every
 * request that asks for it — concurrent requests for the same grammar wait for one build. The
 * structural tag is built on the event loop (milliseconds); it is lowered on a lowering worker
 * and compiled on the native pool (`GrammarCompiler.compileAsync`). Least recently used
 * entries go first past `maxEntries`; failed builds are not kept. A build that runs past the
 * server's deadline is stopped (lowering and native compilation alike) and answered with a 400
 * that says so: a request's tools are the client's to choose, and the lowering workers are shared.
 */
import { createHash } from "node:crypto";
import { AbortError, RequestError } from "../errors.js";
import type { ConstrainedGrammar, ConstrainedLlama, GrammarOptions } from "../integrations/node-llama-cpp/constrained-llama.js";
import type { ToolCallingRequest } from "../tools/types.js";

/** Counters of a {@link GrammarCache}. */
export interface GrammarCacheCounters {
  hits: number;
  misses: number;
  entries: number;
}

/** Compiled tool-calling grammars of one model, by request. */
export class GrammarCache {
  private readonly entries = new Map<string, Promise<ConstrainedGrammar | null>>();
  private counters = { hits: 0, misses: 0 };

  constructor(
    private readonly session: ConstrainedLlama,
    private readonly limits: GrammarOptions,
    private readonly maxEntries: number,
    /** Called after each build (a miss) with its wall time in milliseconds. */
    private readonly onBuild: (ms: number) => void = () => {},
    /** Milliseconds a build may take before it is stopped; 0: no limit. */
    private readonly timeoutMs = 0,
  ) {}

  get stats(): GrammarCacheCounters {
    return { ...this.counters, entries: this.entries.size };
  }

  /** The grammar of `request` (null: nothing to constrain); bad requests reject with the builder's typed error. */
  get(request: ToolCallingRequest): Promise<ConstrainedGrammar | null> {
    const key = createHash("sha256").update(JSON.stringify([
      request.family, request.variant ?? null, request.tools ?? null, request.tool_choice ?? null, request.parallel_tool_calls ?? null, request.reasoning ?? null,
      request.response_format ?? null, this.limits.maxFreeTextTokens ?? null, this.limits.maxWhitespace ?? null,
    ])).digest("base64");
    const cached = this.entries.get(key);
    if (cached) {
      this.counters.hits++;
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    this.counters.misses++;
    const started = performance.now();
    const deadline = this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined;
    const built = this.session.toolCallingGrammar(request, deadline ? { ...this.limits, signal: deadline } : this.limits).then((grammar) => {
      this.onBuild(performance.now() - started);
      return grammar;
    }, (err: unknown) => {
      if (err instanceof AbortError && deadline?.aborted) throw this.timedOut(request);
      throw err;
    });
    this.entries.set(key, built);
    built.catch(() => {
      if (this.entries.get(key) === built) this.entries.delete(key);
    });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return built;
  }

  private timedOut(request: ToolCallingRequest): RequestError {
    const param = request.tools && request.tools.length > 0 ? "tools" : request.response_format ? "response_format" : null;
    const seconds = this.timeoutMs / 1000;
    return new RequestError(400, `the grammar of this request (its tools, tool_choice and response_format) did not compile within ${seconds} s, the server's limit: send fewer or simpler tools, or raise the limit (grammarTimeoutMs; \`tagmask serve --grammar-timeout SECONDS\`)`, {
      param, code: "grammar_timeout",
    });
  }
}
