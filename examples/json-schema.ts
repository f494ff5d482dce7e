/**
 * JSON Schema output: the model's answer is one JSON value that follows the schema, with
 * node-llama-cpp generating under the mask. The same grammar works with any sampler
 * (see custom-sampler.ts).
 *
 *   node dist/examples/json-schema.js [model.gguf]
 */
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import type { JsonSchema } from "tagmask";
import { ConstrainedLlama, ensureTinyModel } from "tagmask/node-llama-cpp";

const schema: JsonSchema = {
  type: "object",
  properties: {
    city: { type: "string", maxLength: 20 },
    days: { type: "integer", minimum: 1, maximum: 7 },
    units: { enum: ["metric", "imperial"] },
  },
  required: ["city", "days", "units"],
  additionalProperties: false,
};

const modelPath = process.argv[2] ?? ensureTinyModel().path;
const tiny = process.argv[2] === undefined;
const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error, ...(tiny ? { maxThreads: 1 } : {}) });
const model = await llama.loadModel({ modelPath });
const session = await ConstrainedLlama.create(model);
// A structural tag whose whole output is one JSON value; whitespace between tokens bounded.
const grammar = await session.grammar({ type: "structural_tag", format: { type: "json_schema", json_schema: schema } }, { maxWhitespace: 2 });
const context = await model.createContext({ contextSize: 1024 });
try {
  const result = await session.generate(context.getSequence(), "A weather forecast request as JSON:", grammar, { maxTokens: 200, seed: 5 });
  console.log(`output (${result.tokens.length} tokens, stopped by ${result.stopReason}): ${result.text}`);
  const value = JSON.parse(result.text) as { city: string; days: number; units: string };
  console.log(`city ${JSON.stringify(value.city)}, ${value.days} day(s), ${value.units}`);
} finally {
  await context.dispose();
  await llama.dispose();
}
