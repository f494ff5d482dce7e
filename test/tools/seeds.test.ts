/**
 * The user's spec: for the tools in tools.json, the Kimi K3 builder prints the three seed
 * outlines byte for byte (copied from ../shared/spec/seeds into test/fixtures/seeds).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { printOutline } from "../../lib/format/outline.js";
import { buildToolCallingFormat } from "../../lib/tools/index.js";
import type { ToolChoice } from "../../lib/tools/types.js";

const seeds = new URL("../fixtures/seeds/", import.meta.url);
const tools = JSON.parse(readFileSync(new URL("tools.json", seeds), "utf8")) as unknown[];

const cases: [string, ToolChoice][] = [
  ["auto", "auto"],
  ["required", "required"],
  ["named", { type: "function", function: { name: "get_weather" } }],
];

describe("seed outlines", () => {
  it.each(cases)("kimi-k3.%s.final-output-only.outline", (file, toolChoice) => {
    const expected = readFileSync(new URL(`kimi-k3.${file}.final-output-only.outline`, seeds), "utf8");
    const tag = buildToolCallingFormat({ family: "kimi-k3", tools: tools as never, tool_choice: toolChoice, reasoning: "final_output_only" });
    expect(tag).not.toBeNull();
    expect(printOutline(tag!)).toBe(expected);
  });

  it("final_output_only and auto tool choice are the defaults", () => {
    const expected = readFileSync(new URL("kimi-k3.auto.final-output-only.outline", seeds), "utf8");
    expect(printOutline(buildToolCallingFormat({ family: "kimi-k3", tools: tools as never })!)).toBe(expected);
  });
});
