import { describe, expect, it } from "vitest";
import { lowerFormat } from "../../lib/compile/lower.js";
import { printGrammar } from "../../lib/compile/ir.js";
import { parseStructuralTag } from "../../lib/format/parse.js";
import { ToolError } from "../../lib/errors.js";
import { buildToolCallingFormat, type FunctionTool } from "../../lib/tools/index.js";
import { clearToolFormatCache, toolFormatCacheStats } from "../../lib/tools/tool-format-cache.js";
import { sixParameterTool, sixParameterTools } from "../helpers/many-tools.js";

const build = (tools: FunctionTool[]) => {
  const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: "auto" });
  if (!tag) throw new Error("no format");
  return tag;
};

/** The call tags of a Kimi K3 `auto` tag (tools channel's tag list). */
function callTags(tag: ReturnType<typeof build>): unknown[] {
  return findTags(tag.format);
}
function findTags(f: unknown): unknown[] {
  if (f === null || typeof f !== "object") return [];
  const o = f as Record<string, unknown>;
  if (o["type"] === "tags_with_separator") return o["tags"] as unknown[];
  return Object.values(o).flatMap(findTags);
}

describe("per-tool format cache", () => {
  it("gives a repeated tool's call tag back as the same sealed object, and the same grammar", () => {
    clearToolFormatCache();
    const tools = sixParameterTools(4);
    const first = build(tools);
    const again = build(tools);
    const [a, b] = [callTags(first), callTags(again)];
    expect(a.length).toBe(4);
    a.forEach((t, i) => expect(b[i]).toBe(t));
    expect(Object.isFrozen(a[0])).toBe(true);
    expect(toolFormatCacheStats().hits).toBeGreaterThanOrEqual(4);
    expect(printGrammar(lowerFormat(again))).toBe(printGrammar(lowerFormat(first)));
    // A structural tag read from JSON text (no cache involved) lowers to the same grammar.
    expect(printGrammar(lowerFormat(parseStructuralTag(JSON.stringify(first))))).toBe(printGrammar(lowerFormat(first)));
  });

  it("builds a tool anew when its name or schema changes, and keys numbers as written", () => {
    clearToolFormatCache();
    const tools = sixParameterTools(3);
    const before = callTags(build(tools));
    const changed = tools.slice();
    changed[1] = sixParameterTool(1, 7);
    const after = callTags(build(changed));
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(after[2]).toBe(before[2]);
    expect(JSON.stringify(after[1])).toContain(String(10 + 1 + 7000));
    const renamed = tools.map((t, i) => (i === 2 ? { ...t, function: { ...t.function, name: "other" } } : t));
    expect(JSON.stringify(callTags(build(renamed))[2])).toContain("other");
  });

  it("keeps nothing for a tool that fails, which fails the same way again", () => {
    clearToolFormatCache();
    const bad: FunctionTool = { type: "function", function: { name: "bad<|open|>", parameters: { type: "object" } } };
    for (let i = 0; i < 2; i++) expect(() => build([bad])).toThrow(ToolError);
    expect(toolFormatCacheStats().entries).toBe(0);
  });

  it("keeps the calls of the common-layout families too, per family and variant", () => {
    clearToolFormatCache();
    const tools = sixParameterTools(3);
    for (const [family, variant] of [["llama3", undefined], ["qwen3", undefined], ["mistral", "v11"], ["mistral", "v3"]] as const) {
      const once = buildToolCallingFormat({ family, variant, tools, tool_choice: "required" });
      const again = buildToolCallingFormat({ family, variant, tools, tool_choice: "required" });
      if (!once || !again) throw new Error("no format");
      const [a, b] = [findTags(once.format), findTags(again.format)];
      expect(a.length, family).toBe(3);
      a.forEach((t, i) => expect(b[i], `${family} ${variant ?? ""}`).toBe(t));
    }
    // Two variants of one family write calls differently: neither gets the other's.
    const v3 = buildToolCallingFormat({ family: "mistral", variant: "v3", tools, tool_choice: "required" });
    const v11 = buildToolCallingFormat({ family: "mistral", variant: "v11", tools, tool_choice: "required" });
    expect(findTags(v3!.format)[0]).not.toBe(findTags(v11!.format)[0]);
    expect(JSON.stringify(findTags(v3!.format)[0])).not.toBe(JSON.stringify(findTags(v11!.format)[0]));
  });

  it("keeps harmony's calls (an or of the two orders of recipient and channel), and the same grammar", () => {
    clearToolFormatCache();
    const tools = sixParameterTools(3);
    const harmony = () => {
      const tag = buildToolCallingFormat({ family: "harmony", tools, tool_choice: "required" });
      if (!tag) throw new Error("no format");
      return tag;
    };
    /** The calls: the elements of the required choice (the whole format), each one tool's or. */
    const calls = (tag: ReturnType<typeof harmony>): unknown[] => {
      const f = tag.format as { type: string; elements: Array<{ type: string }> };
      expect([f.type, ...f.elements.map((e) => e.type)]).toEqual(["or", "or", "or", "or"]);
      return f.elements;
    };
    const first = harmony();
    const before = toolFormatCacheStats();
    const again = harmony();
    expect(toolFormatCacheStats().hits - before.hits).toBe(3);
    const [a, b] = [calls(first), calls(again)];
    expect(a.length).toBe(3);
    a.forEach((t, i) => expect(b[i]).toBe(t));
    expect(JSON.stringify(a[1])).toContain("functions.tool_1");
    expect(printGrammar(lowerFormat(again))).toBe(printGrammar(lowerFormat(first)));
    expect(printGrammar(lowerFormat(parseStructuralTag(JSON.stringify(first))))).toBe(printGrammar(lowerFormat(first)));
  });
});
