/**
 * The Kimi K3 output parser on hand-written outputs (parser-cases.ts): every golden case's valid
 * outputs parse to the expected calls, every malformed output fails at the right offset, and the
 * streaming parser reports the same events (or the same error) for every way of cutting the text
 * into two chunks, and for one-character chunks.
 */
import { describe, expect, it } from "vitest";
import { InvalidArgumentError, OutputParseError, ToolError } from "../../lib/errors.js";
import { createToolOutputParser, parseToolOutput } from "../../lib/tools/index.js";
import type { ParsedToolOutput, ReasoningMode, ToolOutputEvent } from "../../lib/tools/types.js";
import { GOLDEN_CASES } from "./golden-cases.js";
import { ERROR_MARK, MALFORMED, VALID } from "./parser-cases.js";

const reasoningOf = (name: string): ReasoningMode => {
  const c = GOLDEN_CASES.find((g) => g.name === name);
  if (!c) throw new Error(`no golden case ${name}`);
  return c.reasoning;
};

/** All events of the text cut at the given offsets (sorted), then end(). */
function streamEvents(text: string, reasoning: ReasoningMode, cuts: number[]): ToolOutputEvent[] {
  const parser = createToolOutputParser("kimi-k3", { reasoning });
  const events: ToolOutputEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    events.push(...parser.push(text.slice(from, cut)));
    from = cut;
  }
  events.push(...parser.end());
  return events;
}

/** The error of the text cut at the given offsets, or undefined. */
function streamError(text: string, reasoning: ReasoningMode, cuts: number[]): unknown {
  try {
    streamEvents(text, reasoning, cuts);
  } catch (err) {
    return err;
  }
  return undefined;
}

/** What the events say, put together: checks they describe the parsed output. */
function assemble(events: ToolOutputEvent[]): ParsedToolOutput & { argumentTexts: string[] } {
  let reasoning: string | undefined;
  let content = "";
  const toolCalls: ParsedToolOutput["toolCalls"] = [];
  const argumentTexts: string[] = [];
  let open: { index: number; name: string; text: string } | undefined;
  for (const e of events) {
    switch (e.type) {
      case "reasoning":
        reasoning = (reasoning ?? "") + e.text;
        break;
      case "content":
        content += e.text;
        break;
      case "tool_call_start":
        expect(open).toBeUndefined();
        open = { index: e.index, name: e.name, text: "" };
        break;
      case "arguments":
        expect(open?.index).toBe(e.index);
        open!.text += e.text;
        break;
      case "tool_call_end":
        expect(open).toMatchObject({ index: e.index, name: e.name });
        expect(JSON.parse(open!.text)).toEqual(e.arguments);
        argumentTexts.push(open!.text);
        toolCalls.push({ index: e.index, name: e.name, arguments: e.arguments });
        open = undefined;
        break;
    }
  }
  expect(open).toBeUndefined();
  return { ...(reasoning === undefined ? {} : { reasoning }), content, toolCalls, argumentTexts };
}

const validCases = Object.entries(VALID).flatMap(([name, outputs]) => outputs.map((o, i) => [`${name} #${i + 1}`, name, o] as const));

describe("every golden case has hand-written outputs", () => {
  it.each(GOLDEN_CASES.map((c) => c.name))("%s", (name) => {
    expect(VALID[name]?.length ?? 0).toBeGreaterThan(0);
  });
});

describe("valid outputs", () => {
  it.each(validCases)("%s parses", (_label, name, output) => {
    const parsed = parseToolOutput("kimi-k3", output.text, { reasoning: reasoningOf(name) });
    expect(parsed).toEqual(output.parsed);
    // reasoning is present exactly when the output had a think channel.
    expect("reasoning" in parsed).toBe("reasoning" in output.parsed);
  });

  it.each(validCases)("%s streams the same events for every chunking", (_label, name, output) => {
    const reasoning = reasoningOf(name);
    const whole = streamEvents(output.text, reasoning, []);
    const { argumentTexts, ...assembled } = assemble(whole);
    // Events carry text, so an empty think channel shows only in result().
    const { reasoning: thought, ...rest } = output.parsed;
    expect(assembled).toEqual(thought ? output.parsed : rest);
    expect(argumentTexts).toHaveLength(output.parsed.toolCalls.length);
    for (let cut = 0; cut <= output.text.length; cut++) {
      expect(streamEvents(output.text, reasoning, [cut])).toEqual(whole);
    }
    const everyChar = Array.from({ length: output.text.length }, (_, i) => i + 1);
    expect(streamEvents(output.text, reasoning, everyChar)).toEqual(whole);
  });
});

describe("malformed outputs", () => {
  it.each(MALFORMED.map((m) => [m.what, m] as const))("%s", (_what, m) => {
    const offset = m.text.indexOf(ERROR_MARK);
    const text = m.text.replace(ERROR_MARK, "");
    const reasoning = reasoningOf(m.case);
    let error: unknown;
    try {
      parseToolOutput("kimi-k3", text, { reasoning });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OutputParseError);
    const e = error as OutputParseError;
    expect({ offset: e.offset, expected: e.expected }).toEqual({ offset, expected: expect.stringMatching(m.expected) });
    expect(e.message).toMatch(new RegExp(`^at offset ${offset}: expected `));
    // The same error however the text arrives.
    for (let cut = 0; cut <= text.length; cut++) {
      const streamed = streamError(text, reasoning, [cut]);
      expect(streamed).toBeInstanceOf(OutputParseError);
      expect((streamed as Error).message).toBe(e.message);
    }
  });
});

describe("parser details", () => {
  it("decodes attribute escapes and keeps __proto__ an ordinary key", () => {
    const text = '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="a&quot;b&amp;c" index="7"<|sep|>'
      + '<|open|>argument key="__proto__" type="object"<|sep|>{"polluted": true}<|close|>argument<|sep|>'
      + '<|close|>call<|sep|><|close|>tools<|sep|>';
    const parsed = parseToolOutput("kimi-k3", text);
    const call = parsed.toolCalls[0]!;
    expect(call.name).toBe('a"b&c');
    expect(call.index).toBe(7);
    expect(Object.keys(call.arguments)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("JSON values may have whitespace around them", () => {
    const text = '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
      + '<|open|>argument key="a" type="number"<|sep|> 7\n<|close|>argument<|sep|><|close|>call<|sep|>'
      + '<|open|>call tool="g" index="2"<|sep|><|open|>json type="object"<|sep|>\t{ }\n<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>';
    expect(parseToolOutput("kimi-k3", text).toolCalls).toEqual([
      { index: 1, name: "f", arguments: { a: 7 } },
      { index: 2, name: "g", arguments: {} },
    ]);
  });

  it("a repeated key keeps the last value, like JSON", () => {
    const text = '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
      + '<|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|open|>argument key="a" type="string"<|sep|>x<|close|>argument<|sep|>'
      + '<|close|>call<|sep|><|close|>tools<|sep|>';
    expect(parseToolOutput("kimi-k3", text).toolCalls[0]!.arguments).toEqual({ a: "x" });
  });

  it("string deltas are JSON-escaped, one code point each (surrogate pairs kept together)", () => {
    const text = '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
      + '<|open|>argument key="s" type="string"<|sep|>"\n😀<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>';
    const deltas = streamEvents(text, "final_output_only", []).filter((e) => e.type === "arguments").map((e) => (e as { text: string }).text);
    expect(deltas).toEqual(['{"s":"', '\\"', "\\n", "😀", '"', "}"]);
    // A chunk boundary inside the surrogate pair changes nothing.
    const inPair = text.indexOf("😀") + 1;
    expect(streamEvents(text, "final_output_only", [inPair])).toEqual(streamEvents(text, "final_output_only", []));
  });

  it("content deltas carry one code point each", () => {
    const events = streamEvents("a😀b<|close|>response<|sep|>", "final_output_only", []);
    expect(events).toEqual([{ type: "content", text: "a" }, { type: "content", text: "😀" }, { type: "content", text: "b" }]);
  });

  it("a text that is a prefix of the optional response marker waits for more", () => {
    const parser = createToolOutputParser("kimi-k3");
    expect(parser.push("<|open|>resp")).toEqual([]);
    expect(parser.push("onse<|sep|>ok<|close|>response<|sep|>")).toEqual([{ type: "content", text: "o" }, { type: "content", text: "k" }]);
    parser.end();
    expect(parser.result()).toEqual({ content: "ok", toolCalls: [] });
  });

  it("after an error every call reports the same error; result() needs end()", () => {
    const parser = createToolOutputParser("kimi-k3");
    expect(() => parser.result()).toThrow(InvalidArgumentError);
    expect(() => parser.push("a<|open|>")).toThrow(OutputParseError);
    expect(() => parser.push("more")).toThrow(/at offset 1: expected/);
    expect(() => parser.end()).toThrow(/at offset 1: expected/);
    expect(() => parser.result()).toThrow(/at offset 1: expected/);
  });

  it("push after end and non-string chunks are refused", () => {
    const parser = createToolOutputParser("kimi-k3", { reasoning: "think" });
    parser.push("x<|close|>think<|sep|><|open|>response<|sep|><|close|>response<|sep|>");
    parser.end();
    expect(parser.result()).toEqual({ reasoning: "x", content: "", toolCalls: [] });
    expect(() => parser.push("y")).toThrow(InvalidArgumentError);
    expect(() => createToolOutputParser("kimi-k3").push(5 as never)).toThrow(InvalidArgumentError);
    expect(() => parseToolOutput("kimi-k3", undefined as never)).toThrow(InvalidArgumentError);
  });

  it("an unknown family is a ToolError", () => {
    expect(() => parseToolOutput("gpt-9", "x")).toThrow(ToolError);
    expect(() => createToolOutputParser("gpt-9")).toThrow(/unknown model family string "gpt-9"/);
  });
});
