/**
 * The server's lifecycle with the official `openai` client: a client that disconnects mid-stream
 * frees its sequence at once (the next requests run at full parallelism), requests that arrive
 * while others generate join the running batch, and a shutdown with requests in flight and
 * waiting loses none of them silently — each either completes or gets an explicit error.
 */
import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { eventually, startTestServer, TOOLS } from "./server-helpers.js";

const USER = [{ role: "user" as const, content: "What is the weather in Paris?" }];

async function health(url: string): Promise<{ status: string; active: number; queued: number }> {
  return await (await fetch(`${url}/health`)).json() as { status: string; active: number; queued: number };
}

describe("server lifecycle", () => {
  it("frees the sequence of a client that disconnects mid-stream; the next requests run at full parallelism", async () => {
    // A long context, so that the generations cannot finish before the clients go away.
    const t = await startTestServer({ parallel: 2, contextSize: 8192 });
    try {
      const controllers = [new AbortController(), new AbortController()];
      const streams = controllers.map(async (controller) => {
        const stream = await t.client.chat.completions.create(
          { model: "tiny", messages: USER, tool_choice: "none", max_tokens: 8000, stream: true },
          { signal: controller.signal },
        );
        let chunks = 0;
        try {
          for await (const chunk of stream) {
            const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
            if (delta?.content || delta?.reasoning_content) chunks++;
            if (chunks >= 3) controller.abort();
          }
        } catch (err) {
          if (!controller.signal.aborted) throw err;
        }
      });
      await Promise.all(streams);
      // Both generations stop right away (they would run 900 tokens otherwise).
      await eventually(async () => (await health(t.url)).active === 0, 5_000, "the sequences to be freed");
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toMatch(/tagmask_requests_total\{status="499"\} 2/);
      const completion = Number(/tagmask_completion_tokens_total (\d+)/.exec(metrics)?.[1] ?? "0");
      expect(completion).toBe(0);

      // Two new requests generate together: their masks come from the same fills.
      const before = t.fills.length;
      const results = await Promise.all([1, 2].map((seed) => t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", reasoning_effort: "none", max_tokens: 200, seed })));
      for (const r of results) expect(r.choices[0]!.message.tool_calls?.length).toBeGreaterThan(0);
      expect(Math.max(...t.fills.slice(before).map((f) => f.rows))).toBe(2);
    } finally {
      await t.server.close();
    }
  });

  it("lets a request that arrives during a generation join the batch at the next step", async () => {
    const t = await startTestServer({ parallel: 3 });
    try {
      const long = t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", max_tokens: 400, seed: 3, temperature: 2 });
      await eventually(() => t.fills.length > 3, 20_000, "the first generation to run");
      const joined = await t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", reasoning_effort: "none", max_tokens: 200, seed: 4 });
      expect(joined.choices[0]!.message.tool_calls?.length ?? 0).toBeGreaterThan(0);
      await long;
      expect(t.fills.some((f) => f.rows === 2)).toBe(true);
    } finally {
      await t.server.close();
    }
  });

  it("shuts down with requests in flight and waiting without losing any silently", async () => {
    const t = await startTestServer({ parallel: 2, maxQueue: 4, shutdownGraceMs: 300 });
    const long = { model: "tiny", messages: USER, tool_choice: "none" as const, max_tokens: 1000 };
    type Outcome = { kind: "completed"; finish: string } | { kind: "error"; status: number | undefined; message: string };
    const settle = async (run: () => Promise<string>): Promise<Outcome> => {
      try {
        return { kind: "completed", finish: await run() };
      } catch (err) {
        return { kind: "error", status: (err as APIError).status, message: (err as Error).message };
      }
    };
    // Two generating (one streamed), two waiting for a sequence.
    const streaming = settle(async () => {
      let finish = "";
      for await (const chunk of await t.client.chat.completions.create({ ...long, stream: true })) finish = chunk.choices[0]?.finish_reason ?? finish;
      if (!finish) throw new Error("the stream ended without a finish reason");
      return finish;
    });
    const plain = settle(async () => (await t.client.chat.completions.create(long)).choices[0]!.finish_reason);
    await eventually(async () => (await health(t.url)).active === 2, 20_000, "two generations");
    const waiting = [settle(async () => (await t.client.chat.completions.create({ ...long, max_tokens: 5 })).choices[0]!.finish_reason),
      settle(async () => {
        let finish = "";
        for await (const chunk of await t.client.chat.completions.create({ ...long, max_tokens: 5, stream: true })) finish = chunk.choices[0]?.finish_reason ?? finish;
        return finish;
      })];
    await eventually(async () => (await health(t.url)).queued === 2, 20_000, "two waiting requests");

    const closed = t.server.close();
    // Closing: health says so, new requests are refused.
    const outcomes = await Promise.all([streaming, plain, ...waiting]);
    await closed;
    for (const o of outcomes) {
      // Cut short by the grace period or refused in the queue: an explicit 503, never a silent cut.
      if (o.kind === "completed") expect(o.finish).toMatch(/^(stop|length)$/);
      else {
        // A stream that already started reports the error as an event (no HTTP status then).
        if (o.status !== undefined) expect(o.status, o.message).toBe(503);
        expect(o.message).toMatch(/shut down/);
      }
    }
    expect(outcomes.slice(0, 2).every((o) => o.kind === "error"), "the long generations outlast the grace period").toBe(true);
    expect(outcomes.slice(2).every((o) => o.kind === "error"), "the waiting requests never got a sequence").toBe(true);
    await expect(fetch(`${t.url}/health`)).rejects.toThrow();
  });

  it("finishes generations that end within the grace period", async () => {
    const t = await startTestServer({ parallel: 2, shutdownGraceMs: 60_000 });
    const requests = [1, 2].map((seed) => t.client.chat.completions.create({ model: "tiny", messages: USER, tools: TOOLS, tool_choice: "required", max_tokens: 120, seed }));
    await eventually(async () => (await health(t.url)).active === 2, 20_000, "two generations");
    await t.server.close();
    for (const r of await Promise.all(requests)) {
      expect(["tool_calls", "length"]).toContain(r.choices[0]!.finish_reason);
    }
  });
});
