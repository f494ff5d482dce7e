/**
 * `tagmask/node-llama-cpp`: constrained generation with node-llama-cpp (an optional peer
 * dependency, `^3.21.0`). Its types refer to node-llama-cpp's, so it is an entry of its own:
 * `import { ConstrainedLlama } from "tagmask/node-llama-cpp"`. The tiny random model of the demo
 * and the tests is here too.
 *
 * @example
 * import { getLlama } from "node-llama-cpp";
 * import { ConstrainedLlama, ensureTinyModel } from "tagmask/node-llama-cpp";
 *
 * const llama = await getLlama({ gpu: false });
 * const model = await llama.loadModel({ modelPath: ensureTinyModel().path });
 * const session = await ConstrainedLlama.create(model);
 */
export {
  ConstrainedGrammar, ConstrainedLlama, MASK_ROUTES, SAMPLER_ARRAYS_VERSION, SAMPLER_ARRAYS_VERSIONS, checkMaskRoute, limitFreeText,
  limitWhitespace, nodeLlamaCppVersion, DEFAULT_FAVORED_TOKENS, DEFAULT_TINY_MODEL_SHAPE, ensureTinyModel, probeModelFile,
  tinyModelCacheDir, tinyModelCachePath, writeTinyModel,
} from "./integrations/node-llama-cpp/index.js";
export type {
  BatchJob, BatchMaskStats, BatchResult, ConstrainedLlamaOptions, GenerateOptions, GenerationResult, GenerationStats, GrammarOptions,
  MaskRouteName, RouteCheck, SamplingOptions, StopReason, TinyModelInfo, TinyModelOptions, TinyModelProgress, TinyModelShape,
  ToolCallsResult,
} from "./integrations/node-llama-cpp/index.js";
export type { LlamaModelVocabularySource } from "./tokenizer/index.js";
