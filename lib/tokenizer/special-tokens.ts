/**
 * Well-known special tokens: the end-of-generation tokens detected as stop tokens by default, and
 * the Kimi K3 markers (text-bearing special tokens).
 */

/**
 * Special tokens that end generation in common model families; every one present in a
 * vocabulary (as a special token) is a stop token unless the `stopTokens` option says otherwise.
 */
export const DEFAULT_STOP_TOKENS: readonly string[] = [
  "</s>",
  "<|endoftext|>",
  "<|end_of_text|>",
  "<|eot_id|>",
  "<|eom_id|>",
  "<|im_end|>",
  "<|end|>",
  "<|return|>",
  "<end_of_turn>",
  "<|end_of_msg|>",
  "<\uff5cend\u2581of\u2581sentence\uff5c>",
];

/** The Kimi K3 chat-format markers, added to test vocabularies and the tiny model as special tokens. */
export const KIMI_K3_SPECIAL_TOKENS: readonly string[] = ["<|open|>", "<|sep|>", "<|close|>", "<|end_of_msg|>"];

/** The Kimi K3 end-of-message token: a stop token, never text. */
export const KIMI_K3_STOP_TOKEN = "<|end_of_msg|>";

/**
 * Special tokens that stand for their text by default: the Kimi K3 markers other than the stop
 * token (a grammar spells them as text; a tokenizer emits them as one special token).
 */
export const DEFAULT_TEXT_SPECIAL_TOKENS: readonly string[] = KIMI_K3_SPECIAL_TOKENS.filter((t) => t !== KIMI_K3_STOP_TOKEN);
