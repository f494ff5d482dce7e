/**
 * Vocabularies: token id → bytes, token kinds and stop tokens, from tokenizer.json files, token
 * lists and node-llama-cpp models.
 */
export { TokenizerInfo } from "./tokenizer-info.js";
export type { NativeTokenizerInfo, TokenizerJsonOptions, TokenListOptions } from "./tokenizer-info.js";
export type { TokenRef, VocabularyOptions } from "./build-vocabulary.js";
export type { LlamaModelVocabularySource } from "./llama-model.js";
export type { VocabType } from "./token-bytes.js";
export { TokenKind } from "./vocabulary.js";
export type { VocabularyData } from "./vocabulary.js";
export { DEFAULT_STOP_TOKENS, DEFAULT_TEXT_SPECIAL_TOKENS, KIMI_K3_SPECIAL_TOKENS, KIMI_K3_STOP_TOKEN } from "./special-tokens.js";
