/**
 * Checking a parsed output against the request it was generated for: every call names an
 * allowed tool and its arguments validate against the tool's schema (ajv), the tool_choice and
 * parallel_tool_calls are respected. Shared by the parser and round-trip tests.
 */
import Ajv from "ajv";
import type { FunctionTool, ParsedToolOutput, ToolCallingRequest } from "../../../lib/tools/types.js";

type Validator = ((data: unknown) => boolean) & { errors?: unknown };
const ajv = new (Ajv as unknown as new (o: object) => { compile(schema: unknown): Validator })({ strict: false, allErrors: true });
const validators = new WeakMap<FunctionTool, Validator>();

function validatorOf(tool: FunctionTool): Validator {
  let v = validators.get(tool);
  if (!v) {
    v = ajv.compile(tool.function.parameters ?? {});
    validators.set(tool, v);
  }
  return v;
}

/** What is wrong with `parsed` for `request` (empty when nothing). */
export function problems(parsed: ParsedToolOutput, request: ToolCallingRequest): string[] {
  const found: string[] = [];
  const tools = request.tools ?? [];
  const calls = parsed.toolCalls;
  const choice = request.tool_choice ?? "auto";
  if (choice === "none" && calls.length > 0) found.push("tool_choice none, but calls were made");
  if (choice === "required" && calls.length === 0) found.push("required, but no call");
  if (typeof choice === "object" && choice.type === "function" && calls.some((c) => c.name !== choice.function.name)) {
    found.push(`named ${choice.function.name}, but called ${calls.map((c) => c.name).join(", ")}`);
  }
  if (typeof choice === "object" && choice.type === "allowed_tools") {
    const allowed = new Set(choice.allowed_tools.tools.map((t) => t.function.name));
    for (const c of calls) if (!allowed.has(c.name)) found.push(`${c.name} is not an allowed tool`);
  }
  if (request.parallel_tool_calls === false && calls.length > 1) found.push(`parallel_tool_calls false, but ${calls.length} calls`);
  for (const call of calls) {
    const tool = tools.find((t) => t.function.name === call.name);
    if (!tool) {
      found.push(`unknown tool ${call.name}`);
      continue;
    }
    const validate = validatorOf(tool);
    if (!validate(call.arguments)) found.push(`${call.name} arguments ${JSON.stringify(call.arguments)}: ${JSON.stringify(validate.errors)}`);
  }
  const rf = request.response_format;
  if (rf?.type === "json_schema" && calls.length === 0) {
    try {
      JSON.parse(parsed.content);
    } catch {
      found.push(`the answer is not JSON: ${JSON.stringify(parsed.content)}`);
    }
  }
  if (rf?.type === "choice" && parsed.content !== "" && !rf.choices.includes(parsed.content)) found.push(`the answer ${JSON.stringify(parsed.content)} is not a choice`);
  return found;
}
