/**
 * Request bodies for running tagmask's grammars on vLLM and SGLang, which take xgrammar's
 * structural-tag JSON in a chat completion request:
 *
 * - vLLM (≥ 0.12): `structured_outputs.structural_tag`, the structural tag as a JSON string
 *   (vLLM's `StructuredOutputsParams.structural_tag`; the older `guided_*` fields are gone).
 * - SGLang: `response_format` set to the structural tag itself, `{"type": "structural_tag",
 *   "format": …}` (SGLang's `StructuralTagResponseFormat`, xgrammar's `StructuralTag`).
 *
 * The tools stay in the body so the server's chat template declares them to the model;
 * `tool_choice` is sent as "auto" because the structural tag already enforces the choice, and
 * `"required"` or a named tool would make either server add a JSON-schema constraint of its own.
 */
import { structuralTagToJSON } from "../format/serialize.js";
import type { StructuralTag } from "../format/types.js";
import { buildToolCallingFormat } from "../tools/families.js";
import type { ToolCallingRequest } from "../tools/types.js";

/** The servers {@link remoteRequestBodies} writes for. */
export const REMOTE_SERVERS = ["vllm", "sglang"] as const;
export type RemoteServer = (typeof REMOTE_SERVERS)[number];

/** What the bodies are made of. */
export interface RemoteRequestOptions extends ToolCallingRequest {
  /** The served model's name. Default "default". */
  model?: string;
  /** The conversation; default one placeholder user message. */
  messages?: unknown[];
}

/** A chat completion request body (plain JSON). */
export type RemoteRequestBody = Record<string, unknown>;

/** The placeholder conversation of a body printed without messages. */
export const PLACEHOLDER_MESSAGES = [{ role: "user", content: "<your message>" }];

/**
 * The chat completion request body for each server, carrying the structural tag of `request`
 * (null when the request constrains nothing: the bodies then have no structural tag).
 */
export function remoteRequestBodies(options: RemoteRequestOptions): { tag: StructuralTag | null; bodies: Record<RemoteServer, RemoteRequestBody> } {
  const { model = "default", messages = PLACEHOLDER_MESSAGES, ...request } = options;
  const tag = buildToolCallingFormat(request);
  const base: RemoteRequestBody = { model, messages };
  if (request.tools && request.tools.length > 0) {
    base.tools = request.tools;
    base.tool_choice = request.tool_choice === "none" ? "none" : "auto";
  }
  if (request.parallel_tool_calls !== undefined) base.parallel_tool_calls = request.parallel_tool_calls;
  if (tag === null) return { tag, bodies: { vllm: { ...base }, sglang: { ...base } } };
  const json = structuralTagToJSON(tag);
  return {
    tag,
    bodies: {
      vllm: { ...base, structured_outputs: { structural_tag: JSON.stringify(json) } },
      sglang: { ...base, response_format: json },
    },
  };
}
