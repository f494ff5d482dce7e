/**
 * From generated text to the response: the message and the streaming deltas agree for every
 * chunking, tool-call deltas come as OpenAI streams them (index, id and name first, then argument
 * pieces), stop strings cut the content even across chunks, and unconstrained text that leaves
 * the family's format comes back as plain content.
 */
import { describe, expect, it } from "vitest";
import { CompletionAssembler, type CompletionDelta } from "../../lib/server/completion.js";
import type { StopReason } from "../../lib/integrations/node-llama-cpp/generate.js";
import type { ReasoningMode } from "../../lib/tools/types.js";
import { rng } from "../helpers/random.js";

const TWO_CALLS = '<|open|>response<|sep|>Let me check both.<|close|>response<|sep|><|open|>tools<|sep|>' +
  '<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Paris, "FR"<|close|>argument<|sep|><|close|>call<|sep|>' +
  '<|open|>call tool="add" index="2"<|sep|><|open|>json type="object"<|sep|>{"x": 1.5, "y": [1, 2]}<|close|>json<|sep|><|close|>call<|sep|>' +
  '<|close|>tools<|sep|><|close|>message<|sep|>';

interface Run {
  deltas: CompletionDelta[];
  result: ReturnType<CompletionAssembler["finish"]>;
  stoppedAt: number;
}

function run(text: string, chunks: number[], options: { stop?: string[]; constrained?: boolean; reasoning?: ReasoningMode; reason?: StopReason } = {}): Run {
  const deltas: CompletionDelta[] = [];
  const a = new CompletionAssembler({
    family: "kimi-k3", reasoning: options.reasoning ?? "final_output_only", constrained: options.constrained ?? true, stop: options.stop ?? [],
    onDelta: (d) => deltas.push(structuredClone(d)),
  });
  let from = 0;
  let stoppedAt = -1;
  for (const cut of [...chunks, text.length]) {
    if (a.push(text.slice(from, cut)) && stoppedAt < 0) stoppedAt = cut;
    from = cut;
    if (stoppedAt >= 0) break;
  }
  return { deltas, result: a.finish(stoppedAt >= 0 ? "aborted" : options.reason ?? "stop-token"), stoppedAt };
}

/** What the deltas add up to, as a client assembles them. */
function assemble(deltas: CompletionDelta[]): { content: string; reasoning: string; calls: { id?: string; name?: string; arguments: string }[] } {
  const out = { content: "", reasoning: "", calls: [] as { id?: string; name?: string; arguments: string }[] };
  for (const d of deltas) {
    out.content += d.content ?? "";
    out.reasoning += d.reasoning_content ?? "";
    for (const t of d.tool_calls ?? []) {
      if (t.id !== undefined) {
        expect(t.index, "a call's first delta opens the next index").toBe(out.calls.length);
        expect(t.function.name).toBeTruthy();
        expect(t.type).toBe("function");
        out.calls.push({ id: t.id, name: t.function.name!, arguments: t.function.arguments });
      } else {
        expect(out.calls[t.index], "argument pieces follow their call's first delta").toBeDefined();
        out.calls[t.index]!.arguments += t.function.arguments;
      }
    }
  }
  return out;
}

function randomCuts(length: number, seed: number, count: number): number[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => Math.floor(r() * length)).sort((a, b) => a - b);
}

describe("CompletionAssembler", () => {
  it("gives the same message and deltas for every chunking", () => {
    const whole = run(TWO_CALLS, []);
    expect(whole.result.finishReason).toBe("tool_calls");
    const { message } = whole.result;
    expect(message.content).toBe("Let me check both.");
    expect(message.tool_calls!.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["get_weather", { location: 'Paris, "FR"' }],
      ["add", { x: 1.5, y: [1, 2] }],
    ]);
    expect(message.tool_calls!.every((c) => /^call_[A-Za-z0-9_-]{24}$/.test(c.id) && c.type === "function")).toBe(true);
    for (let seed = 1; seed <= 40; seed++) {
      const cut = run(TWO_CALLS, randomCuts(TWO_CALLS.length, seed, 1 + (seed % 9)));
      const streamed = assemble(cut.deltas);
      expect(streamed.content).toBe(message.content);
      expect(streamed.calls.map((c) => [c.name, c.arguments])).toEqual(message.tool_calls!.map((c) => [c.function.name, c.function.arguments]));
      expect(cut.result.message.tool_calls!.map((c) => c.id)).toEqual(streamed.calls.map((c) => c.id));
    }
  });

  it("merges the events of one push into few deltas", () => {
    const { deltas } = run(TWO_CALLS, []);
    // content, call 1 start, call 1 arguments, call 2 start, call 2 arguments.
    expect(deltas.map((d) => Object.keys(d)[0])).toEqual(["content", "tool_calls", "tool_calls", "tool_calls", "tool_calls"]);
  });

  it("cuts the content at a stop string, also across chunks, and never lets a piece of it out", () => {
    const text = "<|open|>response<|sep|>The answer is 42. END of it<|close|>response<|sep|><|close|>message<|sep|>";
    for (const cuts of [[], [40], [41, 42, 43], randomCuts(text.length, 7, 12)]) {
      const r = run(text, cuts, { stop: ["END", "never"] });
      expect(r.stoppedAt, "stopped").toBeGreaterThan(0);
      expect(r.result.message.content).toBe("The answer is 42. ");
      expect(assemble(r.deltas).content).toBe("The answer is 42. ");
      expect(r.result.finishReason).toBe("stop");
    }
    // A stop string that never completes: the held-back prefix comes out at the end.
    const r = run("<|open|>response<|sep|>ab EN<|close|>response<|sep|>", [25, 27], { stop: ["END"] });
    expect(r.result.message.content).toBe("ab EN");
    expect(assemble(r.deltas).content).toBe("ab EN");
  });

  it("returns only finished tool calls when max_tokens cut the output", () => {
    const cut = TWO_CALLS.indexOf('{"x"') + 3;
    const r = run(TWO_CALLS.slice(0, cut), [], { reason: "max-tokens" });
    expect(r.result.finishReason).toBe("length");
    expect(r.result.message.tool_calls!.map((c) => c.function.name)).toEqual(["get_weather"]);
  });

  it("reports the think channel as reasoning_content", () => {
    const text = "I should look it up.<|close|>think<|sep|><|open|>response<|sep|>Done.<|close|>response<|sep|>";
    const r = run(text, [5, 30], { reasoning: "think" });
    expect(r.result.message.reasoning_content).toBe("I should look it up.");
    expect(r.result.message.content).toBe("Done.");
    expect(assemble(r.deltas).reasoning).toBe("I should look it up.");
  });

  it("passes unconstrained text that is not in the family's format through as content", () => {
    const text = "just some words <|open|>nonsense";
    const r = run(text, [3, 10], { constrained: false, reason: "max-tokens" });
    expect(r.result.message.content).toBe(text);
    expect(r.result.message.tool_calls).toBeUndefined();
    expect(r.result.finishReason).toBe("length");
  });

  it("never returns tool calls from unconstrained text", () => {
    const r = run(TWO_CALLS, [], { constrained: false });
    expect(r.result.message.tool_calls).toBeUndefined();
    expect(r.result.message.content).toBe(TWO_CALLS);
    expect(r.result.finishReason).toBe("stop");
  });

  it("reports a constrained text its parser refuses as an internal error", () => {
    expect(() => run("<|open|>tools<|sep|><|close|>tools<|sep|>", [])).toThrow(/parser refused text generated under its grammar/);
  });
});
