/** DeepSeek's tool-call markers (special tokens of the DeepSeek V3 / R1 tokenizers; `｜` is U+FF5C, `▁` U+2581). */
export const CALLS_BEGIN = "<\uff5ctool\u2581calls\u2581begin\uff5c>";
export const CALLS_END = "<\uff5ctool\u2581calls\u2581end\uff5c>";
export const CALL_BEGIN = "<\uff5ctool\u2581call\u2581begin\uff5c>";
export const CALL_END = "<\uff5ctool\u2581call\u2581end\uff5c>";
export const TOOL_SEP = "<\uff5ctool\u2581sep\uff5c>";
export const END_OF_SENTENCE = "<\uff5cend\u2581of\u2581sentence\uff5c>";
export const DEEPSEEK_TOOL_MARKERS: readonly string[] = [CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END, TOOL_SEP];
