/**
 * parseToolOutputStream: the streaming parser as an async iterator. Over every valid output of
 * parser-cases.ts, chunked as strings and as UTF-8 bytes cut inside characters, it yields the
 * same events as the push parser on the whole text and returns the parsed output; malformed
 * output, bad chunks and an unknown family are typed errors.
 */
import { describe, expect, it } from "vitest";
import { InvalidArgumentError, OutputParseError, ToolError } from "../../lib/errors.js";
import { createToolOutputParser, parseToolOutput, parseToolOutputStream } from "../../lib/tools/index.js";
import type { ReasoningMode, ToolOutputEvent } from "../../lib/tools/types.js";
import { GOLDEN_CASES } from "./golden-cases.js";
import { ERROR_MARK, MALFORMED, VALID } from "./parser-cases.js";

const reasoningOf = (name: string): ReasoningMode => GOLDEN_CASES.find((g) => g.name === name)!.reasoning;

function wholeEvents(text: string, reasoning: ReasoningMode): ToolOutputEvent[] {
  const parser = createToolOutputParser("kimi-k3", { reasoning });
  return [...parser.push(text), ...parser.end()];
}

async function* slowly<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) {
    await new Promise((resolve) => setImmediate(resolve));
    yield item;
  }
}

/** `bytes` cut every `size` bytes (cuts fall inside multi-byte characters). */
function byteChunks(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

async function collect(stream: AsyncGenerator<ToolOutputEvent, unknown>): Promise<{ events: ToolOutputEvent[]; result: unknown }> {
  const events: ToolOutputEvent[] = [];
  for (;;) {
    const next = await stream.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

const valid = Object.entries(VALID).flatMap(([name, outputs]) => outputs.map((o, i) => ({ name: `${name} #${i}`, reasoning: reasoningOf(name), ...o })));

describe("parseToolOutputStream", () => {
  it.each(valid)("$name: the same events from string chunks and byte chunks, and the parsed output", async ({ text, reasoning, parsed }) => {
    const expected = wholeEvents(text, reasoning);
    const strings = [...text].reduce<string[]>((acc, ch, i) => (i % 3 === 0 ? [...acc, ch] : [...acc.slice(0, -1), acc[acc.length - 1]! + ch]), []);
    const fromStrings = await collect(parseToolOutputStream("kimi-k3", slowly(strings), { reasoning }));
    expect(fromStrings.events).toEqual(expected);
    expect(fromStrings.result).toEqual(parsed);
    const fromBytes = await collect(parseToolOutputStream("kimi-k3", byteChunks(text, 2), { reasoning }));
    expect(fromBytes.events).toEqual(expected);
    expect(fromBytes.result).toEqual(parseToolOutput("kimi-k3", text, { reasoning }));
  });

  it("works with for await over a plain array", async () => {
    const { text, parsed } = VALID["choice-required.final-output-only.parallel"]![0]!;
    const calls: string[] = [];
    for await (const event of parseToolOutputStream("kimi-k3", [text.slice(0, 10), text.slice(10)])) {
      if (event.type === "tool_call_end") calls.push(event.name);
    }
    expect(calls).toEqual(parsed.toolCalls.map((c) => c.name));
  });

  it.each(MALFORMED.slice(0, 8))("$what: OutputParseError at the same offset as the whole-text parser", async (m) => {
    const text = m.text.replace(ERROR_MARK, "");
    const reasoning = reasoningOf(m.case);
    const error = await collect(parseToolOutputStream("kimi-k3", slowly([...text]), { reasoning })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputParseError);
    expect((error as OutputParseError).offset).toBe(m.text.indexOf(ERROR_MARK));
    expect((error as OutputParseError).expected).toMatch(m.expected);
  });

  it.each([
    ["a number chunk", [42], /chunk 0: expected a string or a Uint8Array, found number 42/],
    ["invalid UTF-8", [new Uint8Array([0x41, 0xff])], /chunk 0 is not valid UTF-8/],
    ["bytes ending inside a character", [new Uint8Array([0xc3])], /is not valid UTF-8/],
  ])("%s → InvalidArgumentError", async (_what, chunks, message) => {
    const error = await collect(parseToolOutputStream("kimi-k3", chunks as Uint8Array[])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toMatch(message);
  });

  it("refuses a non-iterable and an unknown family", async () => {
    await expect(collect(parseToolOutputStream("kimi-k3", 5 as never))).rejects.toThrow(InvalidArgumentError);
    await expect(collect(parseToolOutputStream("nope", ["x"]))).rejects.toThrow(ToolError);
  });
});
