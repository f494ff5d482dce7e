/**
 * A tiny hand-made vocabulary for engine tests: stop and control tokens, the K3 markers as
 * special text tokens, tokens that split multi-byte characters, tokens that span grammar
 * boundaries, and padding ids past the last token.
 */
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";

const b = (...xs: number[]) => Uint8Array.from(xs);

/** The token strings (or raw bytes) by id. */
export const TINY_TOKENS: Array<string | Uint8Array> = [
  "<eos>", "<bos>", "<|open|>", "<|close|>", "<|sep|>",
  "{", "}", "\"", "\"}", "\":", "a", "b", "ab", ":", ",", " ", ", ", "\n",
  "[", "]", "[[", "]]", "],[", "[]", "1", "2", "12", "22", "0", "-",
  "é", b(0xc3), b(0xa9), b(0xe2), b(0x82, 0xac), b(0xe2, 0x82), b(0xac), "€", "€a", b(0xf0, 0x9f), b(0x98, 0x80), "😀",
  "<", "|", ">", "<|", "close", "open", "sep", "call", "<|close|>call<|sep|><|open|>", "|>", "call<|", "x", "xy", "\\", "\\n", "\\u", "00e9",
];

/** The vocabulary (with `extra` tokens after the tiny ones), with 5 padding ids. */
export function tinyVocabulary(extra: ReadonlyArray<string | Uint8Array> = []): TokenizerInfo {
  const tokens = [...TINY_TOKENS, ...extra];
  return TokenizerInfo.fromTokens(tokens, {
    vocabType: "raw",
    specialTokens: ["<eos>", "<bos>", "<|open|>", "<|close|>", "<|sep|>"],
    textSpecialTokens: ["<|open|>", "<|close|>", "<|sep|>"],
    stopTokens: ["<eos>"],
    vocabSize: tokens.length + 5,
  });
}

