/**
 * Golden outlines of the Kimi K3 builder (golden-cases.ts lists them). Set
 * TAGMASK_UPDATE_GOLDENS=1 to rewrite the files after an intended change, then review the diff.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseStructuralTag } from "../../lib/format/parse.js";
import { printOutline } from "../../lib/format/outline.js";
import { stringifyStructuralTag } from "../../lib/format/serialize.js";
import { buildToolCallingFormat } from "../../lib/tools/index.js";
import { GOLDEN_CASES, TOOL_SETS, outlineUrl } from "./golden-cases.js";

const update = process.env["TAGMASK_UPDATE_GOLDENS"] === "1";

describe("Kimi K3 golden outlines", () => {
  it.each(GOLDEN_CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const tag = buildToolCallingFormat({
      family: "kimi-k3",
      tools: TOOL_SETS[c.tools],
      tool_choice: c.tool_choice,
      reasoning: c.reasoning,
      parallel_tool_calls: c.parallel,
      ...(c.response_format ? { response_format: c.response_format } : {}),
    });
    expect(tag).not.toBeNull();
    const outline = printOutline(tag!);
    const file = outlineUrl(c.name);
    if (update) writeFileSync(file, outline);
    expect(existsSync(file), `missing golden ${file.pathname}`).toBe(true);
    expect(outline).toBe(readFileSync(file, "utf8"));
    // The tag is valid xgrammar JSON and survives a round trip through its text form.
    expect(parseStructuralTag(stringifyStructuralTag(tag!))).toEqual(tag);
  });
});
