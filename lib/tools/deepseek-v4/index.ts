/**
 * The deepseek-v4 family: DeepSeek-V4. Its format is public (the model's encoding_dsv4.py) and
 * differs from V3.2 in one marker: the block is `<｜DSML｜tool_calls>` instead of
 * `<｜DSML｜function_calls>`; so it is a family of its own, not an alias.
 */
import { dsmlFamily } from "../deepseek-v3.2/builder.js";

export const DEEPSEEK_V4 = dsmlFamily("deepseek-v4", "tool_calls", ["DeepSeek-V4"], [
  "deepseek-ai DeepSeek-V4 encoding_dsv4.py", "xgrammar builtin deepseek_v4 and its encoding_dsv4 test",
]);
