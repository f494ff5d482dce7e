/**
 * Bad requests through the official `openai` client (and raw HTTP where the client cannot send
 * them): each gets the right status and an OpenAI-style error body `{error: {message, type,
 * param, code}}` naming the field; a full queue gets 429 with Retry-After; the server keeps
 * serving afterwards.
 */
import { APIError } from "openai";
import type { ChatCompletionCreateParams, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sixParameterTools } from "../helpers/many-tools.js";
import { eventually, startTestServer, TOOLS, type TestServer } from "./server-helpers.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ contextSize: 512 });
});
afterAll(async () => {
  await t?.server.close();
});

const USER = [{ role: "user" as const, content: "Hello" }];

/** The APIError of a request that must fail. */
async function failure(params: Record<string, unknown>): Promise<APIError> {
  try {
    await t.client.chat.completions.create({ model: "tiny", messages: USER, max_tokens: 10, ...params } as unknown as ChatCompletionCreateParams);
  } catch (err) {
    expect(err).toBeInstanceOf(APIError);
    return err as APIError;
  }
  throw new Error("the request succeeded");
}

/** A raw POST and its JSON answer. */
async function post(body: string, contentType = "application/json"): Promise<{ status: number; body: { error: Record<string, unknown> } }> {
  const res = await fetch(`${t.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": contentType }, body });
  return { status: res.status, body: await res.json() as { error: Record<string, unknown> } };
}

const weatherOnly = [TOOLS[0]!];

// [what, request fields, status, param, message pattern]
const CASES: [string, Record<string, unknown>, number, string | null, RegExp][] = [
  ["an unknown tool in tool_choice", { tools: weatherOnly, tool_choice: { type: "function", function: { name: "nope" } } }, 400, "tool_choice.function.name", /no tool named "nope"/],
  ["an unknown tool in allowed_tools", { tools: weatherOnly, tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "x" } }] } } }, 400, "tool_choice.allowed_tools.tools[0].function.name", /no tool named "x"/],
  ["required with no tools", { tool_choice: "required" }, 400, "tool_choice", /required/],
  ["a tool of another type", { tools: [{ type: "custom", custom: { name: "c" } }] }, 400, "tools[0].custom", /unknown field "custom"/],
  ["a misspelt field of a tool", { tools: [{ type: "function", function: { name: "f", paramters: {} } }] }, 400, "tools[0].function.paramters", /unknown field/],
  ["a schema with a keyword that cannot be enforced", {
    tools: [weatherOnly[0], { type: "function", function: { name: "f", parameters: { type: "object", properties: { a: { type: "string", pattern: "(?<=x)a" } } } } }],
    tool_choice: "auto",
  }, 400, "tools[1].function.parameters", /look-behind/],
  ["a schema whose $ref does not resolve", { tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } } } }] }, 400, "tools[0].function.parameters", /keyword \$ref.*#\/properties\/a\/\$ref/],
  ["a response_format schema that cannot be enforced", { response_format: { type: "json_schema", json_schema: { name: "r", schema: { type: "string", format: "x", pattern: "(?=a)" } } } }, 400, "response_format", /cannot be enforced/],
  ["an unknown response_format type", { response_format: { type: "yaml" } }, 400, "response_format.type", /yaml/],
  ["a prompt longer than the context", { messages: [{ role: "user", content: "word ".repeat(700) }] }, 400, "messages", /the prompt is \d+ tokens, but a sequence holds 512 tokens/],
  ["another model", { model: "gpt-4o" }, 404, "model", /serves the model "tiny" only/],
  ["n > 1", { n: 2 }, 400, "n", /n = 1/],
  ["logprobs", { logprobs: true }, 400, "logprobs", /not supported/],
  ["a temperature out of range", { temperature: 7 }, 400, "temperature", /must be <= 2/],
  ["max_tokens of a wrong type", { max_tokens: "ten" }, 400, "max_tokens", /integer/],
  ["max_tokens 0", { max_tokens: 0 }, 400, "max_tokens", /must be >= 1/],
  ["no messages", { messages: [] }, 400, "messages", /fewer than 1/],
  ["an unknown role", { messages: [{ role: "robot", content: "x" }] }, 400, "messages[0].role", /allowed values/],
  ["an image part", { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] }, 400, "messages[0].content[0].type", /only text/],
  ["a tool result without a call", { messages: [...USER, { role: "tool", tool_call_id: "call_1", content: "x" }] }, 400, "messages[1]", /no earlier assistant message made a call with that id/],
  ["tool-call arguments that are not JSON", {
    messages: [...USER, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "get_weather", arguments: "{oops" } }] }],
  }, 400, "messages[1].tool_calls[0].function.arguments", /does not parse/],
  ["stream_options without stream", { stream_options: { include_usage: true } }, 400, "stream_options", /stream: true/],
  ["too many stop strings", { stop: Array.from({ length: 17 }, (_, i) => `s${i}`) }, 400, "stop", /./],
];

describe("request errors", () => {
  for (const [what, params, status, param, message] of CASES) {
    it(`answers ${status} for ${what}`, async () => {
      const err = await failure(params);
      expect(err.status).toBe(status);
      const body = err.error as { message: string; type: string; param: string | null; code: string | null };
      expect(body.param).toBe(param);
      expect(body.message).toMatch(message);
      expect(body.type).toBe("invalid_request_error");
      expect(typeof body.code).toBe("string");
    });
  }

  it("answers 400 for malformed JSON, a body that is not an object and a missing field", async () => {
    const bad = await post('{"messages": [');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/not valid JSON/);
    expect((await post("[1]")).body.error.message).toMatch(/body: must be object/);
    const missing = await post("{}");
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ param: "messages", message: "messages: is required" });
    const text = await post("hello", "text/plain");
    expect(text.status).toBe(400);
    // Bodies with long numbers are read a second time, exactly; the first read still judges them.
    const longBad = await post('{"max_tokens": 12345678901234567890, "messages": [');
    expect(longBad.status).toBe(400);
    expect(longBad.body.error.message).toMatch(/not valid JSON/);
    const poisoned = await post('{"__proto__": {"x": 1}, "seed": 12345678901234567890, "messages": []}');
    expect(poisoned.status).toBe(400);
    // The exact reader refuses a key given twice, which JSON.parse would quietly read as the last.
    const twice = await post('{"seed": 1, "seed": 12345678901234567890, "messages": []}');
    expect(twice.status).toBe(400);
    expect(twice.body.error.message).toMatch(/^the body is not valid JSON: .*key "seed" a second time/);
  });

  it("answers 404 in the same shape for unknown routes and models", async () => {
    const res = await fetch(`${t.url}/v1/completions`, { method: "POST" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/POST \/v1\/chat\/completions/);
    await expect(t.client.models.retrieve("other")).rejects.toMatchObject({ status: 404 });
  });

  it("counts the refused requests and keeps serving", async () => {
    const res = await t.client.chat.completions.create({ model: "tiny", messages: USER, tools: weatherOnly, tool_choice: "required", reasoning_effort: "none", max_tokens: 200, seed: 1 });
    expect(res.choices[0]!.message.tool_calls?.length).toBeGreaterThan(0);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(Number(/tagmask_requests_total\{status="400"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(CASES.filter((c) => c[2] === 400).length);
  });
});

describe("a full queue", () => {
  it("answers 429 with Retry-After past the queue, and serves again once there is room", async () => {
    const busy = await startTestServer({ parallel: 1, maxQueue: 1, retryAfter: 3 });
    try {
      // One generating, one waiting: the third is refused.
      const long = { model: "tiny", messages: USER, tool_choice: "none" as const, max_tokens: 200 };
      const first = busy.client.chat.completions.create(long);
      await eventually(async () => ((await (await fetch(`${busy.url}/health`)).json()) as { active: number }).active === 1, 20_000, "the first request to generate");
      const second = busy.client.chat.completions.create({ ...long, max_tokens: 5 });
      await eventually(async () => ((await (await fetch(`${busy.url}/health`)).json()) as { queued: number }).queued === 1, 20_000, "the second request to wait");
      let refused: APIError | undefined;
      try {
        await busy.client.chat.completions.create({ model: "tiny", messages: USER, max_tokens: 5 });
      } catch (err) {
        refused = err as APIError;
      }
      expect(refused?.status).toBe(429);
      expect(refused?.headers?.get("retry-after")).toBe("3");
      expect((refused?.error as { message: string }).message).toMatch(/busy.*retry after 3 s/);
      // Streaming requests are refused before the stream starts, with the same status.
      await expect(busy.client.chat.completions.create({ model: "tiny", messages: USER, max_tokens: 5, stream: true })).rejects.toMatchObject({ status: 429 });
      expect((await first).choices[0]!.finish_reason).toBe("length");
      expect((await second).choices[0]!.finish_reason).toBe("length");
      const after = await busy.client.chat.completions.create({ model: "tiny", messages: USER, max_tokens: 5 });
      expect(after.choices[0]!.finish_reason).toBe("length");
    } finally {
      await busy.server.close();
    }
  });
});

describe("a grammar that takes too long to build", () => {
  it("is stopped at grammarTimeoutMs and answered 400 grammar_timeout; the server keeps serving", async () => {
    // A 1 ms limit: 300 new six-parameter tools cannot even reach the lowering worker and back in
    // that time, so the build is always stopped (no race with the machine's speed).
    const slow = await startTestServer({ grammarTimeoutMs: 1 });
    try {
      let refused: APIError | undefined;
      try {
        await slow.client.chat.completions.create({ model: "tiny", messages: USER, max_tokens: 5, tools: sixParameterTools(300, { variant: 9173 }), tool_choice: "auto" } as unknown as ChatCompletionCreateParams);
      } catch (err) {
        refused = err as APIError;
      }
      expect(refused?.status).toBe(400);
      expect(refused?.code).toBe("grammar_timeout");
      expect(refused?.param).toBe("tools");
      expect((refused?.error as { message: string }).message).toMatch(/did not compile within 0\.001 s.*--grammar-timeout SECONDS/);
      const after = await slow.client.chat.completions.create({ model: "tiny", messages: USER, max_tokens: 5, tools: weatherOnly, tool_choice: "none" } as ChatCompletionCreateParamsNonStreaming);
      expect(after.choices[0]!.finish_reason).toBe("length");
    } finally {
      await slow.server.close();
    }
  });
});
