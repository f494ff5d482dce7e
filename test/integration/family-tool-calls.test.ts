/**
 * End to end for other families than Kimi K3, as tool-calls.test.ts does for it: the tiny random
 * model built with the family's vocabulary and markers, the family's grammar, constrained
 * generation in node-llama-cpp, the family's parser, ajv. 20 seeded generations per tool_choice;
 * free text and JSON whitespace bounded as for Kimi K3 (the model writes noise).
 */
import { describe, expect, it } from "vitest";
import { parserOptionsOf } from "../../lib/integrations/node-llama-cpp/constrained-llama.js";
import { parseToolOutput } from "../../lib/tools/families.js";
import type { ToolCallingRequest, ToolChoice } from "../../lib/tools/types.js";
import { problems } from "../tools/families/check.js";
import { loadFamilyModel, testTools } from "./tiny-llama.js";

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
const LIMITS = { maxFreeTextTokens: 8, maxWhitespace: 4 };
const MAX_TOKENS = 1500;
const tools = testTools();

const choices: [string, ToolChoice, boolean][] = [
  ["auto", "auto", true],
  ["required", "required", true],
  ["named set_alarm", { type: "function", function: { name: "set_alarm" } }, true],
  ["required, parallel_tool_calls false", "required", false],
];

const families: [string, ToolCallingRequest["reasoning"]][] = [
  ["qwen3", "auto"],
  ["llama3", "final_output_only"],
  ["harmony", "auto"],
];

describe.each(families)("%s on its tiny model", (family, reasoning) => {
  it.each(choices)("tool_choice %s: 20 seeded generations parse, validate and respect the choice", async (_name, choice, parallel) => {
    const { model, session } = await loadFamilyModel(family);
    const context = await model.createContext({ contextSize: 4096, sequences: 1 });
    const request: ToolCallingRequest = { family, tools, tool_choice: choice, parallel_tool_calls: parallel, ...(reasoning ? { reasoning } : {}) };
    try {
      const sequence = context.getSequence();
      const failures: string[] = [];
      const texts = new Set<string>();
      let calls = 0;
      for (const seed of SEEDS) {
        await sequence.clearHistory();
        const result = await session.generateToolCalls(sequence, "What is the weather in Paris?", request, { seed, temperature: 1, maxTokens: MAX_TOKENS, ...LIMITS });
        if (result.stopReason !== "grammar-end" && result.stopReason !== "stop-token") failures.push(`seed ${seed}: stopped by ${result.stopReason}`);
        if (!result.parsed) {
          failures.push(`seed ${seed}: does not parse: ${result.parseError?.message}\n  ${JSON.stringify(result.text)}`);
          continue;
        }
        // The same text parsed again, as a server would: the same calls.
        expect(parseToolOutput(family, result.text, parserOptionsOf(request))).toEqual(result.parsed);
        for (const p of problems(result.parsed, request)) failures.push(`seed ${seed}: ${p}\n  ${JSON.stringify(result.text)}`);
        calls += result.parsed.toolCalls.length;
        texts.add(result.text);
      }
      expect(failures).toEqual([]);
      expect(texts.size).toBeGreaterThan(SEEDS.length / 2);
      if (choice !== "auto") expect(calls).toBeGreaterThanOrEqual(SEEDS.length);
    } finally {
      await context.dispose();
    }
  });
});
