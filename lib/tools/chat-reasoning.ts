/**
 * How templates map OpenAI's `reasoning_effort` onto the reasoning modes, for the two common
 * kinds of reasoning model: thinking switched on by a request (off by default), and thinking on
 * by default (a request switches it off with "none").
 */
import type { ReasoningMode } from "./types.js";

/** Thinking off unless a reasoning_effort other than "none" asks for it (DeepSeek V3.x / V4, EXAONE). */
export function thinkingOnRequest(effort: string | undefined): ReasoningMode {
  return effort === undefined || effort === "none" ? "final_output_only" : "think";
}

/** Thinking on unless reasoning_effort is "none" (GLM, MiniMax). */
export function thinkingByDefault(effort: string | undefined): ReasoningMode {
  return effort === "none" ? "final_output_only" : "think";
}
