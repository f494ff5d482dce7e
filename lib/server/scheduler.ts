/**
 * The server's scheduler: the sequences of one node-llama-cpp context shared by concurrent
 * requests (continuous batching). A request is admitted (or refused: 429 past a bounded queue,
 * 503 while shutting down), waits for a free sequence, generates on it with its own matcher —
 * the masks of all generating sequences come from one {@link MaskBatcher} fill per step — and
 * frees the sequence the moment it finishes, fails or is cancelled.
 *
 * A freed sequence keeps its tokens: the next request that gets it evaluates only what differs
 * from them (a conversation's earlier turns, a shared system prompt), and a free sequence whose
 * history shares the longest prefix with the new prompt is chosen first.
 */
import type { LlamaContextSequence, Token } from "node-llama-cpp";
import { RequestError } from "../errors.js";
import type { ConstrainedGrammar, ConstrainedLlama } from "../integrations/node-llama-cpp/constrained-llama.js";
import { runGeneration, type GenerateOptions, type GenerationResult } from "../integrations/node-llama-cpp/generate.js";
import { MaskBatcher, type MaskFill, type MaskMember } from "./mask-batcher.js";

/** Options of a {@link Scheduler}. */
export interface SchedulerOptions {
  /** Requests admitted beyond the ones generating (waiting for a sequence or for their grammar). */
  maxQueue: number;
  /** Seconds a refused client is told to wait (`Retry-After`). */
  retryAfter: number;
  /** Called after every batched mask fill. */
  onMaskFill?: (fill: MaskFill) => void;
}

/** One generation as the server runs it. */
export interface ScheduledGeneration {
  /** The whole prompt. */
  tokens: Token[];
  /** null: unconstrained. */
  grammar: ConstrainedGrammar | null;
  /** Sampling, `maxTokens`, `onText`; `signal` cancels (client gone, stop string, shutdown). */
  options: GenerateOptions;
  penalties?: RepeatPenalties;
}

/** Penalties on tokens already in the sequence's recent history (its last {@link PENALTY_WINDOW} tokens). */
export interface RepeatPenalties {
  /** Subtracted once from the logit of every token that occurs (OpenAI's presence_penalty). */
  presence: number;
  /** Subtracted per occurrence (OpenAI's frequency_penalty). */
  frequency: number;
  /** Divides the logits of occurring tokens (vLLM's and llama.cpp's repetition penalty; 1: none). */
  repetition: number;
}

/** How many of the latest tokens the penalties look at (llama.cpp's default repeat_last_n). */
export const PENALTY_WINDOW = 64;

/** The outcome, with how much of the prompt was already in the sequence. */
export interface ScheduledResult extends GenerationResult {
  /** Prompt tokens reused from the sequence's previous request (not evaluated again). */
  reusedPromptTokens: number;
}

/** A place in the scheduler, taken before the request's grammar is compiled. */
export interface Ticket {
  /** Waits for a sequence and generates; once per ticket. */
  run(job: ScheduledGeneration): Promise<ScheduledResult>;
  /** Gives the place back without running (e.g. the request turned out to be invalid). */
  cancel(): void;
}

interface Waiter {
  tokens: readonly Token[];
  resolve(sequence: LlamaContextSequence): void;
  reject(err: Error): void;
}

/** Why a waiting or generating request stops early: an abort signal's reason, or a generic one. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new RequestError(499, "the request was cancelled", { code: "TAGMASK_CANCELLED" });
}

/** Shares one context's sequences between requests. */
export class Scheduler {
  private readonly free: LlamaContextSequence[];
  private readonly waiters: Waiter[] = [];
  private admitted = 0;
  private running = 0;
  private closed = false;
  private readonly batcher: MaskBatcher;

  constructor(
    private readonly session: ConstrainedLlama,
    sequences: readonly LlamaContextSequence[],
    private readonly options: SchedulerOptions,
  ) {
    this.free = [...sequences];
    this.batcher = new MaskBatcher(Math.max(1, sequences.length), session.tokenizer.vocabSize, options.onMaskFill);
  }

  /** Sequences of the context. */
  get parallel(): number {
    return this.batcher.capacity;
  }

  /** Requests generating now. */
  get active(): number {
    return this.running;
  }

  /** Requests admitted and not generating yet. */
  get queued(): number {
    return this.admitted;
  }

  /** Sequences whose masks come from the shared batch fill now. */
  get maskedSequences(): number {
    return this.batcher.size;
  }

  /**
   * Takes a place: throws a 503 RequestError once closed, a 429 one (with `retryAfter`) when
   * every sequence is busy and `maxQueue` requests already wait.
   */
  admit(): Ticket {
    if (this.closed) throw new RequestError(503, "the server is shutting down", { code: "TAGMASK_SHUTTING_DOWN" });
    // Requests that would wait for a sequence beyond the ones about to get one.
    const waiting = Math.max(0, this.running + this.admitted - this.parallel);
    if (waiting >= this.options.maxQueue) {
      throw new RequestError(429, `the server is busy: ${this.running} requests generating and ${this.admitted} waiting (the queue holds ${this.options.maxQueue}); retry after ${this.options.retryAfter} s`, {
        code: "TAGMASK_QUEUE_FULL", retryAfter: this.options.retryAfter,
      });
    }
    this.admitted++;
    let state: "admitted" | "running" | "done" = "admitted";
    const leaveQueue = (): void => {
      if (state === "admitted") this.admitted--;
    };
    return {
      run: async (job) => {
        if (state !== "admitted") throw new RequestError(500, "a scheduler ticket was used twice", { code: "TAGMASK_INTERNAL" });
        try {
          const sequence = await this.acquire(job.tokens, job.options.signal);
          leaveQueue();
          state = "running";
          this.running++;
          try {
            return await this.generate(sequence, job);
          } finally {
            this.running--;
            this.release(sequence);
          }
        } finally {
          leaveQueue();
          state = "done";
        }
      },
      cancel: () => {
        leaveQueue();
        state = "done";
      },
    };
  }

  /** Refuses new requests and fails the ones waiting for a sequence (503); generating ones go on. */
  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(new RequestError(503, "the server shut down before this request got a sequence", { code: "TAGMASK_SHUTTING_DOWN" }));
  }

  private acquire(tokens: readonly Token[], signal: AbortSignal | undefined): Promise<LlamaContextSequence> {
    if (this.closed) return Promise.reject(new RequestError(503, "the server is shutting down", { code: "TAGMASK_SHUTTING_DOWN" }));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.free.length > 0) {
      // The free sequence whose history shares the longest prefix with the prompt.
      let best = 0;
      let bestShared = -1;
      this.free.forEach((s, i) => {
        const shared = s.compareContextTokens(tokens as Token[]).firstDifferentIndex;
        if (shared > bestShared) {
          best = i;
          bestShared = shared;
        }
      });
      return Promise.resolve(this.free.splice(best, 1)[0]!);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { tokens, resolve, reject };
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(abortReason(signal!));
      };
      waiter.resolve = (s) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(s);
      };
      waiter.reject = (e) => {
        signal?.removeEventListener("abort", onAbort);
        reject(e);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private release(sequence: LlamaContextSequence): void {
    const next = this.waiters.shift();
    if (next) next.resolve(sequence);
    else this.free.push(sequence);
  }

  private async generate(sequence: LlamaContextSequence, job: ScheduledGeneration): Promise<ScheduledResult> {
    const { tokens, grammar } = job;
    // Keep what the sequence already holds of this prompt; at least one token is evaluated anew.
    const shared = Math.min(sequence.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1);
    if (shared < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: shared, end: sequence.nextTokenIndex }]);
    if (job.options.signal?.aborted) throw abortReason(job.options.signal);
    const input = tokens.slice(shared);
    const { session } = this;
    const { penalties } = job;
    const options: GenerateOptions = penalties === undefined ? job.options : {
      ...job.options,
      repeatPenalty: {
        punishTokens: () => sequence.contextTokens.slice(-PENALTY_WINDOW),
        penalty: penalties.repetition, presencePenalty: penalties.presence, frequencyPenalty: penalties.frequency,
      },
    };
    if (!grammar) {
      const result = await runGeneration({ sequence, input, matcher: null, masks: null, tokenizer: session.tokenizer, route: "none", options });
      return { ...result, reusedPromptTokens: shared };
    }
    const matcher = grammar.createMatcher();
    if (session.route === "gbnf") {
      const { LlamaGrammarEvaluationState } = await import("node-llama-cpp");
      const state = new LlamaGrammarEvaluationState({ model: session.model, grammar: await grammar.llamaGrammarFor(session.model.llama) });
      const result = await runGeneration({ sequence, input, matcher, masks: null, tokenizer: session.tokenizer, route: "gbnf", grammarEvaluationState: state, options });
      return { ...result, reusedPromptTokens: shared };
    }
    let member: MaskMember | undefined;
    try {
      member = this.batcher.join(matcher);
      const result = await runGeneration({ sequence, input, matcher, masks: member, tokenizer: session.tokenizer, route: session.route, options });
      return { ...result, reusedPromptTokens: shared };
    } finally {
      member?.leave();
    }
  }
}
