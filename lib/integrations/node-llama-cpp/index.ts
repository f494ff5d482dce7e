/**
 * tagmask on node-llama-cpp: constrained generation on context sequences (one or many at once),
 * the masking routes and their start-up check, and the tiny random model for tests and the demo.
 * node-llama-cpp is an optional peer dependency: nothing here loads it until a model is used.
 */
export { ConstrainedGrammar, ConstrainedLlama } from "./constrained-llama.js";
export type { BatchJob, BatchResult, ConstrainedLlamaOptions, GrammarOptions, ToolCallsResult } from "./constrained-llama.js";
export type { GenerateOptions, GenerationResult, GenerationStats, SamplingOptions, StopReason } from "./generate.js";
export type { BatchMaskStats } from "./batch-masks.js";
export { MASK_ROUTES, SAMPLER_ARRAYS_VERSION, SAMPLER_ARRAYS_VERSIONS, nodeLlamaCppVersion } from "./routes.js";
export type { MaskRouteName } from "./routes.js";
export { checkMaskRoute } from "./route-check.js";
export type { RouteCheck } from "./route-check.js";
export { limitFreeText, limitWhitespace } from "./format-limits.js";
export {
  DEFAULT_FAVORED_TOKENS, DEFAULT_TINY_MODEL_SHAPE, ensureTinyModel, probeModelFile, tinyModelCacheDir, tinyModelCachePath, writeTinyModel,
} from "./tiny-model.js";
export type { TinyModelInfo, TinyModelOptions, TinyModelProgress, TinyModelShape } from "./tiny-model.js";
export { familyTokenizer, familyVocabularyOptions, tinyModelOptionsForFamily } from "./family-model.js";
export { parserOptionsOf } from "./constrained-llama.js";
