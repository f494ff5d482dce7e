/**
 * Tool lists of any length for the compile-at-scale tests and benchmarks: the six-parameter shape
 * of issue 12 (a string, a bounded integer, a string enum, a boolean, a string array and a small
 * nested object), with names, descriptions, one parameter name, the enum's values and the
 * integer's bound differing from tool to tool, so no two tools lower to the same grammar.
 *
 * @example
 * const tools = sixParameterTools(50);
 * const changed = sixParameterTools(50, { variant: 1, only: 7 }); // tool 7 differs, the rest equal
 */
import type { FunctionTool } from "../../lib/tools/types.js";

/** Tool number `i` of the six-parameter shape; `variant` changes its integer bound. */
export function sixParameterTool(i: number, variant = 0): FunctionTool {
  return {
    type: "function",
    function: {
      name: `tool_${i}`,
      description: `Tool number ${i}: looks things up`,
      parameters: {
        type: "object",
        properties: {
          [`query_${i}`]: { type: "string", description: "what to look for" },
          limit: { type: "integer", minimum: 1, maximum: 10 + i + 1000 * variant },
          mode: { type: "string", enum: ["fast", "slow", "balanced", `mode_${i}`] },
          verbose: { type: "boolean" },
          tags: { type: "array", items: { type: "string" } },
          range: { type: "object", properties: { from: { type: "string" }, to: { type: "string" } }, required: ["from"] },
        },
        required: [`query_${i}`, "limit"],
      },
    },
  };
}

/** `count` tools of the six-parameter shape; with `only`, tool `only` alone gets `variant`. */
export function sixParameterTools(count: number, options: { variant?: number; only?: number } = {}): FunctionTool[] {
  const { variant = 0, only } = options;
  return Array.from({ length: count }, (_, i) => sixParameterTool(i, only === undefined || only === i ? variant : 0));
}
