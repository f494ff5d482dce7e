/** The deepseek-v3.2 family: DeepSeek-V3.2 (DSML `function_calls`). */
import { dsmlFamily } from "./builder.js";

export const DEEPSEEK_V3_2 = dsmlFamily("deepseek-v3.2", "function_calls", ["DeepSeek-V3.2", "DeepSeek-V3.2-Speciale"], [
  "deepseek-ai/DeepSeek-V3.2 encoding_dsv32.py (the model's own renderer; no Jinja template ships)", "xgrammar builtin deepseek_v3_2 and its encoding_dsv32 test", "vLLM deepseekv32_tool_parser",
]);
