/**
 * The server's grammar cache: one compiled grammar per distinct (family, tools, tool_choice,
 * parallel_tool_calls, reasoning mode, response_format, limits), built once and shared by every
 * request that asks for it — concurrent requests for the same grammar wait for one build. The
 * structural tag is built on the event loop (milliseconds); it is lowered on the lowering worker
 * and compiled on the native pool (`GrammarCompiler.compileAsync`). Least recently used
 * entries go first past `maxEntries`; failed builds are not kept.
 */
import { createHash } from "node:crypto";
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
    const built = this.session.toolCallingGrammar(request, this.limits).then((grammar) => {
      this.onBuild(performance.now() - started);
      return grammar;
    });
    this.entries.set(key, built);
    built.catch(() => {
      if (this.entries.get(key) === built) this.entries.delete(key);
    });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return built;
  }
}
