/**
 * The load test, short: concurrent `openai` clients with mixed tool sets, tool choices and
 * streaming against one server with fewer sequences than clients (so requests queue, join running
 * batches and leave them). Every request completes and every tool call parses and validates
 * against its own request's schemas. `npm run load-test` is the full run (32 clients × 5).
 */
import { describe, expect, it } from "vitest";
import { runLoadTest } from "../../bench/load-test.js";
import { loadTinyModel } from "../integration/tiny-llama.js";

describe("load test (short)", () => {
  it("serves 6 clients × 2 requests on 3 sequences with every tool call valid", async () => {
    const { model } = await loadTinyModel();
    const report = await runLoadTest({ clients: 6, requestsPerClient: 2, parallel: 3, maxTokens: 120, seed: 3, model });
    expect(report.problems).toEqual([]);
    expect(report.requests).toBe(12);
    expect(report.failedRequests).toBe(0);
    expect(report.invalidToolCalls).toBe(0);
    expect(report.toolCalls).toBeGreaterThan(0);
    expect(report.streamed).toBeGreaterThan(0);
    expect(report.streamed).toBeLessThan(12);
    // Sequences were masked together.
    expect(report.steps.count).toBeGreaterThan(0);
    expect(report.steps.rowsMean).toBeGreaterThan(1);
  });
});
