/**
 * Checking and normalizing the tool-calling fields of a request: the tools list, tool_choice,
 * parallel_tool_calls, the reasoning mode and the answer constraint. Family builders work only
 * on the normalized form, so every family reports bad input the same way: a `ToolError` whose
 * `path` names the field (`tools[1].function.name`) and whose message says what was expected.
 */
import { ToolError } from "../errors.js";
import { MAX_NESTING, describeValue, indexPath, isPlainObject, keyPath, loneSurrogateIndex, loneSurrogateMessage, showString, tooDeepPath } from "../format/json-path.js";
import type { Format } from "../format/types.js";
import { answerFormat } from "./answer.js";
import { REASONING_MODES, type ReasoningMode } from "./types.js";

/** A tool after checking. */
export interface NormalizedTool {
  name: string;
  /** Where the tool sits in the request, for error messages: `tools[2]`. */
  path: string;
  /** The arguments schema to enforce, or null for unconstrained arguments (`strict: false`, no `parameters`, `true`). */
  parameters: { [key: string]: unknown } | null;
}

/** The request reduced to what a family builder needs. */
export interface NormalizedToolRequest {
  /**
   * `none`: no tool calls may be made (the grammar holds at most the answer constraint);
   * `auto`: the model may call tools or answer; `required`: at least one call.
   */
  mode: "none" | "auto" | "required";
  /** The tools that may be called, in the order of the `tools` list; empty when mode is `none`. */
  tools: NormalizedTool[];
  /** False: at most one call. */
  parallel: boolean;
  reasoning: ReasoningMode;
  /** The answer constraint's format, or null for free text. */
  answer: Format | null;
}

const TOOL_FIELDS = ["type", "function"];
const FUNCTION_FIELDS = ["name", "description", "parameters", "strict"];

function fail(path: string, message: string): never {
  throw new ToolError(path, message);
}

function rejectUnknown(obj: Record<string, unknown>, path: string, allowed: readonly string[]): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) fail(keyPath(path, key), `unknown field ${showString(key)}; expected only ${allowed.join(", ")}`);
  }
}

function readObject(value: unknown, path: string, expected: string): Record<string, unknown> {
  if (!isPlainObject(value)) fail(path, `expected ${expected}, found ${describeValue(value)}`);
  return value;
}

/**
 * Checks a tool or parameter name: a non-empty, well-formed string without control characters
 * (a control character in a name is always a mistake, and it cannot be shown in messages).
 */
export function checkName(value: unknown, path: string, what: string): string {
  if (typeof value !== "string") fail(path, `expected the ${what} as a string, found ${describeValue(value)}`);
  if (value === "") fail(path, `expected a non-empty ${what}, found an empty string`);
  const lone = loneSurrogateIndex(value);
  if (lone >= 0) fail(path, `invalid ${what}: ${loneSurrogateMessage(value, lone)}`);
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(value);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    fail(path, `invalid ${what} ${showString(value)}: it contains the control character U+${code} at index ${control.index}`);
  }
  return value;
}

/**
 * Checks a `parameters` schema: an object schema (its `type`, when given, must allow "object")
 * or a boolean. Returns null for unconstrained arguments.
 */
function readParameters(value: unknown, path: string): { [key: string]: unknown } | null {
  if (value === true) return null;
  if (value === false) {
    fail(path, "expected a JSON Schema for the arguments object, found false, which accepts no arguments at all: the tool could never be called; remove the tool or give a schema");
  }
  if (!isPlainObject(value)) fail(path, `expected a JSON Schema (an object or a boolean), found ${describeValue(value)}`);
  // The builders walk schemas recursively: refuse what would overflow the stack, and cycles.
  const deep = tooDeepPath(value, path);
  if (deep !== null) fail(deep, `expected a schema nested at most ${MAX_NESTING} levels deep (objects and arrays; is there a cycle?); flatten it, or use $ref and $defs for recursive shapes`);
  const type = value["type"];
  if (type !== undefined) {
    const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : null;
    if (types === null || !types.every((t) => typeof t === "string")) {
      fail(keyPath(path, "type"), `expected a JSON type name or a list of them, found ${describeValue(type)}`);
    }
    if (!types.includes("object")) {
      fail(keyPath(path, "type"), `the arguments are a JSON object, so the type must be (or include) "object", found ${JSON.stringify(type)}`);
    }
  }
  const properties = value["properties"];
  if (properties !== undefined) {
    const props = readObject(properties, keyPath(path, "properties"), "an object mapping parameter names to schemas");
    for (const [key, schema] of Object.entries(props)) {
      if (typeof schema !== "boolean" && !isPlainObject(schema)) {
        fail(keyPath(keyPath(path, "properties"), key), `expected a JSON Schema (an object or a boolean), found ${describeValue(schema)}`);
      }
    }
  }
  const required = value["required"];
  if (required !== undefined) {
    if (!Array.isArray(required)) fail(keyPath(path, "required"), `expected a list of parameter names, found ${describeValue(required)}`);
    required.forEach((name, i) => {
      if (typeof name !== "string") fail(indexPath(keyPath(path, "required"), i), `expected a parameter name, found ${describeValue(name)}`);
    });
  }
  return value;
}

/** Checks the `tools` list; names must be unique. */
export function normalizeTools(value: unknown): NormalizedTool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail("tools", `expected a list of tools, found ${describeValue(value)}`);
  const seen = new Map<string, string>();
  return value.map((entry, i): NormalizedTool => {
    const path = indexPath("tools", i);
    const tool = readObject(entry, path, 'a tool {"type": "function", "function": {...}}');
    rejectUnknown(tool, path, TOOL_FIELDS);
    if (tool["type"] !== "function") {
      fail(keyPath(path, "type"), `expected "function", found ${describeValue(tool["type"])}`);
    }
    const fnPath = keyPath(path, "function");
    const fn = readObject(tool["function"], fnPath, "a function definition {name, description?, parameters?, strict?}");
    rejectUnknown(fn, fnPath, FUNCTION_FIELDS);
    const namePath = keyPath(fnPath, "name");
    const name = checkName(fn["name"], namePath, "tool name");
    const earlier = seen.get(name);
    if (earlier !== undefined) fail(namePath, `duplicate tool name ${showString(name)}: ${earlier} has the same name; tool names must be unique`);
    seen.set(name, namePath);
    const description = fn["description"];
    if (description !== undefined && typeof description !== "string") {
      fail(keyPath(fnPath, "description"), `expected a string, found ${describeValue(description)}`);
    }
    const strict = fn["strict"];
    if (strict !== undefined && strict !== null && typeof strict !== "boolean") {
      fail(keyPath(fnPath, "strict"), `expected true, false or null, found ${describeValue(strict)}`);
    }
    const hasParameters = Object.hasOwn(fn, "parameters") && fn["parameters"] !== undefined;
    // Checked even when strict is false, so a broken schema is reported rather than hidden.
    const parameters = hasParameters ? readParameters(fn["parameters"], keyPath(fnPath, "parameters")) : null;
    return { name, path, parameters: strict === false ? null : parameters };
  });
}

function toolNames(tools: readonly NormalizedTool[]): string {
  return tools.length === 0 ? "the tools list is empty" : `the tools are ${tools.map((t) => showString(t.name)).join(", ")}`;
}

function findTool(tools: readonly NormalizedTool[], ref: unknown, path: string): NormalizedTool {
  const obj = readObject(ref, path, '{"type": "function", "function": {"name": ...}}');
  rejectUnknown(obj, path, ["type", "function"]);
  if (obj["type"] !== "function") fail(keyPath(path, "type"), `expected "function", found ${describeValue(obj["type"])}`);
  const fnPath = keyPath(path, "function");
  const fn = readObject(obj["function"], fnPath, '{"name": ...}');
  rejectUnknown(fn, fnPath, ["name"]);
  const namePath = keyPath(fnPath, "name");
  if (typeof fn["name"] !== "string") fail(namePath, `expected a tool name, found ${describeValue(fn["name"])}`);
  const tool = tools.find((t) => t.name === fn["name"]);
  if (!tool) fail(namePath, `no tool named ${showString(fn["name"])}: ${toolNames(tools)}`);
  return tool;
}

/** Checks `tool_choice` against the tools; returns the mode and the callable tools. */
export function normalizeToolChoice(value: unknown, tools: NormalizedTool[]): { mode: "none" | "auto" | "required"; tools: NormalizedTool[] } {
  const choice = value ?? "auto";
  if (typeof choice === "string") {
    switch (choice) {
      case "none":
        return { mode: "none", tools: [] };
      case "auto":
        return tools.length === 0 ? { mode: "none", tools: [] } : { mode: "auto", tools };
      case "required":
        if (tools.length === 0) fail("tool_choice", `"required" needs at least one tool, but the tools list is empty`);
        return { mode: "required", tools };
      default:
        fail("tool_choice", `expected "none", "auto", "required", {"type": "function", ...} or {"type": "allowed_tools", ...}, found ${describeValue(choice)}`);
    }
  }
  const obj = readObject(choice, "tool_choice", `"none", "auto", "required" or a tool choice object`);
  if (obj["type"] === "function") {
    return { mode: "required", tools: [findTool(tools, obj, "tool_choice")] };
  }
  if (obj["type"] === "allowed_tools") {
    rejectUnknown(obj, "tool_choice", ["type", "allowed_tools"]);
    const path = "tool_choice.allowed_tools";
    const allowed = readObject(obj["allowed_tools"], path, '{"mode": "auto" | "required", "tools": [...]}');
    rejectUnknown(allowed, path, ["mode", "tools"]);
    const mode = allowed["mode"];
    if (mode !== "auto" && mode !== "required") fail(keyPath(path, "mode"), `expected "auto" or "required", found ${describeValue(mode)}`);
    const listPath = keyPath(path, "tools");
    const list = allowed["tools"];
    if (!Array.isArray(list)) fail(listPath, `expected a list of tool references, found ${describeValue(list)}`);
    const picked = new Set<NormalizedTool>();
    list.forEach((ref, i) => picked.add(findTool(tools, ref, indexPath(listPath, i))));
    // The order of the tools list, not of the allowed list: the grammar does not depend on how
    // a client happens to order its allow-list.
    const subset = tools.filter((t) => picked.has(t));
    if (subset.length === 0) {
      if (mode === "required") fail(listPath, `mode "required" needs at least one allowed tool, but the list is empty`);
      return { mode: "none", tools: [] };
    }
    return { mode, tools: subset };
  }
  fail(keyPath("tool_choice", "type"), `expected "function" or "allowed_tools", found ${describeValue(obj["type"])}`);
}

/** Checks `parallel_tool_calls` (default true). */
export function normalizeParallel(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value !== "boolean") fail("parallel_tool_calls", `expected true or false, found ${describeValue(value)}`);
  return value;
}

/** Checks the reasoning mode (default `final_output_only`). */
export function normalizeReasoning(value: unknown): ReasoningMode {
  if (value === undefined) return "final_output_only";
  if (typeof value !== "string" || !(REASONING_MODES as readonly string[]).includes(value)) {
    fail("reasoning", `expected ${REASONING_MODES.map((m) => `"${m}"`).join(", ")}, found ${describeValue(value)}`);
  }
  return value as ReasoningMode;
}

/** Checks every tool-calling field of a request (all but `family`). */
export function normalizeToolRequest(request: {
  tools?: unknown;
  tool_choice?: unknown;
  parallel_tool_calls?: unknown;
  reasoning?: unknown;
  response_format?: unknown;
  variant?: unknown;
}): NormalizedToolRequest {
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    throw new ToolError("", `expected a request object {tools, tool_choice, …}, found ${request === null ? "null" : Array.isArray(request) ? "an array" : typeof request}`);
  }
  const all = normalizeTools(request.tools);
  const { mode, tools } = normalizeToolChoice(request.tool_choice, all);
  return {
    mode,
    tools,
    parallel: normalizeParallel(request.parallel_tool_calls),
    reasoning: normalizeReasoning(request.reasoning),
    answer: answerFormat(request.response_format),
  };
}
