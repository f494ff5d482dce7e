/**
 * The plain data every vocabulary loader produces (tokenizer.json, a token list, a
 * node-llama-cpp model) and the native TokenizerInfo consumes. Token ids index the arrays.
 */

/** How a token may appear in output. */
export const TokenKind = {
  /** Ordinary text: allowed exactly where its bytes are. */
  Normal: 0,
  /** A special token that stands for text (e.g. `<|open|>`): allowed exactly where its text is. */
  SpecialText: 1,
  /** A control token without output text (BOS, EOS, reserved, ...): never allowed as text. Stop tokens are control tokens listed in `stopTokenIds`. */
  Control: 2,
} as const;
export type TokenKind = (typeof TokenKind)[keyof typeof TokenKind];

export interface VocabularyData {
  /**
   * Number of token ids the model's logits cover. It may exceed the number of tokens
   * (`kinds.length`): the extra ids are padding and never allowed.
   */
  vocabSize: number;
  /** Every token's bytes, concatenated: token i is `bytes.subarray(offsets[i], offsets[i + 1])`. */
  bytes: Uint8Array;
  /** Token start offsets into `bytes`; length = token count + 1, non-decreasing, last = bytes.length. */
  offsets: Uint32Array;
  /** One {@link TokenKind} per token. */
  kinds: Uint8Array;
  /** Tokens that end generation: allowed exactly when the grammar can end. Must be Control tokens. */
  stopTokenIds: Uint32Array;
}
