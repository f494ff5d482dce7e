/**
 * The start-up check of the masking routes: before a route is trusted with a model, a few greedy
 * one-token generations on a small scratch context show whether it really restricts sampling —
 * to one lifted token, away from a banned greedy choice, and to an end-of-generation token.
 * Results are cached per model.
 */
import type { LlamaContextSequence, LlamaModel, Token } from "node-llama-cpp";
import type { TokenizerInfo } from "../../tokenizer/tokenizer-info.js";
import { TokenKind } from "../../tokenizer/vocabulary.js";
import {
  BiasBuilder,
  biasObjectOption,
  installSamplerArrays,
  nodeLlamaCppVersion,
  SAMPLER_ARRAYS_VERSIONS,
  type MaskRouteName,
  type StepBiases,
} from "./routes.js";

/** The outcome of checking one route. */
export interface RouteCheck {
  route: MaskRouteName;
  ok: boolean;
  /** Why the route is not usable (when `ok` is false). */
  reason?: string;
}

/** The per-step routes that need a check (the gbnf route is node-llama-cpp's own mechanism). */
export type CheckedRoute = "sampler-arrays" | "bias-object";

const cache = new WeakMap<object, Map<CheckedRoute, Promise<RouteCheck>>>();

async function sampleOnce(
  sequence: LlamaContextSequence,
  prompt: Token[],
  route: CheckedRoute,
  biases: StepBiases | undefined,
): Promise<number | undefined> {
  await sequence.clearHistory();
  let restore = (): void => {};
  let tokenBias;
  if (biases && route === "sampler-arrays") restore = installSamplerArrays(sequence, () => biases);
  if (biases && route === "bias-object") tokenBias = biasObjectOption(sequence.model.tokenizer, () => biases);
  const gen = sequence.evaluate(prompt, { temperature: 0, yieldEogToken: true, tokenBias: tokenBias as never });
  try {
    const res = await gen.next();
    return res.done ? undefined : Number(res.value);
  } finally {
    restore();
    await gen.return(undefined as never);
  }
}

async function runCheck(model: LlamaModel, tokenizer: TokenizerInfo, route: CheckedRoute): Promise<RouteCheck> {
  if (route === "sampler-arrays") {
    const version = nodeLlamaCppVersion();
    if (version === null || !SAMPLER_ARRAYS_VERSIONS.includes(version)) {
      return { route, ok: false, reason: `written against node-llama-cpp ${SAMPLER_ARRAYS_VERSIONS.join(" and ")}, found ${version ?? "an unknown version"}` };
    }
  }
  const vocab = tokenizer.vocabSize;
  const words = Math.ceil(vocab / 32);
  const builder = new BiasBuilder(vocab);
  const only = (ids: readonly number[]): StepBiases => {
    const mask = new Int32Array(words);
    for (const t of ids) mask[t >>> 5]! |= 1 << (t & 31);
    return builder.build(mask, { temperature: 0 });
  };
  const allBut = (banned: number): StepBiases => {
    const mask = new Int32Array(words);
    for (let t = 0; t < tokenizer.tokenCount; t++) if (t !== banned && tokenizer.kind(t) !== TokenKind.Control) mask[t >>> 5]! |= 1 << (t & 31);
    return builder.build(mask, { temperature: 0 });
  };
  const copy = (b: StepBiases): StepBiases => ({ keys: b.keys.slice(), values: b.values.slice(), allowed: b.allowed });
  const context = await model.createContext({ contextSize: 64, sequences: 1 });
  try {
    const sequence = context.getSequence();
    const prompt = model.tokenize("The", false) as Token[];
    const greedy = await sampleOnce(sequence, prompt, route, undefined);
    if (greedy === undefined) return { route, ok: false, reason: "the model produced no token" };
    let other = -1;
    for (let t = 0; t < tokenizer.tokenCount && other < 0; t++) if (t !== greedy && tokenizer.kind(t) === TokenKind.Normal) other = t;
    const lifted = await sampleOnce(sequence, prompt, route, copy(only([other])));
    if (lifted !== other) return { route, ok: false, reason: `a mask allowing only token ${other} sampled ${String(lifted)}` };
    const banned = await sampleOnce(sequence, prompt, route, copy(allBut(greedy)));
    if (banned === undefined || banned === greedy) return { route, ok: false, reason: `a mask forbidding the greedy token ${greedy} sampled ${String(banned)}` };
    const eog = [...tokenizer.data.stopTokenIds].find((t) => model.isEogToken(t as Token));
    if (eog !== undefined) {
      const ended = await sampleOnce(sequence, prompt, route, copy(only([eog])));
      if (ended !== eog) return { route, ok: false, reason: `a mask allowing only the stop token ${eog} sampled ${String(ended)}` };
    }
    return { route, ok: true };
  } catch (err) {
    return { route, ok: false, reason: `the check failed: ${(err as Error).message}` };
  } finally {
    await context.dispose();
  }
}

/** Checks (once per model and route) whether a per-step masking route works with this model. */
export function checkMaskRoute(model: LlamaModel, tokenizer: TokenizerInfo, route: CheckedRoute): Promise<RouteCheck> {
  let perModel = cache.get(model);
  if (!perModel) {
    perModel = new Map();
    cache.set(model, perModel);
  }
  let check = perModel.get(route);
  if (!check) {
    check = runCheck(model, tokenizer, route);
    perModel.set(route, check);
  }
  return check;
}

/**
 * The fastest per-step route that passes its check, trying `sampler-arrays` then `bias-object`;
 * undefined when neither works (then only the gbnf route is left). Returns every check made.
 */
export async function pickMaskRoute(model: LlamaModel, tokenizer: TokenizerInfo): Promise<{ route: CheckedRoute | undefined; checks: RouteCheck[] }> {
  const checks: RouteCheck[] = [];
  for (const route of ["sampler-arrays", "bias-object"] as const) {
    const check = await checkMaskRoute(model, tokenizer, route);
    checks.push(check);
    if (check.ok) return { route, checks };
  }
  return { route: undefined, checks };
}
