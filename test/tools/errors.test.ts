/**
 * Every way a tool-calling request can be wrong: each case asserts the error class, the path of
 * the bad field and the key words of the message. A failed build leaves nothing behind: the
 * same request fixed afterwards builds normally.
 */
import { describe, expect, it } from "vitest";
import { ToolError } from "../../lib/errors.js";
import { buildToolCallingFormat } from "../../lib/tools/index.js";

const weather = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } } };
const add = { type: "function", function: { name: "add", parameters: { type: "object", properties: { x: { type: "number" } } } } };
const fn = (fields: Record<string, unknown>) => ({ type: "function", function: { name: "f", ...fields } });
const withParams = (parameters: unknown) => fn({ parameters });

interface ErrorCase {
  what: string;
  request: Record<string, unknown>;
  path: string;
  message: RegExp;
}

const cases: ErrorCase[] = [
  { what: "unknown family", request: { family: "llama-9" }, path: "family", message: /unknown model family string "llama-9"; known families: hermes, .*kimi-k3/ },
  { what: "family not a string", request: { family: 3 }, path: "family", message: /unknown model family number 3/ },
  { what: "tools not a list", request: { tools: { a: 1 } }, path: "tools", message: /expected a list of tools, found an object/ },
  { what: "tool not an object", request: { tools: [weather, "add"] }, path: "tools[1]", message: /expected a tool .*found string "add"/ },
  { what: "tool type", request: { tools: [{ type: "code", function: {} }] }, path: "tools[0].type", message: /expected "function", found string "code"/ },
  { what: "unknown tool field", request: { tools: [{ type: "function", function: { name: "f" }, extra: 1 }] }, path: "tools[0].extra", message: /unknown field "extra"/ },
  { what: "function missing", request: { tools: [{ type: "function" }] }, path: "tools[0].function", message: /expected a function definition .*found undefined/ },
  { what: "misspelt parameters", request: { tools: [fn({ paramters: {} })] }, path: "tools[0].function.paramters", message: /unknown field "paramters"; expected only name, description, parameters, strict/ },
  { what: "name missing", request: { tools: [{ type: "function", function: {} }] }, path: "tools[0].function.name", message: /expected the tool name as a string, found undefined/ },
  { what: "empty name", request: { tools: [{ type: "function", function: { name: "" } }] }, path: "tools[0].function.name", message: /expected a non-empty tool name, found an empty string/ },
  { what: "name with a control character", request: { tools: [{ type: "function", function: { name: "get\nweather" } }] }, path: "tools[0].function.name", message: /control character U\+000A at index 3/ },
  { what: "name with a lone surrogate", request: { tools: [{ type: "function", function: { name: "a\ud800" } }] }, path: "tools[0].function.name", message: /lone surrogate U\+D800 at index 1/ },
  { what: "name with a marker", request: { tools: [{ type: "function", function: { name: "x<|sep|>y" } }] }, path: "tools[0].function.name", message: /contains the Kimi K3 marker <\|sep\|>/ },
  { what: "duplicate names", request: { tools: [weather, add, weather] }, path: "tools[2].function.name", message: /duplicate tool name "get_weather": tools\[0\]\.function\.name has the same name/ },
  { what: "description not a string", request: { tools: [fn({ description: 5 })] }, path: "tools[0].function.description", message: /expected a string, found number 5/ },
  { what: "strict not a boolean", request: { tools: [fn({ strict: "yes" })] }, path: "tools[0].function.strict", message: /expected true, false or null/ },
  { what: "parameters a string", request: { tools: [withParams("object")] }, path: "tools[0].function.parameters", message: /expected a JSON Schema \(an object or a boolean\), found string "object"/ },
  { what: "parameters null", request: { tools: [withParams(null)] }, path: "tools[0].function.parameters", message: /expected a JSON Schema \(an object or a boolean\), found null/ },
  { what: "parameters an array", request: { tools: [withParams([])] }, path: "tools[0].function.parameters", message: /found an empty array/ },
  { what: "parameters false", request: { tools: [withParams(false)] }, path: "tools[0].function.parameters", message: /found false, which accepts no arguments at all/ },
  { what: "parameters not an object type", request: { tools: [withParams({ type: "string" })] }, path: "tools[0].function.parameters.type", message: /must be \(or include\) "object", found "string"/ },
  { what: "parameters with a bad type", request: { tools: [withParams({ type: 7 })] }, path: "tools[0].function.parameters.type", message: /expected a JSON type name or a list of them/ },
  { what: "properties not an object", request: { tools: [withParams({ type: "object", properties: [] })] }, path: "tools[0].function.parameters.properties", message: /expected an object mapping parameter names to schemas/ },
  { what: "property schema not a schema", request: { tools: [withParams({ type: "object", properties: { a: "string" } })] }, path: "tools[0].function.parameters.properties.a", message: /expected a JSON Schema/ },
  { what: "required not a list", request: { tools: [withParams({ type: "object", required: "a" })] }, path: "tools[0].function.parameters.required", message: /expected a list of parameter names/ },
  { what: "required entry not a string", request: { tools: [withParams({ type: "object", required: ["a", 1] })] }, path: "tools[0].function.parameters.required[1]", message: /expected a parameter name, found number 1/ },
  { what: "empty parameter name", request: { tools: [withParams({ type: "object", properties: { "": { type: "string" } } })] }, path: 'tools[0].function.parameters.properties[""]', message: /expected a non-empty parameter name/ },
  { what: "parameter name with a marker", request: { tools: [withParams({ type: "object", properties: { "a<|close|>": { type: "string" } } })] }, path: 'tools[0].function.parameters.properties["a<|close|>"]', message: /parameter name "a<\|close\|>": it contains the Kimi K3 marker <\|close\|>/ },
  { what: "bad minLength", request: { tools: [withParams({ type: "object", properties: { a: { type: "string", minLength: -1 } } })] }, path: "tools[0].function.parameters.properties.a.minLength", message: /expected a non-negative integer, found number -1/ },
  { what: "bad pattern next to an enum", request: { tools: [withParams({ type: "object", properties: { a: { type: "string", enum: ["x"], pattern: "(" } } })] }, path: "tools[0].function.parameters.properties.a.pattern", message: /invalid regular expression/ },
  { what: "tool_choice unknown string", request: { tools: [weather], tool_choice: "any" }, path: "tool_choice", message: /expected "none", "auto", "required".*found string "any"/ },
  { what: "tool_choice not an object", request: { tools: [weather], tool_choice: 1 }, path: "tool_choice", message: /found number 1/ },
  { what: "tool_choice unknown type", request: { tools: [weather], tool_choice: { type: "tool" } }, path: "tool_choice.type", message: /expected "function" or "allowed_tools", found string "tool"/ },
  { what: "named tool not in the list", request: { tools: [weather, add], tool_choice: { type: "function", function: { name: "get_time" } } }, path: "tool_choice.function.name", message: /no tool named "get_time": the tools are "get_weather", "add"/ },
  { what: "named tool with no tools", request: { tool_choice: { type: "function", function: { name: "f" } } }, path: "tool_choice.function.name", message: /no tool named "f": the tools list is empty/ },
  { what: "named tool without a name", request: { tools: [weather], tool_choice: { type: "function", function: {} } }, path: "tool_choice.function.name", message: /expected a tool name, found undefined/ },
  { what: "required with no tools", request: { tools: [], tool_choice: "required" }, path: "tool_choice", message: /"required" needs at least one tool, but the tools list is empty/ },
  { what: "allowed tool not in the list", request: { tools: [weather], tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "add" } }] } } }, path: "tool_choice.allowed_tools.tools[0].function.name", message: /no tool named "add"/ },
  { what: "allowed_tools bad mode", request: { tools: [weather], tool_choice: { type: "allowed_tools", allowed_tools: { mode: "always", tools: [] } } }, path: "tool_choice.allowed_tools.mode", message: /expected "auto" or "required", found string "always"/ },
  { what: "allowed_tools list missing", request: { tools: [weather], tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto" } } }, path: "tool_choice.allowed_tools.tools", message: /expected a list of tool references/ },
  { what: "allowed_tools required and empty", request: { tools: [weather], tool_choice: { type: "allowed_tools", allowed_tools: { mode: "required", tools: [] } } }, path: "tool_choice.allowed_tools.tools", message: /mode "required" needs at least one allowed tool/ },
  { what: "parallel_tool_calls not a boolean", request: { tools: [weather], parallel_tool_calls: "no" }, path: "parallel_tool_calls", message: /expected true or false, found string "no"/ },
  { what: "unknown reasoning mode", request: { tools: [weather], reasoning: "deep" }, path: "reasoning", message: /expected "final_output_only", "think", "auto", found string "deep"/ },
  { what: "response_format not an object", request: { response_format: "json" }, path: "response_format", message: /expected an object \{"type": \.\.\.\}, found string "json"/ },
  { what: "response_format unknown type", request: { response_format: { type: "xml" } }, path: "response_format.type", message: /expected "text", "json_object", "json_schema", "regex" or "choice", found string "xml"/ },
  { what: "response_format unknown field", request: { response_format: { type: "json_object", schema: {} } }, path: "response_format.schema", message: /unknown field "schema"/ },
  { what: "json_schema without a name", request: { response_format: { type: "json_schema", json_schema: { schema: {} } } }, path: "response_format.json_schema.name", message: /expected a non-empty name, found undefined/ },
  { what: "json_schema schema not a schema", request: { response_format: { type: "json_schema", json_schema: { name: "a", schema: [] } } }, path: "response_format.json_schema.schema", message: /expected a JSON Schema/ },
  { what: "json_schema strict not a boolean", request: { response_format: { type: "json_schema", json_schema: { name: "a", strict: 1 } } }, path: "response_format.json_schema.strict", message: /expected true, false or null/ },
  { what: "regex without a pattern", request: { response_format: { type: "regex" } }, path: "response_format.pattern", message: /expected a non-empty regular expression, found undefined/ },
  { what: "choice empty", request: { response_format: { type: "choice", choices: [] } }, path: "response_format.choices", message: /expected a non-empty list of strings, found an empty array/ },
  { what: "choice not a string", request: { response_format: { type: "choice", choices: ["a", 2] } }, path: "response_format.choices[1]", message: /expected a string, found number 2/ },
  { what: "choice duplicate", request: { response_format: { type: "choice", choices: ["a", "a"] } }, path: "response_format.choices[1]", message: /duplicate choice "a"/ },
];

describe("tool-calling request errors", () => {
  it.each(cases.map((c) => [c.what, c] as const))("%s", (_what, c) => {
    const request = { family: "kimi-k3", ...c.request };
    let error: unknown;
    try {
      buildToolCallingFormat(request as never);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ToolError);
    const e = error as ToolError;
    expect(e.code).toBe("TAGMASK_INVALID_TOOLS");
    expect(e.path).toBe(c.path);
    expect(e.message.startsWith(`${c.path}: `)).toBe(true);
    expect(e.message).toMatch(c.message);
    expect(e.message).not.toContain("\n");
  });

  it("a request that is not an object", () => {
    expect(() => buildToolCallingFormat(null as never)).toThrow(ToolError);
  });

  it("schemas nested too deep, or in a cycle: a ToolError with the path cut short, not a stack overflow", () => {
    let deep: unknown = { type: "string" };
    for (let i = 0; i < 3000; i++) deep = { type: "object", properties: { a: deep } };
    const cyclic: { type: string; properties: Record<string, unknown> } = { type: "object", properties: {} };
    cyclic.properties["self"] = cyclic;
    for (const parameters of [{ type: "object", properties: { x: deep } }, cyclic]) {
      let error: unknown;
      try {
        buildToolCallingFormat({ family: "kimi-k3", tools: [withParams(parameters)] } as never);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ToolError);
      const e = error as ToolError;
      expect(e.path.startsWith("tools[0].function.parameters.properties.")).toBe(true);
      expect(e.path.length).toBeGreaterThan(4000);
      expect(e.message).toMatch(/…\S* \(\d+ characters\): expected a schema nested at most 1000 levels deep .*is there a cycle/);
      expect(e.message.length).toBeLessThan(500);
    }
  });

  it("a failed build leaves nothing behind", () => {
    const tools = [weather, add];
    expect(() => buildToolCallingFormat({ family: "kimi-k3", tools: tools as never, tool_choice: "bad" as never })).toThrow(ToolError);
    const good = buildToolCallingFormat({ family: "kimi-k3", tools: tools as never, tool_choice: "required" });
    expect(good).not.toBeNull();
    expect(tools).toEqual([weather, add]);
  });
});

describe("requests with nothing to constrain", () => {
  it.each([
    ["tool_choice none", { tools: [weather], tool_choice: "none" }],
    ["auto with no tools", { tools: [] }],
    ["auto with tools absent", {}],
    ["allowed_tools auto with an empty list", { tools: [weather], tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [] } } }],
    ["none with a text response format", { tools: [weather], tool_choice: "none", response_format: { type: "text" } }],
    ["none in think mode", { tools: [weather], tool_choice: "none", reasoning: "think" }],
  ])("%s → null", (_what, fields) => {
    expect(buildToolCallingFormat({ family: "kimi-k3", ...fields } as never)).toBeNull();
  });
});
