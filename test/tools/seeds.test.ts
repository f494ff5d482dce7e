/**
 * The user's spec: for the tools in tools.json, the Kimi K3 builder prints the three seed
 * outlines byte for byte (copied from ../shared/spec/seeds into test/fixtures/seeds).
 */
import { describe, expect, it } from "vitest";
import { printOutline } from "../../lib/format/outline.js";
import { buildToolCallingFormat } from "../../lib/tools/index.js";
import type { ToolChoice } from "../../lib/tools/types.js";
import { seedOutline, seedTools, type SeedName } from "../helpers/seeds.js";

const tools = seedTools();

const cases: [SeedName, ToolChoice][] = [
  ["auto", "auto"],
  ["required", "required"],
  ["named", { type: "function", function: { name: "get_weather" } }],
];

describe("seed outlines", () => {
  it.each(cases)("kimi-k3.%s.final-output-only.outline", (file, toolChoice) => {
    const expected = seedOutline(file);
    const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: toolChoice, reasoning: "final_output_only" });
    expect(tag).not.toBeNull();
    expect(printOutline(tag!)).toBe(expected);
  });

  it("final_output_only and auto tool choice are the defaults", () => {
    expect(printOutline(buildToolCallingFormat({ family: "kimi-k3", tools })!)).toBe(seedOutline("auto"));
  });
});
