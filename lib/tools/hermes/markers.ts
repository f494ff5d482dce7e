/** The Hermes / Qwen 2.5 tool-call markers (Qwen's tokenizer has them as added tokens). */
export const TOOL_CALL_OPEN = "<tool_call>";
export const TOOL_CALL_CLOSE = "</tool_call>";
/** ChatML's end of turn, and the end of text. */
export const HERMES_STOPS: readonly string[] = ["<|im_end|>", "<|endoftext|>"];
export const HERMES_MARKERS: readonly string[] = [TOOL_CALL_OPEN, TOOL_CALL_CLOSE];
