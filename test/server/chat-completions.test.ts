/**
 * The server through the official `openai` client, Kimi K3 on the tiny random model: every
 * tool_choice, streamed and not, response_format, multi-turn conversations with tool results,
 * reasoning, stop strings, limits, usage, and the model, health and metrics endpoints. Every tool
 * call must parse and validate (ajv) against its own tool's schema, whatever the noise model
 * writes: the grammar makes that so.
 */
import type OpenAI from "openai";
import type { ChatCompletionCreateParams, ChatCompletionMessageToolCall, ChatCompletionToolChoiceOption } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, TOOLS, validator, type TestServer } from "./server-helpers.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.server.close();
});

const validators = new Map(TOOLS.map((tool) => [tool.function.name, validator(tool.function.parameters)]));
const USER = [{ role: "user" as const, content: "What is the weather in Paris, and what is 2 + 3?" }];

interface Call {
  id: string;
  name: string;
  arguments: string;
}

/** Checks every call: a known name among `allowed`, JSON arguments valid for that tool's schema. */
function expectValidCalls(calls: Call[], allowed: string[]): void {
  for (const c of calls) {
    expect(allowed, `call ${c.name}`).toContain(c.name);
    expect(c.id).toMatch(/^call_/);
    const args = JSON.parse(c.arguments) as unknown;
    const validate = validators.get(c.name)!;
    expect(validate(args), `${c.name} ${c.arguments}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
}

function callsOf(toolCalls: ChatCompletionMessageToolCall[] | undefined): Call[] {
  return (toolCalls ?? []).map((c) => {
    expect(c.type).toBe("function");
    const fn = (c as { function: { name: string; arguments: string } }).function;
    return { id: c.id, name: fn.name, arguments: fn.arguments };
  });
}

/** A streamed completion as the client sees it: content, reasoning, calls, finish reason, usage. */
async function streamed(client: OpenAI, params: ChatCompletionCreateParams) {
  const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
  let content = "";
  let reasoning = "";
  const calls: Call[] = [];
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  let first = true;
  for await (const chunk of stream) {
    expect(chunk.object).toBe("chat.completion.chunk");
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (first) {
      expect(choice.delta.role).toBe("assistant");
      first = false;
    }
    content += choice.delta.content ?? "";
    reasoning += (choice.delta as { reasoning_content?: string }).reasoning_content ?? "";
    for (const d of choice.delta.tool_calls ?? []) {
      if (d.id) {
        // index, id and name come first, then the argument pieces.
        expect(d.index).toBe(calls.length);
        expect(d.function?.name).toBeTruthy();
        calls.push({ id: d.id, name: d.function!.name!, arguments: d.function?.arguments ?? "" });
      } else {
        expect(calls[d.index], "argument pieces after the call's first delta").toBeDefined();
        calls[d.index]!.arguments += d.function?.arguments ?? "";
      }
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return { content, reasoning, calls, finish, usage };
}

const CHOICES: [string, ChatCompletionToolChoiceOption | undefined, string[], boolean][] = [
  // name, tool_choice, tools a call may name, whether a call is required
  ["absent (auto)", undefined, ["get_weather", "add"], false],
  ["auto", "auto", ["get_weather", "add"], false],
  ["required", "required", ["get_weather", "add"], true],
  ["none", "none", [], false],
  ["named add", { type: "function", function: { name: "add" } }, ["add"], true],
  ["allowed_tools required", { type: "allowed_tools", allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "get_weather" } }] } }, ["get_weather"], true],
  ["allowed_tools auto", { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "add" } }] } }, ["add"], false],
];

describe("chat completions with the openai client (kimi-k3)", () => {
  it("lists the model and answers health and metrics", async () => {
    const models = await t.client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["tiny"]);
    expect((await t.client.models.retrieve("tiny")).id).toBe("tiny");
    const health = await (await fetch(`${t.url}/health`)).json() as Record<string, unknown>;
    expect(health).toMatchObject({ status: "ok", model: "tiny", family: "kimi-k3", parallel: 4, context_size: 1024 });
    const metrics = await fetch(`${t.url}/metrics`);
    expect(metrics.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    for (const name of ["tagmask_requests_total", "tagmask_completion_tokens_total", "tagmask_queue_length", "tagmask_mask_fill_seconds_bucket", "tagmask_grammar_compile_seconds_sum", "tagmask_grammar_cache_hits_total", "process_resident_memory_bytes"]) {
      expect(text).toContain(name);
    }
  });

  for (const [name, toolChoice, allowed, required] of CHOICES) {
    for (const stream of [false, true]) {
      it(`tool_choice ${name}, ${stream ? "streamed" : "not streamed"}: every call valid, the choice respected`, async () => {
        for (const seed of [1, 2]) {
          const params: ChatCompletionCreateParams = {
            model: "tiny", messages: USER, tools: TOOLS, max_tokens: 200, seed, temperature: 1.2,
            ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
          };
          let calls: Call[];
          let finish: string | null;
          if (stream) {
            const s = await streamed(t.client, params);
            calls = s.calls;
            finish = s.finish;
            expect(s.usage!.completion_tokens).toBeGreaterThan(0);
            expect(s.usage!.total_tokens).toBe(s.usage!.prompt_tokens + s.usage!.completion_tokens);
          } else {
            const res = await t.client.chat.completions.create({ ...params, stream: false });
            expect(res.object).toBe("chat.completion");
            expect(res.model).toBe("tiny");
            const choice = res.choices[0]!;
            expect(choice.message.role).toBe("assistant");
            calls = callsOf(choice.message.tool_calls);
            finish = choice.finish_reason;
            expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
          }
          expect(["stop", "tool_calls", "length"]).toContain(finish);
          if (finish !== "length") {
            expectValidCalls(calls, allowed);
            expect(finish).toBe(calls.length > 0 ? "tool_calls" : "stop");
            if (required) expect(calls.length, `seed ${seed}`).toBeGreaterThan(0);
          }
          if (allowed.length === 0) expect(calls).toEqual([]);
        }
      });
    }
  }

  it("makes at most one call without parallel tool calls", async () => {
    for (const seed of [4, 5, 6, 7]) {
      const res = await t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", parallel_tool_calls: false, max_tokens: 200, seed });
      const calls = callsOf(res.choices[0]!.message.tool_calls);
      expect(calls.length).toBe(1);
      expectValidCalls(calls, ["get_weather", "add"]);
    }
  });

  it("holds the answer to response_format json_schema, json_object and text", async () => {
    const schema = { type: "object", properties: { city: { type: "string", maxLength: 12 }, ok: { type: "boolean" } }, required: ["city", "ok"], additionalProperties: false };
    const validate = validator(schema);
    for (const seed of [1, 2]) {
      const res = await t.client.chat.completions.create({
        model: "tiny", messages: USER, max_tokens: 200, seed,
        response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: true } },
      });
      const { message, finish_reason: finish } = res.choices[0]!;
      expect(finish).toBe("stop");
      expect(validate(JSON.parse(message.content!)), message.content!).toBe(true);
      const obj = await t.client.chat.completions.create({ model: "tiny", messages: USER, max_tokens: 200, seed, response_format: { type: "json_object" } });
      const value = JSON.parse(obj.choices[0]!.message.content!) as unknown;
      expect(typeof value === "object" && value !== null && !Array.isArray(value)).toBe(true);
    }
    const text = await t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: "auto", max_tokens: 100, seed: 3, response_format: { type: "text" } });
    expect(["stop", "tool_calls"]).toContain(text.choices[0]!.finish_reason);
  });

  it("keeps the digits of schema numbers a double cannot hold (JSON text sent as written)", async () => {
    // The openai client would round these numbers itself (JSON.stringify): a client in another
    // language sends them as written, as this raw body does.
    const bounds = '{"type": "integer", "minimum": 9223372036854775806, "maximum": 9223372036854775807}';
    const post = async (fields: string): Promise<{ choices: Array<{ message: { content: string | null; tool_calls?: Array<{ function: { arguments: string } }> } }> }> => {
      const res = await fetch(`${t.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"model": "tiny", "messages": ${JSON.stringify(USER)}, "max_tokens": 200, "seed": 5, ${fields}}`,
      });
      expect(res.status).toBe(200);
      return (await res.json()) as never;
    };
    const answer = await post(`"response_format": {"type": "json_schema", "json_schema": {"name": "n", "schema": ${bounds}}}`);
    expect(answer.choices[0]!.message.content).toMatch(/^922337203685477580[67]$/);
    const tool = `{"type": "function", "function": {"name": "pick", "parameters": {"type": "object", "properties": {"n": ${bounds}}, "required": ["n"], "additionalProperties": false}}}`;
    const called = await post(`"tools": [${tool}], "tool_choice": "required"`);
    const args = called.choices[0]!.message.tool_calls![0]!.function.arguments;
    expect(args).toMatch(/^\{\s*"n"\s*:\s*922337203685477580[67]\s*\}$/);
  });

  it("continues a conversation with tool calls and their results, reusing the prompt it already holds", async () => {
    const first = await t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", max_tokens: 200, seed: 11 });
    const message = first.choices[0]!.message;
    const calls = callsOf(message.tool_calls);
    expect(calls.length).toBeGreaterThan(0);
    const messages: ChatCompletionCreateParams["messages"] = [
      { role: "system", content: "You are terse." },
      ...USER,
      { role: "assistant", content: message.content, tool_calls: message.tool_calls },
      ...calls.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: JSON.stringify({ result: `${c.name} done` }) })),
    ];
    for (const toolChoice of ["auto", "required"] as const) {
      const next = await t.client.chat.completions.create({ model: "tiny", messages, tools: TOOLS, tool_choice: toolChoice, max_tokens: 200, seed: 12 });
      const choice = next.choices[0]!;
      expect(["stop", "tool_calls"]).toContain(choice.finish_reason);
      expectValidCalls(callsOf(choice.message.tool_calls), ["get_weather", "add"]);
    }
    // The same conversation again: the sequence already holds the prompt (all but its last token).
    const again = await t.client.chat.completions.create({ model: "tiny", messages, tools: TOOLS, tool_choice: "required", max_tokens: 50, seed: 13 });
    expect(again.usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThan(0);
  });

  it("opens the think channel for a reasoning effort and skips it for none", async () => {
    for (const stream of [false, true]) {
      const params: ChatCompletionCreateParams = { model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", reasoning_effort: "high", max_tokens: 200, seed: 21 };
      if (stream) {
        const s = await streamed(t.client, params);
        expect(s.reasoning.length).toBeGreaterThan(0);
        expectValidCalls(s.calls, ["get_weather", "add"]);
      } else {
        const res = await t.client.chat.completions.create({ ...params, stream: false });
        const message = res.choices[0]!.message as { reasoning_content?: string };
        expect(typeof message.reasoning_content).toBe("string");
        expect(message.reasoning_content!.length).toBeGreaterThan(0);
      }
    }
    const none = await t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", reasoning_effort: "none", max_tokens: 200, seed: 22 });
    expect((none.choices[0]!.message as { reasoning_content?: string }).reasoning_content).toBeUndefined();
  });

  it("ends the content at a stop string, and at max_tokens with finish_reason length", async () => {
    // The noise model writes quotes into the response text: stop at the second one.
    const params: ChatCompletionCreateParams = { model: "tiny", messages: USER, tools: TOOLS, tool_choice: "auto", max_tokens: 200, seed: 31, stop: ['""'] };
    const plain = await t.client.chat.completions.create({ ...params, stream: false });
    const s = await streamed(t.client, params);
    for (const [content, finish] of [[plain.choices[0]!.message.content ?? "", plain.choices[0]!.finish_reason], [s.content, s.finish]] as const) {
      expect(content).not.toContain('""');
      expect(["stop", "tool_calls"]).toContain(finish);
    }
    const short = await t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", max_completion_tokens: 3, seed: 32 });
    expect(short.choices[0]!.finish_reason).toBe("length");
    expect(short.usage!.completion_tokens).toBeLessThanOrEqual(3);
  });
});

describe("the gbnf masking route", () => {
  it("serves tool calls through node-llama-cpp's own grammar sampler", async () => {
    const g = await startTestServer({ route: "gbnf", parallel: 2 });
    try {
      expect(g.server.session.route).toBe("gbnf");
      const results = await Promise.all([1, 2].map((seed) => g.client.chat.completions.create({
        model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", reasoning_effort: "none", max_tokens: 200, seed,
      })));
      for (const res of results) {
        const choice = res.choices[0]!;
        if (choice.finish_reason !== "length") expectValidCalls(callsOf(choice.message.tool_calls), ["get_weather", "add"]);
      }
      // No masks of tagmask's own on this route: nothing is batched.
      expect(g.fills).toEqual([]);
    } finally {
      await g.server.close();
    }
  });
});
