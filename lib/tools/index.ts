/**
 * Tool calling: OpenAI-style tools and tool_choice → a model family's structural tag, and the
 * family's output → tool calls.
 */
export type * from "./types.js";
export { REASONING_MODES } from "./types.js";
export {
  buildToolCallingFormat, createToolOutputParser, parseToolOutput, toolCallingFamilies, toolCallingFamily,
} from "./families.js";
export type { ToolCallingFamily } from "./families.js";
export { parseToolOutputStream } from "./output-stream.js";
export type { ToolOutputChunks } from "./output-stream.js";
export { normalizeToolRequest } from "./normalize.js";
export type { NormalizedTool, NormalizedToolRequest } from "./normalize.js";
export { KIMI_K3_MARKERS, KIMI_K3_STOP } from "./kimi-k3/markers.js";
export { mistralVariantOf, MISTRAL_VARIANTS } from "./mistral/index.js";
