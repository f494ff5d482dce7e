/**
 * Small parts of the server: the Prometheus exposition text, the vLLM / SGLang request bodies,
 * request-error mapping (fastify validation errors, typed tagmask errors), the option checks of
 * createServer and the family resolution.
 */
import { describe, expect, it } from "vitest";
import { GrammarError, InternalError, RequestError, SchemaError, ToolError } from "../../lib/errors.js";
import { errorBody, toRequestError } from "../../lib/server/http-errors.js";
import { MetricsRegistry } from "../../lib/server/metrics.js";
import { remoteRequestBodies } from "../../lib/server/remote-request.js";
import { createServer, resolveFamily } from "../../lib/server/server.js";

describe("metrics", () => {
  it("renders counters, gauges and histograms in the Prometheus text format", () => {
    const r = new MetricsRegistry();
    const c = r.counter("x_total", "Things.");
    c.inc({ status: "200" });
    c.inc({ status: "200" }, 2);
    c.inc({ status: 'a"b\\c' });
    r.gauge("g", "A gauge.", () => 1.5);
    r.counterFrom("k_total", "Kept elsewhere.", () => 7);
    const h = r.histogram("h_seconds", "Times.", [0.1, 1]);
    h.observe(0.05);
    h.observe(0.5);
    h.observe(3);
    r.counter("empty_total", "Never counted.");
    expect(r.render()).toBe([
      "# HELP x_total Things.", "# TYPE x_total counter", 'x_total{status="200"} 3', 'x_total{status="a\\"b\\\\c"} 1',
      "# HELP g A gauge.", "# TYPE g gauge", "g 1.5",
      "# HELP k_total Kept elsewhere.", "# TYPE k_total counter", "k_total 7",
      "# HELP h_seconds Times.", "# TYPE h_seconds histogram", 'h_seconds_bucket{le="0.1"} 1', 'h_seconds_bucket{le="1"} 2', 'h_seconds_bucket{le="+Inf"} 3',
      "h_seconds_sum 3.55", "h_seconds_count 3",
      "# HELP empty_total Never counted.", "# TYPE empty_total counter", "empty_total 0",
    ].join("\n") + "\n");
    expect(c.get({ status: "200" })).toBe(3);
    expect(h.observations).toBe(3);
  });
});

describe("remote request bodies", () => {
  const tools = [{ type: "function" as const, function: { name: "f", parameters: { type: "object", properties: { a: { type: "string" } } } } }];
  it("keeps the tools and sends tool_choice auto (none stays none), the tag in each server's field", () => {
    const { tag, bodies } = remoteRequestBodies({ family: "kimi-k3", tools, tool_choice: { type: "function", function: { name: "f" } }, model: "m" });
    expect(tag).not.toBeNull();
    expect(bodies.vllm.tool_choice).toBe("auto");
    expect(typeof (bodies.vllm.structured_outputs as { structural_tag: unknown }).structural_tag).toBe("string");
    expect((bodies.sglang.response_format as { type: string }).type).toBe("structural_tag");
    const none = remoteRequestBodies({ family: "kimi-k3", tools, tool_choice: "none" });
    expect(none.tag).toBeNull();
    expect(none.bodies.vllm).toEqual({ model: "default", messages: [{ role: "user", content: "<your message>" }], tools, tool_choice: "none" });
  });

  it("reports bad tool requests as the builder does", () => {
    expect(() => remoteRequestBodies({ family: "kimi-k3", tools, tool_choice: "required", parallel_tool_calls: "yes" as never })).toThrow(ToolError);
  });
});

describe("request errors", () => {
  it("maps typed errors to statuses and OpenAI bodies", () => {
    expect(errorBody(toRequestError(new ToolError("tools[0].function.name", "bad")))).toEqual({
      error: { message: "tools[0].function.name: bad", type: "invalid_request_error", param: "tools[0].function.name", code: "TAGMASK_INVALID_TOOLS" },
    });
    expect(toRequestError(new SchemaError("#/x", "no")).status).toBe(400);
    expect(toRequestError(new GrammarError("bad regex")).status).toBe(400);
    const internal = toRequestError(new InternalError("oops"));
    expect(internal.status).toBe(500);
    expect(errorBody(internal).error.type).toBe("server_error");
    expect(toRequestError(new Error("boom")).message).toMatch(/internal error: boom/);
    const busy = new RequestError(429, "busy", { retryAfter: 2, code: "TAGMASK_QUEUE_FULL" });
    expect(toRequestError(busy)).toBe(busy);
    expect(errorBody(busy).error.type).toBe("rate_limit_exceeded");
  });

  it("names the field of a fastify validation error", () => {
    const e = toRequestError({ validation: [{ instancePath: "/messages/2/role", keyword: "enum", message: "must be equal to one of the allowed values", params: { allowedValues: ["user"] } }] });
    expect(e.param).toBe("messages[2].role");
    expect(e.message).toBe('messages[2].role: must be equal to one of the allowed values ("user")');
    const missing = toRequestError({ validation: [{ instancePath: "", keyword: "required", params: { missingProperty: "messages" } }] });
    expect(missing.message).toBe("messages: is required");
    const odd = toRequestError({ validation: [{ instancePath: "/a~1b/x y", keyword: "type", message: "must be string", params: {} }] });
    expect(odd.param).toBe('["a/b"]["x y"]');
  });
});

describe("createServer options", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["no options", null as never, /expected an options object/],
    ["no model", {}, /options.model: expected a GGUF file path or a node-llama-cpp LlamaModel/],
    ["an empty path", { model: "" }, /empty string/],
    ["an unknown option", { model: "x.gguf", paralel: 2 }, /options.paralel: unknown option/],
    ["parallel 0", { model: "x.gguf", parallel: 0 }, /options.parallel: expected an integer in \[1, 1024\], found 0/],
    ["a fractional port", { model: "x.gguf", port: 1.5 }, /options.port/],
    ["a route", { model: "x.gguf", route: "fast" }, /options.route/],
    ["a gpu string", { model: "x.gguf", gpu: "yes" }, /options.gpu: expected true or false/],
    ["a hook that is not a function", { model: "x.gguf", onMaskFill: 1 }, /options.onMaskFill: expected a function/],
    ["no lowering workers", { model: "x.gguf", loweringWorkers: 0 }, /options.loweringWorkers: expected an integer in \[1, 64\], found 0/],
    ["a lowering heap too small", { model: "x.gguf", loweringHeapLimitMb: 8 }, /options.loweringHeapLimitMb: expected an integer in \[16, 65536\], found 8/],
  ];
  for (const [what, options, message] of cases) {
    it(`refuses ${what} before loading anything`, async () => {
      await expect(createServer(options as never)).rejects.toThrow(message);
    });
  }

  it("resolves the family: named, detected from the chat template, or an error listing them", () => {
    expect(resolveFamily("kimi-k3", undefined)).toBe("kimi-k3");
    expect(resolveFamily(undefined, "{{ '<|open|>' }}{{ '<|close|>' }}{{ '<|end_of_msg|>' }}")).toBe("kimi-k3");
    expect(() => resolveFamily(undefined, undefined)).toThrow(/the model file has no chat template .*one of .*kimi-k3/);
    expect(() => resolveFamily(undefined, "{{ messages }}")).toThrow(/not one tagmask recognizes/);
    expect(() => resolveFamily("gpt-9", undefined)).toThrow(/unknown model family string "gpt-9"/);
  });
});
