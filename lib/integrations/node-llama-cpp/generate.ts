/**
 * Constrained generation on a node-llama-cpp `LlamaContextSequence`: drive `evaluate()`, advance
 * the grammar matcher on every token it yields, hand the sampler the next step's mask through a
 * masking route, force jump-forward strings as tokens, and stop where the grammar ends.
 *
 * One loop serves single sequences and batches: where the mask comes from is a {@link MaskSource}
 * (a direct fill for one sequence, the batch path for many).
 */
import type { LlamaContextSequence, LlamaModel, SequenceEvaluateOptions, Token } from "node-llama-cpp";
import { InternalError, InvalidArgumentError, MatcherStateError } from "../../errors.js";
import type { TokenizerInfo } from "../../tokenizer/tokenizer-info.js";
import { TokenKind } from "../../tokenizer/vocabulary.js";
import { BiasBuilder, biasObjectOption, installSamplerArrays, maskAllows, type MaskRouteName, type StepBiases } from "./routes.js";

/** The matcher operations generation needs (tagmask's grammar matcher provides them). */
export interface GenerationMatcher {
  acceptToken(token: number): boolean;
  canTerminate(): boolean;
  isTerminated(): boolean;
  findJumpForwardString(): string;
  fillNextTokenBitmask(out: Int32Array, row?: number): void;
  rollback(steps?: number): void;
}

/** Where a step's mask comes from: fills the row for the matcher's current state. */
export interface MaskSource {
  /** The mask row (ceil(V/32) words) for the current state; may resolve later (batched fills). */
  next(): Int32Array | Promise<Int32Array>;
}

/** node-llama-cpp sampling options passed through unchanged. */
export type SamplingOptions = Pick<
  SequenceEvaluateOptions,
  "temperature" | "minP" | "topK" | "topP" | "seed" | "xtc" | "repeatPenalty" | "dryRepeatPenalty" | "evaluationPriority"
>;

/** Options of a constrained generation. */
export interface GenerateOptions extends SamplingOptions {
  /** Most tokens to generate (sampled and forced), stop token excluded. Default 1024. */
  maxTokens?: number;
  /** Force jump-forward strings as tokens where they tokenize unambiguously. Default true (not with the gbnf route). */
  jumpForward?: boolean;
  /** Stops the generation between two steps. */
  signal?: AbortSignal;
  /** Called with each piece of decoded text as it is generated. */
  onText?: (text: string) => void;
}

/** Why a generation stopped. */
export type StopReason = "grammar-end" | "stop-token" | "max-tokens" | "aborted" | "ended";

/** Timings and counts of one generation. */
export interface GenerationStats {
  /** Tokens chosen by the sampler (stop token included). */
  sampledTokens: number;
  /** Tokens forced from jump-forward strings. */
  forcedTokens: number;
  /**
   * Per step: microseconds the engine took to fill the mask (absent for batched fills, which
   * are timed per batch, and for the gbnf route).
   */
  maskMicros: number[];
  /** Per step: microseconds the masking route took to turn the mask into sampler input. */
  routeMicros: number[];
  /**
   * Per step: microseconds from receiving a token to asking node-llama-cpp for the next one —
   * all of tagmask's work on the step (accept, jump-forward, mask, route; in a batch also the
   * wait for the shared fill).
   */
  loopMicros: number[];
  /** Wall time of the whole generation, milliseconds. */
  totalMs: number;
}

/** The outcome of a constrained generation. */
export interface GenerationResult {
  /** The generated text (the stop token excluded). */
  text: string;
  /** The generated tokens (the stop token excluded). */
  tokens: number[];
  /** The stop token that ended the generation, if one did. */
  stopToken?: number;
  stopReason: StopReason;
  /** How the grammar was enforced ("none" for an unconstrained generation). */
  route: MaskRouteName | "none";
  stats: GenerationStats;
}

/** Everything one generation loop needs. */
export interface GenerationJob {
  sequence: LlamaContextSequence;
  input: readonly Token[];
  /** null: unconstrained (route "none"), ends at an end-of-generation token. */
  matcher: GenerationMatcher | null;
  /** null for the gbnf route (node-llama-cpp's grammar sampler enforces the grammar) and for "none". */
  masks: MaskSource | null;
  tokenizer: TokenizerInfo;
  route: MaskRouteName | "none";
  /** For the gbnf route: node-llama-cpp's grammar evaluation state. */
  grammarEvaluationState?: unknown;
  options: GenerateOptions;
}

const SAMPLING_KEYS = ["temperature", "minP", "topK", "topP", "seed", "xtc", "repeatPenalty", "dryRepeatPenalty", "evaluationPriority"] as const;

function samplingOptions(options: GenerateOptions): SamplingOptions {
  const out: Record<string, unknown> = {};
  for (const key of SAMPLING_KEYS) if (options[key] !== undefined) out[key] = options[key];
  return out as SamplingOptions;
}

/** Checks the options that tagmask itself interprets. */
export function checkGenerateOptions(options: GenerateOptions): void {
  if (options === null || typeof options !== "object") throw new InvalidArgumentError("options: expected an object");
  const { maxTokens, temperature } = options;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 0)) {
    throw new InvalidArgumentError(`options.maxTokens: expected a non-negative integer, found ${String(maxTokens)}`);
  }
  if (temperature !== undefined && !(typeof temperature === "number" && temperature >= 0 && Number.isFinite(temperature))) {
    throw new InvalidArgumentError(`options.temperature: expected a finite number ≥ 0, found ${String(temperature)}`);
  }
}

/**
 * Tokens that spell `text` and that the matcher accepts, to be forced instead of sampled; they
 * are accepted into the matcher here. Forcing stops at the first token the matcher rejects. The
 * last token is given back (rolled back) when the model might have continued it into a longer
 * token (`"` + `:` as `":`): unless it is a special token, or the grammar allows nothing but a
 * stop token after it.
 */
function forcedTokens(text: string, model: LlamaModel, tokenizer: TokenizerInfo, matcher: GenerationMatcher, limit: number, scratch: Int32Array, builder: BiasBuilder): number[] {
  const candidates = Array.from(model.tokenize(text, true) as Token[], Number);
  const forced: number[] = [];
  for (const t of candidates) {
    if (forced.length >= limit || tokenizer.kind(t) === TokenKind.Control) break;
    if (!matcher.acceptToken(t)) break;
    forced.push(t);
  }
  const last = forced[forced.length - 1];
  if (last !== undefined && tokenizer.kind(last) === TokenKind.Normal) {
    matcher.fillNextTokenBitmask(scratch);
    if (!onlyStopTokens(scratch, tokenizer.vocabSize, tokenizer.data.stopTokenIds, builder.countAllowed(scratch))) {
      matcher.rollback(1);
      forced.pop();
    }
  }
  return forced;
}

/** Whether the tokens the mask allows (`allowed` of them) are all stop tokens. */
function onlyStopTokens(mask: Int32Array, n: number, stops: Uint32Array, allowed: number): boolean {
  let stopsAllowed = 0;
  for (const s of stops) if (s < n && maskAllows(mask, s)) stopsAllowed++;
  return stopsAllowed > 0 && allowed === stopsAllowed;
}

/**
 * Runs one constrained generation. The sequence continues from its current state: `input` is
 * evaluated first (pass the prompt, or the tokens not yet in the sequence).
 */
export async function runGeneration(job: GenerationJob): Promise<GenerationResult> {
  const { sequence, matcher, tokenizer, route, options } = job;
  checkGenerateOptions(options);
  const started = performance.now();
  const model = sequence.model;
  const maxTokens = options.maxTokens ?? 1024;
  const jumpForward = options.jumpForward !== false && route !== "gbnf" && matcher !== null;
  const banOnly = options.repeatPenalty !== undefined || options.dryRepeatPenalty !== undefined;
  const stops = tokenizer.data.stopTokenIds;
  // Concurrent generations each need their own bias arrays (the sampler reads them later).
  const builder = new BiasBuilder(tokenizer.vocabSize);
  const scratch = new Int32Array(Math.ceil(tokenizer.vocabSize / 32));
  const stats: GenerationStats = { sampledTokens: 0, forcedTokens: 0, maskMicros: [], routeMicros: [], loopMicros: [], totalMs: 0 };
  const tokens: number[] = [];
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  let text = "";
  const emit = (ids: readonly number[]): void => {
    let chunk = "";
    for (const id of ids) chunk += decoder.decode(tokenizer.data.bytes.subarray(tokenizer.data.offsets[id]!, tokenizer.data.offsets[id + 1]!), { stream: true });
    if (chunk) {
      text += chunk;
      options.onText?.(chunk);
    }
  };
  const finish = (stopReason: StopReason, stopToken?: number): GenerationResult => {
    const rest = decoder.decode();
    if (rest) {
      text += rest;
      options.onText?.(rest);
    }
    stats.totalMs = performance.now() - started;
    return { text, tokens, stopReason, route, stats, ...(stopToken === undefined ? {} : { stopToken }) };
  };

  let mask: Int32Array | undefined;
  let biases: StepBiases | undefined;
  const prepareMask = async (): Promise<"continue" | "grammar-end"> => {
    if (!job.masks) return "continue";
    const t0 = performance.now();
    const row = job.masks.next();
    if (row instanceof Int32Array) {
      stats.maskMicros.push((performance.now() - t0) * 1000);
      mask = row;
    } else {
      mask = await row;
    }
    const t1 = performance.now();
    const allowed = builder.countAllowed(mask);
    if (onlyStopTokens(mask, tokenizer.vocabSize, stops, allowed)) return "grammar-end";
    biases = builder.build(mask, { banOnly, temperature: options.temperature, allowed });
    stats.routeMicros.push((performance.now() - t1) * 1000);
    return "continue";
  };

  if ((matcher === null) !== (route === "none")) throw new InvalidArgumentError("a generation has a matcher exactly when it has a masking route");
  if (job.input.length === 0) throw new InvalidArgumentError("input: at least one token is needed to start generating (e.g. the prompt or a BOS token)");
  if (matcher?.isTerminated()) throw new MatcherStateError("the matcher has already accepted a stop token; reset it or create a new one");
  if (maxTokens === 0) return finish("max-tokens");
  // What the grammar forces from the very start is appended to the input, unsampled.
  let input = job.input.slice() as Token[];
  if (jumpForward) {
    const jump = matcher!.findJumpForwardString();
    const forced = jump ? forcedTokens(jump, model, tokenizer, matcher!, maxTokens, scratch, builder) : [];
    if (forced.length > 0) {
      stats.forcedTokens += forced.length;
      tokens.push(...forced);
      emit(forced);
      input = [...input, ...(forced as Token[])];
      if (tokens.length >= maxTokens) return finish("max-tokens");
    }
  }
  if ((await prepareMask()) === "grammar-end") return finish("grammar-end");

  let restore = (): void => {};
  const evaluateOptions: SequenceEvaluateOptions = { ...samplingOptions(options), yieldEogToken: true };
  if (route === "sampler-arrays") restore = installSamplerArrays(sequence, () => biases);
  else if (route === "bias-object") evaluateOptions.tokenBias = biasObjectOption(model.tokenizer, () => biases) as unknown as SequenceEvaluateOptions["tokenBias"];
  else if (route === "gbnf") evaluateOptions.grammarEvaluationState = job.grammarEvaluationState as SequenceEvaluateOptions["grammarEvaluationState"];

  const gen = sequence.evaluate(input, evaluateOptions);
  try {
    let res = await gen.next();
    for (;;) {
      if (res.done) return finish("ended");
      const received = performance.now();
      const token = Number(res.value);
      stats.sampledTokens++;
      if (mask && !maskAllows(mask, token)) {
        throw new InternalError(`the ${route} masking route let token ${token} (${JSON.stringify(tokenizer.tokenText(token))}) through although the mask forbids it`);
      }
      if (matcher === null) {
        if (model.isEogToken(token as Token)) return finish("stop-token", token);
        tokens.push(token);
        emit([token]);
        if (tokens.length >= maxTokens) return finish("max-tokens");
        if (options.signal?.aborted) return finish("aborted");
        res = await gen.next();
        continue;
      }
      const isStop = tokenizer.isStopToken(token) || (route === "gbnf" && model.isEogToken(token as Token));
      if (isStop && route === "gbnf" && !tokenizer.isStopToken(token)) {
        // node-llama-cpp's grammar sampler allows any end-of-generation token at the end.
        if (!matcher.canTerminate()) throw new InternalError(`the gbnf route ended generation with token ${token} before the grammar could end`);
        return finish("stop-token", token);
      }
      if (!matcher.acceptToken(token)) {
        throw new InternalError(`the grammar matcher rejected token ${token} (${JSON.stringify(tokenizer.tokenText(token))}) that the ${route} route sampled`);
      }
      if (isStop || matcher.isTerminated()) return finish("stop-token", token);
      tokens.push(token);
      emit([token]);
      if (tokens.length >= maxTokens) return finish("max-tokens");
      if (options.signal?.aborted) return finish("aborted");
      let next: Token[] | undefined;
      if (jumpForward) {
        const jump = matcher.findJumpForwardString();
        if (jump) {
          const forced = forcedTokens(jump, model, tokenizer, matcher, maxTokens - tokens.length, scratch, builder);
          if (forced.length > 0) {
            stats.forcedTokens += forced.length;
            tokens.push(...forced);
            emit(forced);
            next = [token, ...forced] as Token[];
            if (tokens.length >= maxTokens) return finish("max-tokens");
          }
        }
      }
      if ((await prepareMask()) === "grammar-end") return finish("grammar-end");
      stats.loopMicros.push((performance.now() - received) * 1000);
      res = await gen.next(next as Token[]);
    }
  } finally {
    restore();
    await gen.return(undefined as never);
  }
}
