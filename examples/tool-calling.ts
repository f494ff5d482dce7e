/**
 * Tool calling with node-llama-cpp: tagmask reads the model's vocabulary, builds the Kimi K3
 * grammar for the tools, masks every sampling step, and parses the output into tool calls.
 *
 *   node dist/examples/tool-calling.js [model.gguf]
 *
 * Without a model it uses tagmask's tiny random model (generated into ~/.cache/tagmask on first
 * use): its words are noise, but the calls are always well-formed.
 */
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import type { FunctionTool } from "tagmask";
import { ConstrainedLlama, ensureTinyModel } from "tagmask/node-llama-cpp";

const tools: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a place.",
      parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
    },
  },
  {
    type: "function",
    function: {
      name: "set_alarm",
      parameters: { type: "object", properties: { hour: { type: "integer", minimum: 0, maximum: 23 } }, required: ["hour"] },
    },
  },
];

const modelPath = process.argv[2] ?? ensureTinyModel().path;
const tiny = process.argv[2] === undefined;
const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error, ...(tiny ? { maxThreads: 1 } : {}) });
const model = await llama.loadModel({ modelPath });
const session = await ConstrainedLlama.create(model);
const context = await model.createContext({ contextSize: 2048 });
try {
  const prompt = "<|open|>user<|sep|>Wake me at 7, and how warm is it in Lisbon?<|close|>user<|sep|>";
  const result = await session.generateToolCalls(
    context.getSequence(),
    prompt,
    { family: "kimi-k3", tools, tool_choice: "required" },
    // The tiny model writes noise: bound its free text and JSON whitespace.
    { maxTokens: 300, seed: 3, ...(tiny ? { maxFreeTextTokens: 8, maxWhitespace: 4 } : {}) },
  );
  console.log(`route ${result.route}, ${result.tokens.length} tokens, stopped by ${result.stopReason}`);
  for (const call of result.parsed?.toolCalls ?? []) console.log(`call ${call.name} ${JSON.stringify(call.arguments)}`);
  if (result.parseError) console.log(`cut short: ${result.parseError.message}`);
} finally {
  await context.dispose();
  await llama.dispose();
}
