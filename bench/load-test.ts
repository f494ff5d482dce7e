/**
 * The server's load test: concurrent OpenAI clients (the official `openai` package) against a
 * tagmask server on 127.0.0.1, with mixed tool sets, tool choices, streaming and not. Every
 * response is checked: every tool call parses, names a tool its own request allows, and its
 * arguments validate (ajv) against that tool's schema; the choice is respected (none: no call,
 * required/named: at least one, parallel_tool_calls false: at most one). Reports latency
 * quantiles, aggregate tokens per second, the server's RSS at the start and the end, and the
 * per-step cost of masking from the server's own step hook.
 *
 * `npm run load-test [-- --clients 32 --requests 5 --parallel 8]` (tiny random model, no
 * download); `--overhead` measures the masking share of a decoding step at 1, 8 and 32
 * concurrent sequences. A short version runs in `npm test` (test/server/load-test.test.ts).
 */
import Ajv from "ajv";
import type { LlamaModel } from "node-llama-cpp";
import OpenAI from "openai";
import type { ChatCompletionCreateParams, ChatCompletionTool, ChatCompletionToolChoiceOption } from "openai/resources/chat/completions";
import { ensureTinyModel } from "../lib/integrations/node-llama-cpp/tiny-model.js";
import type { MaskFill } from "../lib/server/mask-batcher.js";
import { createServer, type TagmaskServer } from "../lib/server/server.js";
import { quantile as sortedQuantile } from "./harness.js";

type ValidateFunction = ((data: unknown) => boolean) & { errors?: unknown[] | null };

function quantile(values: readonly number[], q: number): number {
  return sortedQuantile([...values].sort((a, b) => a - b), q);
}

/** Options of {@link runLoadTest}. */
export interface LoadTestOptions {
  clients: number;
  requestsPerClient: number;
  /** Server sequences. */
  parallel: number;
  /** Most tokens per completion. */
  maxTokens: number;
  /** Seed of the request mix. */
  seed: number;
  /** Only tool choices that constrain (required / named / allowed required): for the masking measurement. */
  constrainedOnly?: boolean;
  /** Print progress lines. */
  log?: (line: string) => void;
  /** The model (a loaded node-llama-cpp model or a GGUF path); default the tiny random model. */
  model?: string | LlamaModel;
}

/** What a load test measured. */
export interface LoadTestReport {
  /** Server sequences. */
  parallel: number;
  requests: number;
  streamed: number;
  failedRequests: number;
  toolCalls: number;
  invalidToolCalls: number;
  /** Requests cut by max_tokens (their last streamed call may be incomplete; never counted invalid). */
  truncated: number;
  problems: string[];
  completionTokens: number;
  wallSeconds: number;
  tokensPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  rssStartMb: number;
  /** After half of the requests (the grammar cache warm). */
  rssMidMb: number;
  rssEndMb: number;
  /** Per decoding step of the masked batch. */
  steps: {
    count: number;
    rowsMean: number;
    fillMicros: { p50: number; p99: number };
    /** Fills of steps whose membership did not change (no batch rebuilt). */
    steadyFillMicros: { p50: number; p99: number };
    /** Fills of steps with every sequence of the server masked (rows = parallel). */
    fullFillMicros: { count: number; p50: number; p99: number };
    /** CPU time of the fills (all threads), per step. */
    fillCpuMicros: { p50: number; p99: number };
    stepMicros: { p50: number; p99: number };
    fillShare: number;
  };
  /** Per sequence and step: the masking route's work. */
  routeMicros: { mean: number };
}

type Tool = ChatCompletionTool & { type: "function" };

function tool(name: string, parameters: Record<string, unknown>): Tool {
  return { type: "function", function: { name, description: `the ${name} tool`, parameters } };
}

/** Four tool sets with disjoint names: a call naming another set's tool would be cross-talk. */
const TOOL_SETS: Tool[][] = [
  [
    tool("get_weather", { type: "object", properties: { location: { type: "string" }, unit: { enum: ["celsius", "fahrenheit"] } }, required: ["location"] }),
    tool("get_forecast", { type: "object", properties: { location: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 7 } }, required: ["location", "days"] }),
  ],
  [
    tool("add", { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] }),
    tool("multiply", { type: "object", properties: { values: { type: "array", items: { type: "number" }, minItems: 1, maxItems: 4 } }, required: ["values"] }),
  ],
  [
    tool("create_event", {
      type: "object",
      properties: {
        title: { type: "string", maxLength: 40 },
        when: { type: "object", properties: { date: { type: "string" }, hour: { type: "integer", minimum: 0, maximum: 23 } }, required: ["date", "hour"], additionalProperties: false },
        attendees: { type: "array", items: { type: "string" }, maxItems: 3 },
      },
      required: ["title", "when"],
    }),
    tool("cancel_event", { type: "object", properties: { id: { type: "string" } }, required: ["id"] }),
  ],
  [
    tool("search", { type: "object", properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 50 }, exact: { type: "boolean" } }, required: ["query"] }),
    tool("open_url", { type: "object", properties: { url: { type: "string" } }, required: ["url"] }),
  ],
];

type Choice = "auto" | "required" | "none" | "named" | "allowed";
const CHOICES: Choice[] = ["auto", "required", "none", "named", "allowed"];

/** mulberry32: a small seeded generator, so every run sends the same mix. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Planned {
  params: ChatCompletionCreateParams;
  set: number;
  choice: Choice;
  /** Names a call may have. */
  allowed: string[];
  parallel: boolean;
}

function plan(rand: () => number, model: string, maxTokens: number, constrainedOnly: boolean): Planned {
  const set = Math.floor(rand() * TOOL_SETS.length);
  const tools = TOOL_SETS[set]!;
  const choices: Choice[] = constrainedOnly ? ["required", "named", "allowed"] : CHOICES;
  const choice = choices[Math.floor(rand() * choices.length)]!;
  const parallel = rand() < 0.5;
  let toolChoice: ChatCompletionToolChoiceOption;
  let allowed = tools.map((t) => t.function.name);
  if (choice === "named") {
    toolChoice = { type: "function", function: { name: allowed[0]! } };
    allowed = [allowed[0]!];
  } else if (choice === "allowed") {
    toolChoice = { type: "allowed_tools", allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: allowed[1]! } }] } };
    allowed = [allowed[1]!];
  } else {
    toolChoice = choice;
  }
  if (choice === "none") allowed = [];
  const messages: ChatCompletionCreateParams["messages"] = [
    { role: "system", content: "You are a helpful assistant. Use the tools when they help." },
    { role: "user", content: `Request ${Math.floor(rand() * 1e6)}: please help with ${tools.map((t) => t.function.name).join(" or ")}.` },
  ];
  // Every third request continues a conversation: an earlier call and its result.
  if (rand() < 0.33) {
    const t = tools[0]!.function.name;
    messages.push(
      { role: "assistant", content: "Let me check.", tool_calls: [{ id: "call_prev", type: "function", function: { name: t, arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_prev", content: "done" },
      { role: "user", content: "And once more, please." },
    );
  }
  return {
    set, choice, allowed, parallel,
    params: {
      model, messages, tools, tool_choice: toolChoice, parallel_tool_calls: parallel,
      max_tokens: maxTokens, seed: Math.floor(rand() * 1e9), temperature: 1,
    },
  };
}

interface CallSeen {
  name: string;
  arguments: string;
}

/** The problems of one response (empty: valid). */
function check(p: Planned, calls: CallSeen[], finish: string | null, validators: Map<string, ValidateFunction>): { problems: string[]; invalid: number } {
  const problems: string[] = [];
  let invalid = 0;
  const truncated = finish === "length";
  calls.forEach((c, i) => {
    const last = i === calls.length - 1;
    let args: unknown;
    try {
      args = JSON.parse(c.arguments);
    } catch {
      if (truncated && last) return;
      invalid++;
      problems.push(`call ${c.name}: arguments do not parse: ${c.arguments.slice(0, 80)}`);
      return;
    }
    if (!p.allowed.includes(c.name)) {
      invalid++;
      problems.push(`call ${c.name}: not allowed by tool_choice ${p.choice} of tool set ${p.set} (${p.allowed.join(", ") || "none"})`);
      return;
    }
    const validate = validators.get(c.name)!;
    if (!validate(args)) {
      invalid++;
      problems.push(`call ${c.name}: ${JSON.stringify(args)} fails its schema: ${JSON.stringify(validate.errors?.[0])}`);
    }
  });
  if (!truncated) {
    if ((p.choice === "required" || p.choice === "named" || p.choice === "allowed") && calls.length === 0) problems.push(`tool_choice ${p.choice} but no call (finish ${finish})`);
    if (calls.length > 0 && finish !== "tool_calls") problems.push(`tool calls with finish_reason ${finish}`);
  }
  if (!p.parallel && calls.length > 1) problems.push(`parallel_tool_calls false but ${calls.length} calls`);
  return { problems, invalid };
}

async function rssMb(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^process_resident_memory_bytes (\d+)/m.exec(text);
  return m ? Number(m[1]) / 2 ** 20 : Number.NaN;
}

/** Starts a server on the tiny model (or `model`) on 127.0.0.1 (a free port). */
export async function startTinyServer(parallel: number, onMaskFill?: (fill: MaskFill) => void, model?: string | LlamaModel): Promise<{ server: TagmaskServer; url: string }> {
  const server = await createServer({
    model: model ?? ensureTinyModel().path, family: "kimi-k3", modelId: "tagmask-tiny", parallel, contextSize: 1024, threads: 1, probeModel: false,
    maxFreeTextTokens: 8, maxWhitespace: 4, maxQueue: 1024, ...(onMaskFill ? { onMaskFill } : {}),
  });
  const url = await server.listen({ host: "127.0.0.1", port: 0 });
  return { server, url };
}

/** Runs the load test against a fresh server; closes it at the end. */
export async function runLoadTest(options: LoadTestOptions): Promise<LoadTestReport> {
  const fills: MaskFill[] = [];
  const { server, url } = await startTinyServer(options.parallel, (f) => fills.push(f), options.model);
  try {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0, timeout: 600_000 });
    const ajv = new (Ajv as unknown as new (o: object) => { compile(schema: unknown): ValidateFunction })({ strict: false, allErrors: true });
    const validators = new Map<string, ValidateFunction>();
    for (const set of TOOL_SETS) for (const t of set) validators.set(t.function.name, ajv.compile(t.function.parameters!));
    const rssStartMb = await rssMb(url);
    let rssMid: Promise<number> | undefined;
    const total = options.clients * options.requestsPerClient;
    const latencies: number[] = [];
    const report = { requests: 0, streamed: 0, failedRequests: 0, toolCalls: 0, invalidToolCalls: 0, truncated: 0, completionTokens: 0, problems: [] as string[] };
    const started = performance.now();
    await Promise.all(Array.from({ length: options.clients }, async (_, c) => {
      const rand = random(options.seed * 1000 + c);
      for (let r = 0; r < options.requestsPerClient; r++) {
        const p = plan(rand, server.modelId, options.maxTokens, options.constrainedOnly === true);
        const stream = rand() < 0.5;
        const t0 = performance.now();
        let calls: CallSeen[] = [];
        let finish: string | null = null;
        try {
          if (stream) {
            report.streamed++;
            const chunks = await client.chat.completions.create({ ...p.params, stream: true, stream_options: { include_usage: true } });
            const byIndex: CallSeen[] = [];
            for await (const chunk of chunks) {
              if (chunk.usage) report.completionTokens += chunk.usage.completion_tokens;
              const choice = chunk.choices[0];
              if (!choice) continue;
              for (const d of choice.delta.tool_calls ?? []) {
                byIndex[d.index] ??= { name: d.function?.name ?? "", arguments: "" };
                byIndex[d.index]!.arguments += d.function?.arguments ?? "";
              }
              if (choice.finish_reason) finish = choice.finish_reason;
            }
            calls = byIndex;
          } else {
            const res = await client.chat.completions.create({ ...p.params, stream: false });
            report.completionTokens += res.usage?.completion_tokens ?? 0;
            const choice = res.choices[0]!;
            finish = choice.finish_reason;
            calls = (choice.message.tool_calls ?? []).map((t) => {
              const fn = (t as { function: { name: string; arguments: string } }).function;
              return { name: fn.name, arguments: fn.arguments };
            });
          }
        } catch (err) {
          report.failedRequests++;
          report.problems.push(`client ${c} request ${r}: ${(err as Error).message}`);
          continue;
        } finally {
          latencies.push(performance.now() - t0);
          report.requests++;
          if (report.requests === Math.ceil(total / 2)) rssMid = rssMb(url);
        }
        if (finish === "length") report.truncated++;
        report.toolCalls += calls.length;
        const { problems, invalid } = check(p, calls, finish, validators);
        report.invalidToolCalls += invalid;
        for (const pr of problems) report.problems.push(`client ${c} request ${r} (${stream ? "stream" : "plain"}): ${pr}`);
      }
      options.log?.(`client ${c} done`);
    }));
    const wallSeconds = (performance.now() - started) / 1000;
    const rssEndMb = await rssMb(url);
    const steps = fills.filter((f) => f.sinceLastMicros !== undefined);
    const fillMicros = steps.map((f) => f.micros);
    const steady = steps.filter((f) => !f.rebuilt).map((f) => f.micros);
    const full = fills.filter((f) => f.rows === options.parallel).map((f) => f.micros);
    const stepMicros = steps.map((f) => f.micros + f.sinceLastMicros!);
    const route = server.metrics.routeSeconds;
    return {
      ...report,
      parallel: options.parallel,
      wallSeconds,
      tokensPerSecond: report.completionTokens / wallSeconds,
      latencyMs: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: Math.max(...latencies) },
      rssStartMb, rssMidMb: await (rssMid ?? Promise.resolve(Number.NaN)), rssEndMb,
      steps: {
        count: steps.length,
        rowsMean: steps.reduce((s, f) => s + f.rows, 0) / Math.max(1, steps.length),
        fillMicros: { p50: quantile(fillMicros, 0.5), p99: quantile(fillMicros, 0.99) },
        steadyFillMicros: { p50: quantile(steady, 0.5), p99: quantile(steady, 0.99) },
        fullFillMicros: { count: full.length, p50: quantile(full, 0.5), p99: quantile(full, 0.99) },
        fillCpuMicros: { p50: quantile(steps.map((f) => f.cpuMicros), 0.5), p99: quantile(steps.map((f) => f.cpuMicros), 0.99) },
        stepMicros: { p50: quantile(stepMicros, 0.5), p99: quantile(stepMicros, 0.99) },
        fillShare: fillMicros.reduce((a, b) => a + b, 0) / Math.max(1, stepMicros.reduce((a, b) => a + b, 0)),
      },
      routeMicros: { mean: route.observations === 0 ? 0 : (route.total / route.observations) * 1e6 },
    };
  } finally {
    await server.close();
  }
}

/** The report as lines of text. */
export function formatReport(r: LoadTestReport, title: string): string {
  const f = (x: number, d = 1): string => (Number.isFinite(x) ? x.toFixed(d) : "-");
  return [
    `== ${title} ==`,
    `requests: ${r.requests} (${r.streamed} streamed), failed: ${r.failedRequests}, cut by max_tokens: ${r.truncated}`,
    `tool calls: ${r.toolCalls}, invalid tool calls: ${r.invalidToolCalls}, other problems: ${r.problems.length - r.invalidToolCalls}`,
    `latency: p50 ${f(r.latencyMs.p50, 0)} ms, p99 ${f(r.latencyMs.p99, 0)} ms, max ${f(r.latencyMs.max, 0)} ms`,
    `throughput: ${r.completionTokens} completion tokens in ${f(r.wallSeconds)} s = ${f(r.tokensPerSecond, 0)} tokens/s (all clients)`,
    `server RSS: ${f(r.rssStartMb)} MB at the start, ${f(r.rssMidMb)} MB after half of the requests, ${f(r.rssEndMb)} MB at the end`,
    `masked decoding steps: ${r.steps.count}, ${f(r.steps.rowsMean)} sequences per step on average`,
    `  batched mask fill per step: p50 ${f(r.steps.fillMicros.p50)} µs, p99 ${f(r.steps.fillMicros.p99)} µs ` +
      `(steps without a join or leave: p50 ${f(r.steps.steadyFillMicros.p50)} µs, p99 ${f(r.steps.steadyFillMicros.p99)} µs)`,
    `  CPU time of the fill per step (all threads): p50 ${f(r.steps.fillCpuMicros.p50)} µs, p99 ${f(r.steps.fillCpuMicros.p99)} µs`,
    `  batched mask fill with all ${r.parallel} sequences masked: p50 ${f(r.steps.fullFillMicros.p50)} µs, p99 ${f(r.steps.fullFillMicros.p99)} µs over ${r.steps.fullFillMicros.count} steps`,
    `  whole step (fill to fill): p50 ${f(r.steps.stepMicros.p50)} µs, p99 ${f(r.steps.stepMicros.p99)} µs; fill = ${f(r.steps.fillShare * 100, 2)} % of step time`,
    `  masking route per sequence and step: mean ${f(r.routeMicros.mean)} µs`,
    `  masking per step (median fill + mean route × sequences): ${f(r.steps.fillMicros.p50 + r.routeMicros.mean * r.steps.rowsMean)} µs = ` +
      `${f(((r.steps.fillMicros.p50 + r.routeMicros.mean * r.steps.rowsMean) / r.steps.stepMicros.p50) * 100, 1)} % of the median step`,
    ...r.problems.slice(0, 20).map((p) => `  problem: ${p}`),
  ].join("\n");
}
