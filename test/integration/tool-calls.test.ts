/**
 * End to end on the tiny random model: tools + tool_choice → the Kimi K3 grammar → constrained
 * generation in node-llama-cpp → the K3 parser → ajv. The model writes noise, so every property
 * checked here is the grammar's doing. Seeded: the same run gives the same outputs.
 */
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import type { OutputParseError } from "../../lib/errors.js";
import type { ToolCallsResult } from "../../lib/integrations/node-llama-cpp/constrained-llama.js";
import { parseToolOutput } from "../../lib/tools/families.js";
import type { FunctionTool, ToolCallingRequest, ToolChoice } from "../../lib/tools/types.js";
import { loadConstrainedLlama, loadTinyModel, testTools } from "./tiny-llama.js";

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
/** Free text of a random model never ends by itself: bound it (max_tokens on every any_text). */
const FREE_TEXT_TOKENS = 8;
/**
 * Nor does whitespace inside JSON: how long a run gets depends on the logits, which differ in
 * their last bits between llama.cpp's CPU builds (the SSE4.2 one wrote 2000 tokens of it into
 * one gap) and between batch compositions. Bounded, every output ends on every machine.
 */
const MAX_WHITESPACE = 4;
const LIMITS = { maxFreeTextTokens: FREE_TEXT_TOKENS, maxWhitespace: MAX_WHITESPACE };
const MAX_TOKENS = 2000;

type Validator = ((data: unknown) => boolean) & { errors?: unknown };
const ajv = new (Ajv as unknown as new (o: object) => { compile(schema: unknown): Validator })({ strict: false, allErrors: true });

function validators(tools: FunctionTool[]): Map<string, Validator> {
  return new Map(tools.map((t) => [t.function.name, ajv.compile(t.function.parameters ?? {})]));
}

/** Checks one result against what its request allows; returns the problems found. */
function problems(result: ToolCallsResult, request: ToolCallingRequest, check: Map<string, Validator>): string[] {
  const found: string[] = [];
  if (result.stopReason !== "grammar-end" && result.stopReason !== "stop-token") found.push(`stopped by ${result.stopReason}`);
  if (!result.parsed) {
    found.push(`does not parse: ${result.parseError?.message}`);
    return found;
  }
  const calls = result.parsed.toolCalls;
  const choice = request.tool_choice ?? "auto";
  if (choice === "required" && calls.length === 0) found.push("required, but no call");
  if (typeof choice === "object" && "function" in choice && calls.some((c) => c.name !== choice.function.name)) {
    found.push(`named ${choice.function.name}, but called ${calls.map((c) => c.name).join(", ")}`);
  }
  if (request.parallel_tool_calls === false && calls.length > 1) found.push(`parallel_tool_calls false, but ${calls.length} calls`);
  calls.forEach((call) => {
    const validate = check.get(call.name);
    if (!validate) found.push(`unknown tool ${call.name}`);
    else if (!validate(call.arguments)) found.push(`${call.name} arguments ${JSON.stringify(call.arguments)}: ${JSON.stringify(validate.errors)}`);
  });
  return found;
}

const tools = testTools();
const check = validators(tools);
const choices: [string, ToolChoice, boolean][] = [
  ["auto", "auto", true],
  ["required", "required", true],
  ["named add", { type: "function", function: { name: "add" } }, true],
  ["named set_alarm", { type: "function", function: { name: "set_alarm" } }, true],
  ["required, parallel_tool_calls false", "required", false],
];

describe.each(choices)("tool_choice %s: 20 seeded generations", (_, choice, parallel) => {
  it("all parse, validate against their schemas and respect the choice", async () => {
    const session = await loadConstrainedLlama();
    const { model } = await loadTinyModel();
    const context = await model.createContext({ contextSize: 4096, sequences: 1 });
    const request: ToolCallingRequest = { family: "kimi-k3", tools, tool_choice: choice, parallel_tool_calls: parallel };
    try {
      const sequence = context.getSequence();
      const failures: string[] = [];
      let calls = 0;
      const texts = new Set<string>();
      for (const seed of SEEDS) {
        await sequence.clearHistory();
        // The grammar is compiled once: the session's compiler caches it.
        const result = await session.generateToolCalls(sequence, "<|open|>user<|sep|>Weather in Paris?<|close|>user<|sep|>", request, {
          seed, temperature: 1, maxTokens: MAX_TOKENS, ...LIMITS,
        });
        for (const p of problems(result, request, check)) failures.push(`seed ${seed}: ${p}\n  ${JSON.stringify(result.text)}`);
        calls += result.parsed?.toolCalls.length ?? 0;
        texts.add(result.text);
      }
      expect(failures).toEqual([]);
      // Different seeds explore different outputs; the required choices make calls.
      expect(texts.size).toBeGreaterThan(SEEDS.length / 2);
      if (choice !== "auto") expect(calls).toBeGreaterThanOrEqual(SEEDS.length);
    } finally {
      await context.dispose();
    }
  });
});

describe("generateToolCalls", () => {
  it("returns the parsed calls with the text, and the same output for the same seed", async () => {
    const session = await loadConstrainedLlama();
    const { model } = await loadTinyModel();
    const context = await model.createContext({ contextSize: 4096, sequences: 1 });
    try {
      const sequence = context.getSequence();
      const request: ToolCallingRequest = { family: "kimi-k3", tools, tool_choice: "required" };
      const run = async (): Promise<ToolCallsResult> => {
        await sequence.clearHistory();
        return session.generateToolCalls(sequence, "Hi", request, { seed: 42, temperature: 1, maxTokens: MAX_TOKENS, ...LIMITS });
      };
      const first = await run();
      const second = await run();
      expect(problems(first, request, check)).toEqual([]);
      expect(second.text).toBe(first.text);
      expect(first.parsed!.toolCalls.length).toBeGreaterThan(0);
      expect(first.route).toBe(session.route);
      expect(first.stats.maskMicros.length).toBeGreaterThan(0);
      expect(first.stats.sampledTokens + first.stats.forcedTokens).toBeGreaterThanOrEqual(first.tokens.length);
      // tool_choice "none" constrains nothing: an unconstrained generation.
      await sequence.clearHistory();
      const none = await session.generateToolCalls(sequence, "Hi", { family: "kimi-k3", tools, tool_choice: "none" }, { seed: 1, maxTokens: 5 });
      expect(none.grammar).toBeNull();
      expect(none.route).toBe("none");
      expect(none.tokens.length).toBeLessThanOrEqual(5);
    } finally {
      await context.dispose();
    }
  });
});

describe("four sequences generating at once in one context", () => {
  it("20 generations as 5 rounds of 4 different tool choices: each output valid for its own grammar", async () => {
    const session = await loadConstrainedLlama();
    const { model } = await loadTinyModel();
    const context = await model.createContext({ contextSize: 8192, sequences: 4 });
    try {
      const pool = Array.from({ length: 4 }, () => context.getSequence());
      const requests: ToolCallingRequest[] = [
        { family: "kimi-k3", tools, tool_choice: "required" },
        { family: "kimi-k3", tools, tool_choice: { type: "function", function: { name: "get_weather" } } },
        { family: "kimi-k3", tools, tool_choice: { type: "function", function: { name: "set_alarm" } } },
        { family: "kimi-k3", tools, tool_choice: "auto", parallel_tool_calls: false },
      ];
      const grammars = await Promise.all(requests.map((r) => session.toolCallingGrammar(r, LIMITS)));
      const failures: string[] = [];
      for (let round = 0; round < 5; round++) {
        await Promise.all(pool.map((s) => s.clearHistory()));
        const { results, masks } = await session.generateBatch(pool.map((sequence, i) => ({
          sequence, input: "Hi", grammar: grammars[i]!, options: { seed: 100 + round * 4 + i, temperature: 1, maxTokens: MAX_TOKENS },
        })));
        expect(masks.rows).toBeGreaterThan(masks.fills);
        results.forEach((result, i) => {
          const parsed = { ...result, grammar: grammars[i]!, ...parseK3(requests[i]!, result.text) };
          for (const p of problems(parsed, requests[i]!, check)) failures.push(`round ${round}, sequence ${i}: ${p}\n  ${JSON.stringify(result.text)}`);
        });
      }
      expect(failures).toEqual([]);
    } finally {
      await context.dispose();
    }
  });
});

function parseK3(request: ToolCallingRequest, text: string): Pick<ToolCallsResult, "parsed" | "parseError"> {
  try {
    return { parsed: parseToolOutput(request.family, text) };
  } catch (err) {
    return { parseError: err as OutputParseError };
  }
}
