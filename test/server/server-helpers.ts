/**
 * A tagmask server on the tiny random model for the client tests: started on 127.0.0.1 with a
 * free port, one llama.cpp thread, small contexts, and the bounds a noise model needs (free text
 * 8 tokens, JSON gaps 4 characters); and the official `openai` client pointed at it.
 */
import Ajv from "ajv";
import OpenAI from "openai";
import type { MaskFill } from "../../lib/server/mask-batcher.js";
import { createServer, type ServerOptions, type TagmaskServer } from "../../lib/server/server.js";
import { loadTinyModel } from "../integration/tiny-llama.js";

export interface TestServer {
  server: TagmaskServer;
  url: string;
  client: OpenAI;
  /** Every batched mask fill so far. */
  fills: MaskFill[];
}

/**
 * Starts a server on the tiny model (options override the test defaults). The model is loaded
 * once per test file and shared by its servers (each has its own context).
 */
export async function startTestServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const model = options.model ?? (await loadTinyModel()).model;
  const fills: MaskFill[] = [];
  const server = await createServer({
    model, family: "kimi-k3", modelId: "tiny", parallel: 4, contextSize: 1024, threads: 1,
    maxFreeTextTokens: 8, maxWhitespace: 4, shutdownGraceMs: 2000,
    onMaskFill: (f) => fills.push(f),
    ...options,
  });
  const url = await server.listen({ host: "127.0.0.1", port: 0 });
  return { server, url, client: new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0, timeout: 120_000 }), fills };
}

type Validator = ((data: unknown) => boolean) & { errors?: unknown };
const ajv = new (Ajv as unknown as new (o: object) => { compile(schema: unknown): Validator })({ strict: false, allErrors: true });

/** An ajv validator of a JSON schema. */
export function validator(schema: unknown): Validator {
  return ajv.compile(schema);
}

/** Polls `check` until it holds (or fails after `ms`). */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 10_000, what = "condition"): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The tools of the client tests. */
export const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      description: "Current weather in a place.",
      parameters: { type: "object", properties: { location: { type: "string" }, unit: { enum: ["celsius", "fahrenheit"] } }, required: ["location"] },
    },
  },
  {
    type: "function" as const,
    function: {
      name: "add",
      description: "Adds numbers.",
      parameters: { type: "object", properties: { x: { type: "number" }, y: { type: "integer", minimum: 0, maximum: 9 }, tags: { type: "array", items: { type: "string" }, maxItems: 2 } }, required: ["x", "y"] },
    },
  },
];
