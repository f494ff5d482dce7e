/**
 * The prompt is left open exactly where the family's grammar starts: for every family whose
 * template writes the model's turn as the model writes it, and every reasoning mode, the template's
 * rendering of a conversation followed by an assistant answer (content and two calls, with its
 * reasoning where the mode has the model reason) begins with the prompt it renders for the
 * conversation alone, and what follows the prompt — the assistant turn up to the family's stop
 * text — is accepted by the grammar the family builds for that mode (lowered, checked with the
 * reference recognizer). A renderer that opened the turn one character too early or too late, or
 * a history format the grammar would not write, fails here. (Mistral v3 is not among them: its
 * template writes each call's id into the history, which the model does not write; MiniMax's
 * final_output_only is tagmask's own, which no history shows.)
 */
import { describe, expect, it } from "vitest";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { normalizeConversation } from "../../lib/tools/chat-messages.js";
import { renderChat } from "../../lib/tools/chat-templates.js";
import { buildToolCallingFormat, toolCallingFamily } from "../../lib/tools/index.js";
import type { FunctionTool, ReasoningMode } from "../../lib/tools/types.js";

const tools: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { location: { type: "string" }, unit: { enum: ["celsius", "fahrenheit"] } }, required: ["location"] },
    },
  },
  { type: "function", function: { name: "add", parameters: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] } } },
];
const conversation = [{ role: "system", content: "Be brief." }, { role: "user", content: "Weather in Paris, and 2 + 3.5?" }];
const answer = (reasoning: boolean) => ({
  role: "assistant",
  content: "Checking both.",
  ...(reasoning ? { reasoning_content: "Two tools are needed." } : {}),
  tool_calls: [
    { id: "abcDEF123", type: "function", function: { name: "get_weather", arguments: '{"location": "Paris, FR", "unit": "celsius"}' } },
    { id: "ghiJKL456", type: "function", function: { name: "add", arguments: '{"x": 2, "y": 3.5}' } },
  ],
});

/**
 * [family, variant, {mode: how the model's turn starts after the prompt}]: the first thing the model
 * writes — the answer (final_output_only), the reasoning (think), the think block (auto) — so that a
 * prompt a character short or long fails. EXAONE's template hides earlier reasoning (its
 * `skip_think`), so its think-mode history starts with the block's end.
 */
const FAMILIES: [string, string | undefined, Partial<Record<ReasoningMode, string>>][] = [
  ["glm-4.7", undefined, { final_output_only: "Checking both.<tool_call>", think: "Two tools are needed.</think>", auto: "<think>Two" }],
  ["minimax-m2", undefined, { think: "Two tools are needed.\n</think>\n\nChecking", auto: "<think>\nTwo" }],
  ["exaone", undefined, { final_output_only: "Checking both.\n<tool_call>", think: "\n</think>\n\nChecking", auto: "<think>\n\n</think>\n\nChecking" }],
  ["deepseek-v3.2", undefined, { final_output_only: "Checking both.\n\n<", think: "Two tools are needed.</think>", auto: "<think>Two" }],
  ["deepseek-v4", undefined, { final_output_only: "Checking both.\n\n<", think: "Two tools are needed.</think>", auto: "<think>Two" }],
  ["mistral", "v13", { final_output_only: "Checking both.[TOOL_CALLS]" }],
];

describe("the prompt ends where the grammar starts", () => {
  for (const [family, variant, starts] of FAMILIES) {
    const stops = toolCallingFamily(family).stops;
    for (const [reasoning, start] of Object.entries(starts) as [ReasoningMode, string][]) {
      it(`${family}${variant ? ` ${variant}` : ""}, ${reasoning}`, () => {
        const input = { tools, reasoning, ...(variant ? { variant } : {}) };
        const prompt = renderChat(family, { ...input, messages: normalizeConversation(conversation) });
        const full = renderChat(family, { ...input, messages: normalizeConversation([...conversation, answer(reasoning !== "final_output_only")]), addGenerationPrompt: false });
        expect(full.startsWith(prompt), `the prompt ${JSON.stringify(prompt.slice(-40))} does not begin the answer's turn ${JSON.stringify(full.slice(prompt.length - 40, prompt.length + 40))}`).toBe(true);
        let turn = full.slice(prompt.length);
        expect(turn.startsWith(start), `the model's turn starts ${JSON.stringify(turn.slice(0, 40))}`).toBe(true);
        const stop = stops.map((s) => turn.lastIndexOf(s)).filter((i) => i >= 0).sort((a, b) => a - b)[0];
        if (stop !== undefined) turn = turn.slice(0, stop);
        const grammar = lowerFormat(buildToolCallingFormat({ family, tools, tool_choice: "auto", reasoning, ...(variant ? { variant } : {}) })!);
        expect(isMatch(grammar, turn), JSON.stringify(turn)).toBe(true);
      });
    }
  }
});
