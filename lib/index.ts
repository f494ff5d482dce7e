/**
 * tagmask: structural-tag constrained decoding for tool calling.
 *
 * Layers (see docs/ and DESIGN): formats (lib/format), tool calling (lib/tools), the front-end
 * compiler (lib/compile), vocabularies (lib/tokenizer), the engine (lib/engine), masking
 * (lib/mask) and integrations (lib/integrations).
 */
export * from "./errors.js";
export { runtime } from "./runtime.js";
export type { CudaRuntimeInfo, RuntimeInfo } from "./runtime.js";
export { addonStatus } from "./runtime.js";
export type { AddonOrigin, AddonStatus, AddonVariant } from "./runtime.js";
export {
  TokenizerInfo,
  TokenKind,
  DEFAULT_STOP_TOKENS,
  DEFAULT_TEXT_SPECIAL_TOKENS,
  KIMI_K3_SPECIAL_TOKENS,
  KIMI_K3_STOP_TOKEN,
} from "./tokenizer/index.js";
export type {
  NativeTokenizerInfo,
  TokenizerJsonOptions,
  TokenListOptions,
  TokenRef,
  VocabularyOptions,
  VocabType,
  VocabularyData,
} from "./tokenizer/index.js";
export {
  FORMAT_TYPES, formatToJSON, parseFormat, parseStructuralTag, printOutline, schemaToType, stringifyStructuralTag,
  structuralTagToJSON,
} from "./format/index.js";
export type * from "./format/types.js";
export type { JsonObject, JsonValue } from "./format/serialize.js";
export type { AnyTextOptions, JsonSchemaOptions, TagsWithSeparatorOptions, TriggeredTagsOptions } from "./format/build.js";
export type { AnyTokensOptions, DispatchOptions, TokenDispatchOptions, TokenTriggeredTagsOptions } from "./format/build.js";
export { tokenUniverse } from "./tokenizer/token-universe.js";
export type { RecognizerOptions, TokenUniverse } from "./compile/recognizer.js";
export * as formats from "./format/build.js";
export { applyTokenBitmask, maskedArgmax, maskedSample, applyMaskIsa } from "./mask/cpu.js";
export { allocateTokenBitmask, bitmaskWords } from "./mask/types.js";
export type { LogitsDType, MaskShapeOptions, MaskStore, SampleOptions } from "./mask/types.js";
export { compactRowOf, expandMaskRefs } from "./mask/refs.js";
export { toBFloat16Bits, fromBFloat16Bits, toFloat16Bits, fromFloat16Bits, toHalfBits, fromHalfBits } from "./mask/dtype.js";
export { setThreadPoolSize, threadPoolSize } from "./engine/batch-pool.js";
export { cuda, CudaStream, DeviceBitmask, DeviceLogits, DeviceMaskStore, PinnedBitmask } from "./mask/cuda.js";
export type { CudaDeviceInfo, DeviceLogitsOptions, DeviceRowOptions, DeviceSampleOptions, StreamLike } from "./mask/cuda.js";
export { BatchMatcher } from "./engine/batch.js";
export type { BatchAcceptResult, BatchMatcherOptions, BatchRowError, FillMaskRefsOptions, FillMaskRefsResult } from "./engine/batch.js";
export {
  buildToolCallingFormat, createToolOutputParser, parseToolOutput, toolCallingFamilies, toolCallingFamily, normalizeToolRequest,
  KIMI_K3_MARKERS, KIMI_K3_STOP, REASONING_MODES, MISTRAL_VARIANTS, mistralVariantOf,
} from "./tools/index.js";
export { parseToolOutputStream } from "./tools/index.js";
export type { ToolOutputChunks } from "./tools/index.js";
export { ARGUMENT_STYLES } from "./format/styles.js";
export type { ArgumentStyle } from "./format/styles.js";
export type {
  AllowedToolsChoice, FunctionDefinition, FunctionTool, NamedToolChoice, NormalizedTool, NormalizedToolRequest, ParsedToolCall,
  ParsedToolOutput, ReasoningMode, ResponseFormat, ToolCallingFamily, ToolCallingRequest, ToolChoice, ToolOutputEvent,
  ToolOutputParser, ToolOutputParserOptions, ToolReference,
} from "./tools/index.js";
export {
  GrammarBuilder, IR_VERSION, Recognizer, RecognizerState, deserializeGrammar, ebnfToIr, irToGbnf, isMatch, isViablePrefix,
  jsonValueRule, lowerFormat, printGrammar, regexToIr, serializeGrammar, simplifyGrammar, toGBNF, validateGrammar,
  viablePrefixLength,
} from "./compile/index.js";
export type {
  EbnfOptions, GbnfOptions, IrExpr, IrGrammar, IrRule, JsonValueOptions, LowerOptions, SimplifyOptions, ToGbnfOptions,
} from "./compile/index.js";
export { clearLoweringCache, loweringCacheStats, setLoweringCacheSize } from "./compile/index.js";
export type { FragmentCacheStats } from "./compile/index.js";
/** The grammar IR: node types, constructors, serialization and printing (docs/ir.md). */
export * as ir from "./compile/ir.js";
// engine (D)
export {
  CompiledGrammar, compileGrammar, compileGrammarAsync, GrammarCompiler, GrammarMatcher, loweringHeapLimitMb, loweringWorkers, setLoweringWorkers, warmUpCompiler,
} from "./engine/index.js";
export type { CompileOptions, CompileStats, GrammarCacheStats, GrammarCompilerOptions, MatcherOptions } from "./engine/index.js";
export type { CompileAsyncOptions, CompileCallOptions, CompileProgress, GrammarSource, LoweringWorkerOptions } from "./engine/index.js";
// end engine (D)
// node-llama-cpp integration (E): in the "tagmask/node-llama-cpp" entry (lib/node-llama-cpp.ts), so
// that these types need node-llama-cpp only where it is used. The free-text and whitespace bounds
// are plain format transforms and stay here too.
export { limitFreeText, limitWhitespace } from "./integrations/node-llama-cpp/format-limits.js";
export type { LlamaModelVocabularySource } from "./tokenizer/index.js";
// end node-llama-cpp integration (E)
// JSON Schema compiler (G)
export { compileJsonSchema, lowerJsonSchema } from "./compile/json-schema/index.js";
export type { Dialect as JsonSchemaDraft, JsonSchemaOptions as JsonSchemaCompileOptions, UnenforcedKeyword } from "./compile/json-schema/index.js";
// end JSON Schema compiler (G)
// OpenAI-compatible server (#15): createServer is in the "tagmask/server" entry (lib/server-entry.ts),
// since it runs on node-llama-cpp and fastify. Chat templates are plain text and stay here.
export { chatTemplate, chatTemplateFamilies, detectChatTemplateFamily, normalizeConversation, renderChat } from "./tools/chat-index.js";
export type { ChatMessage, ChatTemplate, ChatTemplateInput, ChatToolCall } from "./tools/chat-index.js";
// end OpenAI-compatible server (#15)
