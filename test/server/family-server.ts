/**
 * The client suite the family server tests share: a server on a family's tiny random model (its
 * tokenizer and markers), the official `openai` client asking for every tool choice, streamed and
 * not, and a conversation continued with a tool result. Every tool call must parse and validate
 * against its own tool's schema; a generation cut by max_tokens (noise can run long) only has to
 * end cleanly.
 */
import type OpenAI from "openai";
import type { ChatCompletionCreateParams, ChatCompletionToolChoiceOption } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Llama } from "node-llama-cpp";
import { ensureTinyModel, type TinyModelOptions } from "../../lib/integrations/node-llama-cpp/tiny-model.js";
import { startTestServer, TOOLS, validator, type TestServer } from "./server-helpers.js";

const validators = new Map(TOOLS.map((tool) => [tool.function.name, validator(tool.function.parameters)]));
const USER = [{ role: "user" as const, content: "What is the weather in Paris, and what is 2 + 3?" }];

interface Call {
  name: string;
  arguments: string;
}

function expectValid(calls: Call[], allowed: string[]): void {
  for (const c of calls) {
    expect(allowed).toContain(c.name);
    const args = JSON.parse(c.arguments) as unknown;
    expect(validators.get(c.name)!(args), `${c.name} ${c.arguments}`).toBe(true);
  }
}

async function streamedCalls(client: OpenAI, params: ChatCompletionCreateParams): Promise<{ calls: Call[]; finish: string | null }> {
  const calls: Call[] = [];
  let finish: string | null = null;
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) {
    const choice = chunk.choices[0];
    if (!choice) continue;
    for (const d of choice.delta.tool_calls ?? []) {
      if (d.id) calls.push({ name: d.function!.name!, arguments: d.function?.arguments ?? "" });
      else calls[d.index]!.arguments += d.function?.arguments ?? "";
    }
    finish = choice.finish_reason ?? finish;
  }
  return { calls, finish };
}

const CHOICES: [string, ChatCompletionToolChoiceOption, string[]][] = [
  ["required", "required", ["get_weather", "add"]],
  ["named", { type: "function", function: { name: "add" } }, ["add"]],
  ["auto", "auto", ["get_weather", "add"]],
];

export interface FamilySuite {
  family: string;
  /** The tiny model's tokenizer and markers. */
  model: TinyModelOptions;
  /** What `/health` must report besides the family (e.g. the variant picked from the vocabulary). */
  health?: Record<string, unknown>;
  /** Server options beyond the test defaults. */
  server?: Record<string, unknown>;
}

/** Declares the client tests of one family's server (the caller owns `llama`). */
export function describeFamilyServer(suite: FamilySuite, llama: () => Llama): void {
  const { family } = suite;
  describe(`chat completions with the openai client (${family})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      const { path } = ensureTinyModel(suite.model);
      const model = await llama().loadModel({ modelPath: path });
      t = await startTestServer({ model, family, parallel: 2, contextSize: 2048, ...suite.server });
    });
    afterAll(async () => {
      await t?.server.close();
    });

    it("serves the model and reports the family", async () => {
      const health = await (await fetch(`${t.url}/health`)).json() as Record<string, unknown>;
      expect(health).toMatchObject({ family, ...suite.health });
    });

    for (const [name, toolChoice, allowed] of CHOICES) {
      it(`tool_choice ${name}, streamed and not: every call valid`, async () => {
        const params: ChatCompletionCreateParams = { model: "tiny", messages: USER, tools: TOOLS, tool_choice: toolChoice, reasoning_effort: "none", max_tokens: 300, seed: 3 };
        const plain = await t.client.chat.completions.create({ ...params, stream: false });
        const choice = plain.choices[0]!;
        const calls = (choice.message.tool_calls ?? []).map((c) => (c as { function: Call }).function);
        const streamed = await streamedCalls(t.client, { ...params, seed: 4 });
        for (const [cs, finish] of [[calls, choice.finish_reason], [streamed.calls, streamed.finish]] as const) {
          if (finish === "length") continue;
          expectValid(cs, allowed);
          if (name !== "auto") expect(cs.length).toBeGreaterThan(0);
          expect(finish).toBe(cs.length > 0 ? "tool_calls" : "stop");
        }
      });
    }

    it("continues a conversation with a tool result", async () => {
      const first = await t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: { type: "function", function: { name: "add" } }, reasoning_effort: "none", max_tokens: 300, seed: 5 });
      const message = first.choices[0]!.message;
      if (!message.tool_calls?.length) return expect(first.choices[0]!.finish_reason).toBe("length");
      // Llama 3's template takes one call per assistant message.
      const calls = message.tool_calls.slice(0, 1);
      const next = await t.client.chat.completions.create({
        model: "tiny", tools: TOOLS, tool_choice: "required", reasoning_effort: "none", max_tokens: 300, seed: 6,
        messages: [...USER, { role: "assistant", content: message.content, tool_calls: calls }, { role: "tool", tool_call_id: calls[0]!.id, content: "5" }],
      });
      const choice = next.choices[0]!;
      if (choice.finish_reason !== "length") expectValid((choice.message.tool_calls ?? []).map((c) => (c as { function: Call }).function), ["get_weather", "add"]);
    });
  });
}
