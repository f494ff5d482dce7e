/**
 * Errors as HTTP responses in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`.
 * Typed tagmask errors map to statuses (bad tools, schemas, formats, arguments: 400; everything
 * else: 500), fastify's own errors (malformed JSON, schema validation, body too large) keep
 * their meaning, and a schema or regex the grammar cannot take is traced back to the request
 * field it came from (`tools[1].function.parameters`, `response_format`).
 */
import { AbortError, FormatError, GrammarError, InvalidArgumentError, RequestError, SchemaError, TagmaskError, ToolError } from "../errors.js";
import { indexPath, keyPath } from "../format/json-path.js";
import { lowerOffThread } from "../engine/lowering-pool.js";
import { buildToolCallingFormat } from "../tools/families.js";
import type { ToolCallingRequest } from "../tools/types.js";

/** The body of an error response. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const TYPES: Record<number, string> = {
  400: "invalid_request_error",
  404: "invalid_request_error",
  413: "invalid_request_error",
  415: "invalid_request_error",
  429: "rate_limit_exceeded",
  499: "cancelled",
  503: "service_unavailable",
};

/** The response body of `err`. */
export function errorBody(err: RequestError): OpenAIErrorBody {
  return { error: { message: err.message, type: TYPES[err.status] ?? "server_error", param: err.param, code: err.code } };
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  validation?: { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }[];
  validationContext?: string;
}

/** `/messages/0/role` → `messages[0].role`. */
function paramOf(instancePath: string): string {
  let out = "";
  for (const part of instancePath.split("/").slice(1)) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    out = /^\d+$/.test(key) ? indexPath(out, Number(key)) : keyPath(out, key);
  }
  return out;
}

/** Any error thrown while serving a request, as a RequestError with the right status. */
export function toRequestError(err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  const f = err as FastifyLikeError;
  if (f && Array.isArray(f.validation) && f.validation.length > 0) {
    const v = f.validation[0]!;
    let param = paramOf(v.instancePath);
    if (v.keyword === "required" && typeof v.params.missingProperty === "string") param = keyPath(param, v.params.missingProperty);
    const allowed = Array.isArray(v.params.allowedValues) ? ` (${(v.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(", ")})` : "";
    const what = v.keyword === "required" ? "is required" : `${v.message ?? "is invalid"}${allowed}`;
    return new RequestError(400, `${param || "body"}: ${what}`, { param: param || null, code: "TAGMASK_INVALID_REQUEST" });
  }
  if (f && typeof f.code === "string" && f.code.startsWith("FST_")) {
    const status = typeof f.statusCode === "number" && f.statusCode >= 400 && f.statusCode < 500 ? f.statusCode : 400;
    const message = f.code === "FST_ERR_CTP_INVALID_JSON_BODY" || err instanceof SyntaxError
      ? `the body is not valid JSON: ${(err as Error).message}` : (err as Error).message;
    return new RequestError(status, message, { code: f.code });
  }
  if (err instanceof SyntaxError && (f.statusCode === 400)) return new RequestError(400, `the body is not valid JSON: ${err.message}`, { code: "TAGMASK_INVALID_JSON" });
  if (err instanceof ToolError) return new RequestError(400, err.message, { param: err.path || null, code: err.code });
  if (err instanceof FormatError) return new RequestError(400, err.message, { param: err.path || null, code: err.code });
  if (err instanceof SchemaError || err instanceof GrammarError || err instanceof InvalidArgumentError) {
    return new RequestError(400, err.message, { code: err.code });
  }
  if (err instanceof TagmaskError) return new RequestError(500, `${err.name}: ${err.message}`, { code: err.code });
  return new RequestError(500, `internal error: ${err instanceof Error ? err.message : String(err)}`, { code: "TAGMASK_INTERNAL" });
}

/**
 * The grammar of `request` limited to one part, lowered on a lowering worker (a part can take
 * seconds to refuse, and a request can carry a hundred parts: never on the event loop); rejects
 * with what that part alone throws.
 */
async function lowerPart(request: ToolCallingRequest, signal: AbortSignal | undefined): Promise<void> {
  const tag = buildToolCallingFormat(request);
  if (tag) await lowerOffThread(tag, { signal });
}

/** A message without the structural-tag location the lowering adds (meaningless to a client). */
function clientMessage(err: Error): string {
  return err.message.replace(/^format(?:\.[A-Za-z_$][\w$]*|\[\d+\])*: /, "").replace(/ \(in format[^)]*\)$/, "");
}

/**
 * A schema or regex error of a request's grammar, blamed on the field it comes from: each tool
 * and the response_format are built alone until one throws. Resolves to null when none does alone
 * (the error is then reported as it is) or when `signal` aborts first.
 */
export async function locateGrammarError(request: ToolCallingRequest, err: unknown, signal?: AbortSignal): Promise<RequestError | null> {
  if (!(err instanceof SchemaError || err instanceof GrammarError || err instanceof FormatError)) return null;
  const base: ToolCallingRequest = { family: request.family, ...(request.reasoning ? { reasoning: request.reasoning } : {}) };
  /** The error `part` alone throws, or null. */
  const failure = async (part: ToolCallingRequest): Promise<TagmaskError | null> => {
    try {
      await lowerPart(part, signal);
      return null;
    } catch (e) {
      if (!(e instanceof TagmaskError) || e instanceof AbortError) throw e;
      return e;
    }
  };
  try {
    const tools = request.tools ?? [];
    for (let i = 0; i < tools.length; i++) {
      const e = await failure({ ...base, tools: [tools[i]!], tool_choice: "required" });
      if (e === null) continue;
      const param = `${indexPath("tools", i)}.function.parameters`;
      const keyword = e instanceof SchemaError && e.keyword ? ` (keyword ${e.keyword})` : "";
      return new RequestError(400, `${param}: the schema cannot be enforced${keyword}: ${clientMessage(e)}`, { param, code: e.code });
    }
    if (request.response_format) {
      const e = await failure({ ...base, tools: [], tool_choice: "none", response_format: request.response_format });
      if (e !== null) {
        const keyword = e instanceof SchemaError && e.keyword ? ` (keyword ${e.keyword})` : "";
        return new RequestError(400, `response_format: cannot be enforced${keyword}: ${clientMessage(e)}`, { param: "response_format", code: e.code });
      }
    }
  } catch (e) {
    if (e instanceof AbortError) return null;
    throw e;
  }
  return null;
}
