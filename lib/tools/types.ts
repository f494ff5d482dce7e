/**
 * OpenAI-style request types for tool calling (tools, tool_choice, parallel_tool_calls,
 * response_format), the reasoning modes, and the parsed output of a model family's parser.
 *
 * The request side mirrors the OpenAI Chat Completions wire format so a server can pass its
 * request fields through unchanged; `normalizeToolRequest` checks them and reports every problem
 * as a `ToolError` naming the field.
 */
import type { JsonSchema } from "../format/types.js";

/** A function the model may call. */
export interface FunctionDefinition {
  /** The function's name: non-empty, no control characters. */
  name: string;
  /** Shown to the model in the prompt; not used by the grammar. */
  description?: string;
  /**
   * A JSON Schema for the arguments object (an object schema, or `true`). Absent: the arguments
   * are unconstrained (any keys, any JSON values).
   */
  parameters?: JsonSchema;
  /** `false`: the arguments are unconstrained even when `parameters` is given. Default: enforced. */
  strict?: boolean | null;
}

/** One entry of the `tools` list. */
export interface FunctionTool {
  type: "function";
  function: FunctionDefinition;
}

/** A reference to a tool by name, as `tool_choice` and `allowed_tools` write it. */
export interface ToolReference {
  type: "function";
  function: { name: string };
}

/** `tool_choice` that forces one named tool. */
export interface NamedToolChoice {
  type: "function";
  function: { name: string };
}

/** `tool_choice` that restricts the model to a subset of the tools. */
export interface AllowedToolsChoice {
  type: "allowed_tools";
  allowed_tools: {
    /** `auto`: the model may answer instead; `required`: it must call at least one tool. */
    mode: "auto" | "required";
    tools: ToolReference[];
  };
}

/**
 * `"none"`: no tool calls; `"auto"` (the default): the model decides; `"required"`: at least one
 * call; a named tool: calls of that tool only, at least one; `allowed_tools`: a subset.
 */
export type ToolChoice = "none" | "auto" | "required" | NamedToolChoice | AllowedToolsChoice;

/**
 * The answer constraint: what the free text of the response channel must be.
 *
 * - `{type: "text"}`: free text (no constraint; the same as leaving it out).
 * - `{type: "json_object"}`: a JSON object.
 * - `{type: "json_schema", json_schema: {name, schema?, strict?}}`: a JSON value following
 *   `schema` (absent: any JSON value); `strict: false` leaves the value unconstrained (any JSON
 *   value), like a tool with `strict: false`.
 * - `{type: "regex", pattern}`: text fully matching the ECMAScript regular expression (a leading
 *   `^` and trailing `$` are allowed and change nothing).
 * - `{type: "choice", choices}`: exactly one of the listed strings.
 */
export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; json_schema: { name: string; description?: string; schema?: JsonSchema; strict?: boolean | null } }
  | { type: "regex"; pattern: string }
  | { type: "choice"; choices: string[] };

/**
 * Where the grammar starts relative to the model's reasoning.
 *
 * - `final_output_only`: the grammar covers only the output after any reasoning; it starts in
 *   the response channel, whose opening marker may already be in the prompt.
 * - `think`: the prompt opened the think channel; the grammar starts inside it.
 * - `auto`: no channel is open; the model may think first (a whole think channel, optional).
 */
export type ReasoningMode = "final_output_only" | "think" | "auto";

/** The reasoning modes, in documentation order. */
export const REASONING_MODES: readonly ReasoningMode[] = ["final_output_only", "think", "auto"];

/** The request fields that shape a tool-calling grammar. */
export interface ToolCallingRequest {
  /** The model family whose chat format the grammar follows, e.g. `"kimi-k3"`. */
  family: string;
  tools?: FunctionTool[];
  /** Default `"auto"`. */
  tool_choice?: ToolChoice;
  /** Default true; false allows at most one call. */
  parallel_tool_calls?: boolean;
  /** Default `"final_output_only"`. */
  reasoning?: ReasoningMode;
  /** The answer constraint; absent or `{type: "text"}`: free text. */
  response_format?: ResponseFormat;
  /** The family's format variant where it has several (mistral: "v3", "v11", "v13"); default the family's default. */
  variant?: string;
}

/** One tool call recovered from model output. */
export interface ParsedToolCall {
  /** The call's index as the model wrote it (Kimi K3 counts from 1). */
  index: number;
  name: string;
  /** The arguments object: string values as raw text, other values parsed from JSON. */
  arguments: Record<string, unknown>;
}

/** Model output split into reasoning, the answer text and tool calls. */
export interface ParsedToolOutput {
  /** The think channel's text; absent when the output had no think channel. */
  reasoning?: string;
  /** The response channel's text ("" when there was none). */
  content: string;
  toolCalls: ParsedToolCall[];
}

/**
 * What a streaming output parser reports. Deltas carry one code point each, so the events are
 * the same however the text is split into chunks.
 *
 * - `reasoning` / `content`: text of the think / response channel.
 * - `tool_call_start`: a call's opening tag is complete.
 * - `arguments`: a piece of the call's arguments as JSON text; the pieces of one call
 *   concatenate to a JSON object text equal to the finished call's `arguments`.
 * - `tool_call_end`: the call is closed; `arguments` is the parsed object.
 */
export type ToolOutputEvent =
  | { type: "reasoning"; text: string }
  | { type: "content"; text: string }
  | { type: "tool_call_start"; index: number; name: string }
  | { type: "arguments"; index: number; text: string }
  | { type: "tool_call_end"; index: number; name: string; arguments: Record<string, unknown> };

/** An incremental parser of one model output. */
export interface ToolOutputParser {
  /** Feeds the next piece of text; returns the events it completes. Throws `OutputParseError`. */
  push(chunk: string): ToolOutputEvent[];
  /** Marks the end of the text; returns the last events. Throws `OutputParseError` if incomplete. */
  end(): ToolOutputEvent[];
  /** The whole parsed output; only after `end()` succeeded. */
  result(): ParsedToolOutput;
}

/** Options of a family's output parser. */
export interface ToolOutputParserOptions {
  /** The reasoning mode the output was generated in (where the text starts). Default `"final_output_only"`. */
  reasoning?: ReasoningMode;
  /**
   * The request's tools. Families whose argument markup does not say a value's type (qwen_xml,
   * minimax_xml, glm_xml, minimax_m3_xml) decode raw values by the argument's schema: `"5"` is
   * the number 5 only where the schema allows numbers. Without tools every kind is allowed.
   */
  tools?: FunctionTool[];
  /** The family's format variant where it has several (mistral: "v3", "v11", "v13"); default the family's default. */
  variant?: string;
  /**
   * The request's answer constraint. A JSON answer is read as JSON, so marker text inside its
   * strings is not taken for a tool call.
   */
  response_format?: ResponseFormat | null;
}
