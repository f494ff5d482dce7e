/**
 * Parsing a streamed output: the text of a node-llama-cpp generation arrives in pieces, and
 * `parseToolOutputStream` turns them into events as they come — the answer text, each tool call
 * as it opens, its arguments piece by piece, and the finished call — with
 * `for await (const event of parseToolOutputStream(family, chunks))`.
 *
 *   node dist/examples/stream-parse.js [model.gguf]
 */
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { parseToolOutputStream, type FunctionTool, type ToolCallingRequest } from "tagmask";
import { ConstrainedLlama, ensureTinyModel } from "tagmask/node-llama-cpp";

/** An async iterable fed by a callback: each push is one chunk, end() finishes it. */
function textStream(): { push(text: string): void; end(): void; chunks: AsyncIterable<string> } {
  const queue: string[] = [];
  let done = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  return {
    push(text) {
      queue.push(text);
      notify();
    },
    end() {
      done = true;
      notify();
    },
    chunks: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (queue.length > 0) yield queue.shift()!;
          else if (done) return;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
  };
}

const tools: FunctionTool[] = [{
  type: "function",
  function: { name: "get_weather", parameters: { type: "object", properties: { location: { type: "string", maxLength: 16 } }, required: ["location"] } },
}];
const request: ToolCallingRequest = { family: "kimi-k3", tools, tool_choice: "auto", parallel_tool_calls: false };

const modelPath = process.argv[2] ?? ensureTinyModel().path;
const tiny = process.argv[2] === undefined;
const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error, ...(tiny ? { maxThreads: 1 } : {}) });
const model = await llama.loadModel({ modelPath });
const session = await ConstrainedLlama.create(model);
const grammar = await session.toolCallingGrammar(request, tiny ? { maxFreeTextTokens: 6, maxWhitespace: 2 } : {});
const context = await model.createContext({ contextSize: 2048 });
try {
  const stream = textStream();
  const generation = session
    .generate(context.getSequence(), "<|open|>user<|sep|>Weather in Oslo?<|close|>user<|sep|>", grammar, { maxTokens: 300, seed: 4, onText: stream.push })
    .finally(stream.end);
  // The consumer: events while the model is still generating. Text events carry one character
  // each; they are gathered here and printed when something else happens.
  let text = "";
  let events = 0;
  for await (const event of parseToolOutputStream(request.family, stream.chunks)) {
    events++;
    if (event.type === "content" || event.type === "arguments") {
      text += event.text;
      continue;
    }
    if (text !== "") console.log(`  text: ${JSON.stringify(text)}`);
    text = "";
    if (event.type === "tool_call_start") console.log(`call #${event.index} ${event.name} opens`);
    else if (event.type === "tool_call_end") console.log(`call #${event.index} ${event.name} done: ${JSON.stringify(event.arguments)}`);
  }
  if (text !== "") console.log(`  text: ${JSON.stringify(text)}`);
  const result = await generation;
  console.log(`${events} events; the generation stopped by ${result.stopReason} after ${result.tokens.length} tokens`);
} finally {
  await context.dispose();
  await llama.dispose();
}
