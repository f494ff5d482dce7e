/**
 * JSON schemas of the server's request bodies, checked by fastify (ajv) before a handler runs:
 * the types and ranges of every field of `POST /v1/chat/completions`. What a schema cannot say
 * well — message contents, tool definitions, tool_choice, response_format — the handler checks
 * with the same functions the library uses, which name the exact field. Fields not listed here
 * are accepted and ignored (as OpenAI-compatible servers do with fields of newer API versions).
 */

/** `schema` or null (ajv then names the expected types in one message: "must be integer,null"). */
function nullable(schema: Record<string, unknown>): Record<string, unknown> {
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...(schema.enum as unknown[]), null] };
  return { anyOf: [schema, { type: "null" }] };
}

/** The `reasoning_effort` values of OpenAI's API. */
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** Most stop strings in one request. */
export const MAX_STOP_STRINGS = 16;

/** The body of `POST /v1/chat/completions`. */
export const chatCompletionBodySchema = {
  type: "object",
  required: ["messages"],
  properties: {
    model: { type: "string" },
    messages: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["role"],
        properties: { role: { enum: ["system", "developer", "user", "assistant", "tool"] } },
      },
    },
    tools: nullable({ type: "array" }),
    tool_choice: nullable({ anyOf: [{ type: "string" }, { type: "object" }] }),
    parallel_tool_calls: nullable({ type: "boolean" }),
    response_format: nullable({ type: "object", required: ["type"], properties: { type: { type: "string" } } }),
    max_tokens: nullable({ type: "integer", minimum: 1 }),
    max_completion_tokens: nullable({ type: "integer", minimum: 1 }),
    temperature: nullable({ type: "number", minimum: 0, maximum: 2 }),
    top_p: nullable({ type: "number", exclusiveMinimum: 0, maximum: 1 }),
    top_k: nullable({ type: "integer", minimum: 0 }),
    min_p: nullable({ type: "number", minimum: 0, maximum: 1 }),
    seed: nullable({ type: "integer" }),
    presence_penalty: nullable({ type: "number", minimum: -2, maximum: 2 }),
    frequency_penalty: nullable({ type: "number", minimum: -2, maximum: 2 }),
    repetition_penalty: nullable({ type: "number", exclusiveMinimum: 0 }),
    stop: nullable({ anyOf: [{ type: "string", minLength: 1 }, { type: "array", maxItems: MAX_STOP_STRINGS, items: { type: "string", minLength: 1 } }] }),
    stream: nullable({ type: "boolean" }),
    stream_options: nullable({ type: "object", properties: { include_usage: { type: "boolean" } } }),
    reasoning_effort: nullable({ enum: [...REASONING_EFFORTS] }),
    n: nullable({ type: "integer", minimum: 1 }),
    logprobs: nullable({ type: "boolean" }),
  },
} as const;
