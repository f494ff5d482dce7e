/**
 * The server with families whose calls are not a JSON envelope, through the official `openai`
 * client (the suite of test/server/family-server.ts): glm-4.7 (`<tool_call>NAME<arg_key>…`,
 * values raw or JSON per argument) and mistral (`[TOOL_CALLS]NAME[ARGS]{…}`: the v13 form, which
 * the server picks from the tiny model's special tokens). Both on tiny random models with Llama
 * 3's vocabulary and the family's markers as special tokens.
 */
import { afterAll, beforeAll } from "vitest";
import { getLlama, LlamaLogLevel, type Llama } from "node-llama-cpp";
import { tinyModelOptionsForFamily } from "../../lib/integrations/node-llama-cpp/family-model.js";
import { describeFamilyServer } from "./family-server.js";

let llama: Llama;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: "never", maxThreads: 1, logLevel: LlamaLogLevel.error });
});
afterAll(async () => {
  await llama?.dispose();
});

describeFamilyServer({ family: "glm-4.7", model: tinyModelOptionsForFamily("glm-4.7") }, () => llama);
describeFamilyServer({ family: "mistral", model: tinyModelOptionsForFamily("mistral"), health: { variant: "v13" } }, () => llama);
