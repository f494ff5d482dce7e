/**
 * The vocabulary of a loaded node-llama-cpp model: the GGUF's token strings and token types
 * (`tokenizer.ggml.tokens`, `tokenizer.ggml.token_type`, read by node-llama-cpp into
 * `model.fileInfo`) decoded the way llama.cpp decodes them, and its end-of-generation tokens.
 *
 * Only the members used here are typed, so tagmask needs node-llama-cpp at run time only when a
 * model is actually passed in.
 */
import { TokenizerError } from "../errors.js";
import { TokenCollector, TokenFlag, type TokenTable } from "./token-table.js";
import type { VocabType } from "./token-bytes.js";

/** The parts of a node-llama-cpp `LlamaModel` that describe its vocabulary. */
export interface LlamaModelVocabularySource {
  readonly fileInfo: {
    readonly metadata: {
      readonly tokenizer?: {
        readonly ggml?: {
          readonly model?: string;
          readonly tokens?: readonly string[];
          readonly token_type?: readonly number[];
        };
      };
    };
  };
  isEogToken(token: never): boolean;
}

/** GGUF token types (llama.cpp's `llama_token_type`). */
const GgufTokenType = { undefined: 0, normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

/** llama.cpp tokenizer model → how its token strings encode bytes. */
const VOCAB_TYPE_OF_MODEL: Record<string, VocabType> = {
  gpt2: "byte_level",
  llama: "sentencepiece",
  t5: "sentencepiece",
};

/** The model's tokens as a table, its vocabulary type, and its end-of-generation token ids. */
export function readLlamaModelVocabulary(model: LlamaModelVocabularySource): { table: TokenTable; vocabType: VocabType; eogIds: number[] } {
  const ggml = model?.fileInfo?.metadata?.tokenizer?.ggml;
  if (!ggml || !Array.isArray(ggml.tokens) || ggml.tokens.length === 0) {
    throw new TokenizerError("model: tokenizer.ggml.tokens is missing from the model's metadata (expected a loaded node-llama-cpp LlamaModel with a vocabulary)");
  }
  const vocabType = VOCAB_TYPE_OF_MODEL[ggml.model ?? ""];
  if (!vocabType) {
    throw new TokenizerError(`model: tokenizer.ggml.model ${JSON.stringify(ggml.model)} is not supported (expected "gpt2", "llama" or "t5")`);
  }
  const tokens = ggml.tokens;
  const types = ggml.token_type;
  if (types !== undefined && types.length !== tokens.length) {
    throw new TokenizerError(`model: tokenizer.ggml.token_type has ${types.length} entries for ${tokens.length} tokens`);
  }
  const collector = new TokenCollector();
  const literal = new Uint8Array(tokens.length);
  const flags: number[] = [];
  const specials = new Map<string, number>();
  for (let id = 0; id < tokens.length; id++) {
    const token = tokens[id];
    if (typeof token !== "string") throw new TokenizerError(`model: tokenizer.ggml.tokens[${id}]: expected a string`);
    const type = types?.[id] ?? GgufTokenType.normal;
    if (type === GgufTokenType.unused) {
      flags.push(TokenFlag.Unused);
      continue;
    }
    // Control and unknown tokens are special; user-defined tokens are text spelled literally (as
    // llama.cpp renders them), byte tokens are `<0xXX>` pieces, normal tokens are encoded.
    const special = type === GgufTokenType.control || type === GgufTokenType.unknown;
    if (special || type === GgufTokenType.userDefined) literal[collector.size] = 1;
    if (special) specials.set(token, id);
    flags.push(special ? TokenFlag.Special : TokenFlag.Text);
    collector.addString(id, token);
  }
  const table = collector.finish(vocabType, "model", literal);
  if (table.count < tokens.length) {
    // Trailing unused ids: keep the model's vocabulary size.
    const offsets = new Uint32Array(tokens.length + 1);
    offsets.set(table.offsets);
    offsets.fill(table.offsets[table.count]!, table.count + 1);
    table.offsets = offsets;
    table.count = tokens.length;
    table.flags = new Uint8Array(tokens.length);
  }
  table.flags.set(flags);
  table.specials = specials;
  const eogIds: number[] = [];
  for (const id of specials.values()) if (model.isEogToken(id as never)) eogIds.push(id);
  return { table, vocabType, eogIds };
}
