/**
 * The families' output parsers on hand-written outputs: every family's docs example, the
 * whitespace and markup variants the models really write, and malformed text with the offset
 * and expectation of the error (the same however the text is cut into chunks). Every family's
 * parser also reads thousands of outputs drawn from its grammars in roundtrip.test.ts.
 */
import { describe, expect, it } from "vitest";
import { OutputParseError } from "../../../lib/errors.js";
import { createToolOutputParser, parseToolOutput, toolCallingFamily } from "../../../lib/tools/families.js";
import type { ToolOutputEvent, ToolOutputParserOptions } from "../../../lib/tools/types.js";
import { FAMILY_VARIANTS, TOOLS } from "./cases.js";


function events(family: string, text: string, options: ToolOutputParserOptions, cuts: number[]): ToolOutputEvent[] {
  const parser = createToolOutputParser(family, options);
  const out: ToolOutputEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    out.push(...parser.push(text.slice(from, cut)));
    from = cut;
  }
  out.push(...parser.end());
  return out;
}

describe("hand-written outputs", () => {
  it.each(FAMILY_VARIANTS.filter((f) => f.variant === undefined || f.variant === "v3"))("$label: the docs example parses", ({ family }) => {
    const f = toolCallingFamily(family);
    const reasoning = f.reasoning && f.example.startsWith(f.reasoning.open) ? "auto" : "final_output_only";
    const parsed = parseToolOutput(family, f.example, { reasoning, tools: TOOLS });
    expect(parsed.toolCalls.map((c) => [c.name, c.arguments])).toEqual([["get_weather", { location: "Paris" }]]);
  });

  const weather = { location: "Paris" };
  it.each([
    ["hermes without newlines in the tag", "hermes", {}, 'On it.<tool_call>{"name":"get_weather","arguments":{"location":"Paris"}}</tool_call>', "On it.", [["get_weather", weather]]],
    ["hermes with a trailing stop and blank lines between calls", "hermes", {}, '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\n\n<tool_call>\n{"name": "add", "arguments": {"y": 1, "x": 2, "items": []}}\n</tool_call><|im_end|>', "", [["get_weather", weather], ["add", { y: 1, x: 2, items: [] }]]],
    ["qwen3 reasoning then content", "qwen3", { reasoning: "auto" }, "<think>\nhm\n</think>\n\nHello", "Hello", []],
    ["qwen3-coder bare values and a number", "qwen3-coder", {}, "<tool_call><function=set_alarm><parameter=hour>7</parameter><parameter=label>null</parameter></function></tool_call>", "", [["set_alarm", { hour: 7, label: null }]]],
    ["qwen3-coder value on its own lines keeps inner newlines", "qwen3-coder", {}, "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\nFrance\n</parameter>\n</function>\n</tool_call>", "", [["get_weather", { location: "Paris\nFrance" }]]],
    ["llama3 two calls", "llama3", {}, '{"name": "get_weather", "parameters": {"location": "Paris"}}; {"name": "add", "parameters": {"y": 1, "x": 2, "items": []}}<|eot_id|>', "", [["get_weather", weather], ["add", { y: 1, x: 2, items: [] }]]],
    ["llama3 content", "llama3", {}, "It is sunny.", "It is sunny.", []],
    ["glm-4.5 newlines between tags", "glm-4.7", {}, "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>", "", [["get_weather", weather]]],
    ["deepseek-v3.2 string flags", "deepseek-v3.2", {}, 'Sure.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="set_alarm">\n<｜DSML｜parameter name="hour" string="false">7</｜DSML｜parameter>\n<｜DSML｜parameter name="label" string="true">null</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>', "Sure.", [["set_alarm", { hour: 7, label: "null" }]]],
    ["harmony recipient before the channel", "harmony", {}, ' to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"location": "Paris"}<|call|>', "", [["get_weather", weather]]],
    ["harmony final answer", "harmony", { reasoning: "auto" }, "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>", "Hi", []],
    ["mistral v3 with the SentencePiece space", "mistral", {}, '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"location": "Paris"}}]</s>', "", [["get_weather", weather]]],
    ["mistral v11 call id", "mistral", { variant: "v11" }, '[TOOL_CALLS]get_weather[CALL_ID]abcDEF123[ARGS]{"location": "Paris"}', "", [["get_weather", weather]]],
    ["cohere nested values", "cohere", {}, '<cofl:tool_calls><cofl:tool_call id="0" name="add"><cofl:value name="y" type="json">1</cofl:value><cofl:value name="x" type="json">2</cofl:value><cofl:value name="items" type="list"><cofl:value type="raw">a</cofl:value></cofl:value></cofl:tool_call></cofl:tool_calls>', "", [["add", { y: 1, x: 2, items: ["a"] }]]],
    ["kimi-k2 index", "kimi-k2", {}, '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:3<|tool_call_argument_begin|>{"location":"Paris"}<|tool_call_end|><|tool_calls_section_end|>', "", [["get_weather", weather]]],
  ] as const)("%s", (_what, family, options, text, content, calls) => {
    const parsed = parseToolOutput(family, text, { ...options, tools: TOOLS } as ToolOutputParserOptions);
    expect(parsed.content).toBe(content);
    expect(parsed.toolCalls.map((c) => [c.name, c.arguments])).toEqual(calls);
  });

  it("raw values of names under patternProperties are read by the pattern's schema (as the grammar wrote them)", () => {
    const tools = [{ type: "function" as const, function: { name: "probe", parameters: {
      type: "object", properties: { name: { type: "string" } }, patternProperties: { "^n_": { type: "integer" }, "^s_": { type: "string" } }, additionalProperties: false,
    } } }];
    const text = "<tool_call>\n<function=probe>\n<parameter=name>\n7\n</parameter>\n<parameter=n_a>\n7\n</parameter>\n<parameter=s_a>\n7\n</parameter>\n</function>\n</tool_call>";
    const parsed = parseToolOutput("qwen3-coder", text, { tools });
    expect(parsed.toolCalls.map((c) => c.arguments)).toEqual([{ name: "7", n_a: 7, s_a: "7" }]);
  });

  it.each([
    ["hermes: arguments not an object", "hermes", '<tool_call>\n{"name": "get_weather", "arguments": 3}\n</tool_call>', 12, /"arguments" member/],
    ["hermes: a closing tag in the content", "hermes", "Hi </tool_call>", 3, /content text/],
    ["qwen3-coder: a value that starts like an array must be JSON", "qwen3-coder", "<tool_call>\n<function=add>\n<parameter=items>\n[1,\n</parameter>\n</function>\n</tool_call>", 49, /a JSON value/],
    ["kimi-k2: index not digits", "kimi-k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:x", 59, /call index/],
    ["deepseek-v3.1: JSON cut off", "deepseek-v3.1", '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": ', 58, /a JSON value/],
    ["harmony: an unknown channel", "harmony", "<|channel|>poetry<|message|>x", 11, /channel/],
    ["mistral v3: no closing bracket", "mistral", '[TOOL_CALLS][{"name": "f", "arguments": {}}', 43, /"\]"/],
    ["deepseek-v3.2: a string flag that is neither", "deepseek-v3.2", '\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="a" string="maybe">1</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>', 83, /"true" or "false"/],
  ] as const)("%s", (_what, family, text, offset, expected) => {
    let error: unknown;
    try {
      parseToolOutput(family, text, { tools: TOOLS });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OutputParseError);
    expect((error as OutputParseError).expected).toMatch(expected);
    expect((error as OutputParseError).offset).toBe(offset);
    // The same error however the text arrives.
    for (let cut = 1; cut < text.length; cut += 7) {
      let streamed: unknown;
      try {
        events(family, text, { tools: TOOLS }, [cut]);
      } catch (err) {
        streamed = err;
      }
      expect((streamed as Error).message).toBe((error as Error).message);
    }
  });
});
