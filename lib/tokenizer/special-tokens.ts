/**
 * Well-known special tokens: the end-of-generation tokens detected as stop tokens by default, and
 * the Kimi K3 markers (text-bearing special tokens).
 */
import { KIMI_K3_MARKERS, KIMI_K3_STOP } from "../tools/kimi-k3/markers.js";

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
  KIMI_K3_STOP,
  "<\uff5cend\u2581of\u2581sentence\uff5c>",
];

/**
 * The Kimi K3 chat-format markers, added to test vocabularies and the tiny model as special
 * tokens. The same list as `KIMI_K3_MARKERS`: the markers are defined once, in the tool family's
 * constants-only module (it imports nothing, so the vocabulary layer depends on no tool-calling
 * logic); this name is the vocabulary layer's view of them.
 */
export const KIMI_K3_SPECIAL_TOKENS: readonly string[] = KIMI_K3_MARKERS;

/** The Kimi K3 end-of-message token (`KIMI_K3_STOP`): a stop token, never text. */
export const KIMI_K3_STOP_TOKEN = KIMI_K3_STOP;

/**
 * Special tokens that stand for their text by default: the Kimi K3 markers other than the stop
 * token (a grammar spells them as text; a tokenizer emits them as one special token).
 */
export const DEFAULT_TEXT_SPECIAL_TOKENS: readonly string[] = KIMI_K3_SPECIAL_TOKENS.filter((t) => t !== KIMI_K3_STOP_TOKEN);
