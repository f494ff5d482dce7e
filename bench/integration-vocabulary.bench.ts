/**
 * Loading vocabularies: TokenizerInfo from the Llama 3 and Qwen3 tokenizer.json files (target
 * ≤ 100 ms for Llama 3, native tries included), and from a prepared token list, with
 * @mlc-ai/web-xgrammar's TokenizerInfo.createTokenizerInfo on the same token list as the peer.
 */
import { TokenizerInfo } from "../lib/tokenizer/tokenizer-info.js";
import { KIMI_K3_MARKERS as markers } from "../lib/tools/index.js";
import { tokenizerJsonPath } from "../test/helpers/vocab.js";
import { loadWebXgrammar, readTokenList } from "../test/helpers/web-xgrammar.js";
import { runSuite, saveReport } from "./harness.js";

/** The token list and its end-of-generation ids. */
function tokenList(path: string): { tokens: string[]; stops: number[] } {
  const { tokens, added } = readTokenList(path);
  const stops = added.filter((t) => ["<|eot_id|>", "<|end_of_text|>", "<|im_end|>", "<|endoftext|>"].includes(t.content)).map((t) => t.id);
  return { tokens, stops };
}

const llama3 = tokenizerJsonPath("llama3");
const qwen3 = tokenizerJsonPath("qwen3");

const coldStart = performance.now();
const cold = TokenizerInfo.fromTokenizerJson(llama3, { addedTokens: markers });
const coldMs = performance.now() - coldStart;
console.log(`first load (cold JIT) of the Llama 3 tokenizer.json: ${coldMs.toFixed(1)} ms, ${cold.tokenCount} tokens`);

const llamaList = tokenList(llama3);
const xgr = loadWebXgrammar();

const rows = await runSuite(
  "vocabulary loading (Llama 3 128,256 tokens; Qwen3 151,669)",
  [
    { name: "tagmask fromTokenizerJson(llama3 path)", fn: () => TokenizerInfo.fromTokenizerJson(llama3, { addedTokens: markers }) },
    { name: "tagmask fromTokenizerJson(qwen3 path, padded)", fn: () => TokenizerInfo.fromTokenizerJson(qwen3, { addedTokens: markers, vocabSize: 151_936 }) },
    {
      // The whole vocabulary for the engine: the TypeScript side plus the native tries.
      name: "tagmask fromTokenizerJson(llama3 path) + native()",
      fn: () => TokenizerInfo.fromTokenizerJson(llama3, { addedTokens: markers }).native(),
      peer: "web-xgrammar createTokenizerInfo(llama3 list)",
    },
    {
      name: "tagmask fromTokens(llama3 list)",
      fn: () => TokenizerInfo.fromTokens(llamaList.tokens, { vocabType: "byte_level", specialTokens: llamaList.tokens.map((_, i) => i).filter((i) => i >= 128_000) }),
      peer: "web-xgrammar createTokenizerInfo(llama3 list)",
    },
    {
      name: "web-xgrammar createTokenizerInfo(llama3 list)",
      fn: async () => (await xgr.TokenizerInfo.createTokenizerInfo(llamaList.tokens, "byte_level", false, undefined, llamaList.stops)).dispose(),
    },
  ],
  { timeMs: 3000, warmupMs: 500 },
);
console.log(`\nLlama 3 from tokenizer.json: median ${(rows[0]!.medianUs / 1000).toFixed(1)} ms; with the native tries ${(rows[2]!.medianUs / 1000).toFixed(1)} ms (target ≤ 100 ms)`);
console.log(saveReport("integration-vocabulary", rows, { coldMs }));
