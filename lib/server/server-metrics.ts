/**
 * The metrics `GET /metrics` exposes: requests by outcome, tokens, queue and batch sizes, the
 * per-step mask fill time of the shared batch, grammar compile time and grammar cache hits.
 */
import { MetricsRegistry, type Counter, type Histogram } from "./metrics.js";

/** Where the gauges read from. */
export interface MetricSources {
  queued(): number;
  active(): number;
  parallel(): number;
  grammarCache(): { hits: number; misses: number; entries: number };
}

/** The server's metrics. */
export interface ServerMetrics {
  registry: MetricsRegistry;
  /** Finished requests by HTTP status (`status` label; 499: the client went away). */
  requests: Counter;
  promptTokens: Counter;
  /** Prompt tokens not evaluated again because the sequence held them. */
  reusedPromptTokens: Counter;
  completionTokens: Counter;
  /** Wall time of a batched mask fill per decoding step, seconds. */
  maskFillSeconds: Histogram;
  /** Sequences masked per step (rows of the fill). */
  maskRows: Histogram;
  /** Wall time of building a grammar that was not cached (build, lower, engine compile), seconds. */
  /** Wall time of one decoding step of the masked batch (fill to fill), seconds. */
  stepSeconds: Histogram;
  /** Per sequence and step: turning the mask into the sampler's input (the masking route), seconds. */
  routeSeconds: Histogram;
  compileSeconds: Histogram;
  requestSeconds: Histogram;
  firstTokenSeconds: Histogram;
}

const FILL_BUCKETS = [5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2];
const STEP_BUCKETS = [2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1];
const SECOND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const ROW_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];

/** Creates the server's metrics over `sources`. */
export function createServerMetrics(sources: MetricSources): ServerMetrics {
  const r = new MetricsRegistry();
  const m: ServerMetrics = {
    registry: r,
    requests: r.counter("tagmask_requests_total", "Chat completion requests finished, by HTTP status."),
    promptTokens: r.counter("tagmask_prompt_tokens_total", "Prompt tokens of finished requests."),
    reusedPromptTokens: r.counter("tagmask_prompt_tokens_reused_total", "Prompt tokens a sequence already held (not evaluated again)."),
    completionTokens: r.counter("tagmask_completion_tokens_total", "Generated tokens (sampled and forced)."),
    maskFillSeconds: r.histogram("tagmask_mask_fill_seconds", "Wall time of one batched mask fill (all masked sequences of a decoding step).", FILL_BUCKETS),
    maskRows: r.histogram("tagmask_mask_rows", "Sequences masked together in one decoding step.", ROW_BUCKETS),
    stepSeconds: r.histogram("tagmask_step_seconds", "Wall time of one decoding step of the masked sequences (from one batched fill to the next).", STEP_BUCKETS),
    routeSeconds: r.histogram("tagmask_mask_route_seconds", "Per sequence and step: turning the mask into the sampler's input.", FILL_BUCKETS),
    compileSeconds: r.histogram("tagmask_grammar_compile_seconds", "Wall time of building a grammar not in the cache.", SECOND_BUCKETS),
    requestSeconds: r.histogram("tagmask_request_duration_seconds", "Wall time of a chat completion request that was served (not refused).", SECOND_BUCKETS),
    firstTokenSeconds: r.histogram("tagmask_time_to_first_token_seconds", "Wall time until a request's first generated text.", SECOND_BUCKETS),
  };
  r.gauge("tagmask_queue_length", "Requests admitted and waiting for a sequence or their grammar.", sources.queued);
  r.gauge("tagmask_active_sequences", "Requests generating now.", sources.active);
  r.gauge("tagmask_parallel_sequences", "Sequences of the context (the most requests generating at once).", sources.parallel);
  r.counterFrom("tagmask_grammar_cache_hits_total", "Requests whose grammar came from the cache (or from a build in progress).", () => sources.grammarCache().hits);
  r.counterFrom("tagmask_grammar_cache_misses_total", "Requests whose grammar was built.", () => sources.grammarCache().misses);
  r.gauge("tagmask_grammar_cache_entries", "Grammars in the cache.", () => sources.grammarCache().entries);
  r.gauge("process_resident_memory_bytes", "Resident memory of the server process (RSS), bytes.", () => process.memoryUsage.rss());
  r.gauge("nodejs_heap_used_bytes", "V8 heap in use, bytes.", () => process.memoryUsage().heapUsed);
  return m;
}
