/**
 * xgrammar's per-model builtin structural tags (tests/python/test_builtin_structural_tag.py)
 * against tagmask's families: the outputs xgrammar's test checks for each model, through the
 * grammar of the family that writes that model's format, in the matching reasoning mode.
 * xgrammar's builtins are looser than the models' chat templates in places, and tagmask builds
 * no grammar when there is nothing to constrain; each row whose verdicts differ names why, in
 * words docs/compatibility.md uses. (The builtin tags themselves load through the wire form and
 * agree with xgrammar: test/format/xgrammar-suite.test.ts.)
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { buildToolCallingFormat } from "../../lib/tools/families.js";
import type { ReasoningMode } from "../../lib/tools/types.js";
import { BUILTINS, INSTANCE_TABLES, SIMPLE_SCHEMA } from "../format/xgrammar-suite/builtin-tags.js";

const compatibility = readFileSync(new URL("../../docs/compatibility.md", import.meta.url), "utf8");

/**
 * The family of each builtin, and the mode that matches xgrammar's reasoning on (null: the
 * family has no reasoning, so only reasoning off compares).
 */
const FAMILIES: Record<string, [family: string, reasoningOn: ReasoningMode | null]> = {
  llama: ["llama3", null],
  kimi: ["kimi-k2", "auto"],
  deepseek_r1: ["deepseek-r1", "think"],
  deepseek_v3_2: ["deepseek-v3.2", "auto"],
  deepseek_v4: ["deepseek-v4", "auto"],
  minimax: ["minimax-m2", "auto"],
  qwen_coder: ["qwen3-coder", "auto"],
  qwen: ["qwen3", "auto"],
};

const NO_TOOLS = "without tools or an answer constraint, tagmask builds no grammar";
const NO_MARKERS = "the llama3 family has no reasoning markers";
const TEMPLATE = "as the model's chat template writes it";
const OPTIONAL = "reasoning is optional in `auto`";

/**
 * [model, tools given, xgrammar's mode (0: reasoning off, 1: on, 2: forced empty), tagmask's
 * verdict on each output ("-": not compared, see below), why it differs from xgrammar's].
 */
const ROWS: Array<[string, boolean, 0 | 1 | 2, string, string[]]> = [
  ["llama", true, 0, "TTTTT", [NO_MARKERS]],
  ["llama", false, 0, "TTTTT", [NO_MARKERS]],
  ["kimi", true, 0, "FFFFFF", [TEMPLATE]],
  ["kimi", true, 1, "FFTFFT", [TEMPLATE]],
  ["kimi", true, 2, "---FFT", [TEMPLATE]],
  ["kimi", false, 0, "TTTTTT", [NO_TOOLS]],
  ["kimi", false, 1, "TTTTTT", [NO_TOOLS]],
  ["kimi", false, 2, "----T-", []],
  ["deepseek_r1", true, 0, "FFFFF", [TEMPLATE]],
  ["deepseek_r1", true, 1, "FFFFF", [TEMPLATE]],
  ["deepseek_r1", true, 2, "---FF", [TEMPLATE]],
  ["deepseek_r1", false, 0, "TTTTT", [NO_TOOLS]],
  ["deepseek_r1", false, 1, "TTTTT", [NO_TOOLS]],
  ["deepseek_r1", false, 2, "---TT", [NO_TOOLS]],
  ["deepseek_v3_2", true, 0, "FFFFF", [TEMPLATE]],
  ["deepseek_v3_2", true, 1, "FFFFF", [TEMPLATE]],
  ["deepseek_v3_2", true, 2, "---FF", [TEMPLATE]],
  ["deepseek_v3_2", false, 0, "TTTTT", [NO_TOOLS]],
  ["deepseek_v3_2", false, 1, "TTTTT", [NO_TOOLS]],
  ["deepseek_v3_2", false, 2, "----T", []],
  ["deepseek_v4", true, 0, "FFFFF", [TEMPLATE]],
  ["deepseek_v4", true, 1, "FFFFF", [TEMPLATE]],
  ["deepseek_v4", true, 2, "---FF", [TEMPLATE]],
  ["deepseek_v4", false, 0, "TTTTT", [NO_TOOLS]],
  ["deepseek_v4", false, 1, "TTTTT", [NO_TOOLS]],
  ["deepseek_v4", false, 2, "----T", []],
  ["minimax", true, 0, "FFFFF", [TEMPLATE]],
  ["minimax", true, 1, "FFFFF", [TEMPLATE]],
  ["minimax", true, 2, "---FF", [TEMPLATE]],
  ["minimax", false, 0, "TTTTT", [NO_TOOLS]],
  ["minimax", false, 1, "TTTTT", [NO_TOOLS]],
  ["minimax", false, 2, "----T", []],
  ["qwen_coder", true, 0, "TFFFF", []],
  ["qwen_coder", true, 1, "TFFFF", [OPTIONAL, TEMPLATE]],
  ["qwen_coder", true, 2, "---FT", []],
  ["qwen_coder", false, 0, "TTTTT", [NO_TOOLS]],
  ["qwen_coder", false, 1, "TTTTT", [NO_TOOLS]],
  ["qwen_coder", false, 2, "---TT", [NO_TOOLS]],
  ["qwen", true, 0, "TFFF", []],
  ["qwen", true, 1, "TFFF", [OPTIONAL, TEMPLATE]],
  ["qwen", true, 2, "--FT", []],
  ["qwen", false, 0, "TTTTT", [NO_TOOLS]],
  ["qwen", false, 1, "TTTTT", [NO_TOOLS]],
  ["qwen", false, 2, "---TT", [NO_TOOLS]],
];

describe("xgrammar's builtin structural tags against tagmask's families", () => {
  it.each(ROWS.map((r) => [`${r[0]} ${r[1] ? "with tools" : "without tools"}, mode ${r[2]}`, r] as const))("%s", (_name, [model, tools, mode, expected, reasons]) => {
    const table = INSTANCE_TABLES.find((t) => t.model === model)!;
    const [family, reasoningOn] = FAMILIES[model]!;
    // Reasoning forced empty: tagmask's template writes the empty block into the prompt, so the
    // grammar starts after it; only the outputs that begin with that block compare.
    const reasoning: ReasoningMode = mode === 1 && reasoningOn !== null ? reasoningOn : "final_output_only";
    const tag = buildToolCallingFormat({ family, tools: tools ? [{ type: "function", function: { name: table.tool, parameters: SIMPLE_SCHEMA } }] : [], reasoning });
    const grammar = tag === null ? null : lowerFormat(tag);
    const outputs = tools ? table.withTools : table.noTools;
    const xgrammar = (tools ? table.withToolsVerdicts : table.noToolsVerdicts)[mode];
    const empty = BUILTINS[model]!.emptyThink;
    const verdicts = outputs.map((o) => {
      if (mode === 2 && !o.startsWith(empty)) return "-";
      const out = mode === 2 ? o.slice(empty.length) : o;
      return grammar === null || isMatch(grammar, out) ? "T" : "F";
    }).join("");
    expect(verdicts).toBe(expected);
    const differs = [...verdicts].some((v, i) => v !== "-" && (v === "T") !== xgrammar[i]);
    expect(reasons.length > 0, "a reason exactly where the verdicts differ from xgrammar's").toBe(differs);
    for (const why of reasons) expect(compatibility, "docs/compatibility.md says why").toContain(why);
  });
});
