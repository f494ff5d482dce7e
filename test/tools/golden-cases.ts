/**
 * The golden cases of the Kimi K3 builder: each names a tools file, the request fields and the
 * outline file it must print (test/fixtures/tools/outlines/NAME.outline). The parser tests use
 * the same table for their hand-written outputs.
 */
import { readFileSync } from "node:fs";
import type { FunctionTool, ReasoningMode, ResponseFormat, ToolCallingRequest, ToolChoice } from "../../lib/tools/types.js";
import { seedTools } from "../helpers/seeds.js";

const fixtures = new URL("../fixtures/", import.meta.url);

/** The seed tools (get_weather, add) and the schema-feature tools. */
export const TOOL_SETS = {
  seeds: seedTools(),
  schemas: JSON.parse(readFileSync(new URL("tools/schemas.json", fixtures), "utf8")) as FunctionTool[],
};

export interface GoldenCase {
  name: string;
  tools: keyof typeof TOOL_SETS;
  tool_choice: ToolChoice;
  reasoning: ReasoningMode;
  parallel: boolean;
  response_format?: ResponseFormat;
}

/** The Kimi K3 request a golden case stands for. */
export function goldenRequest(c: GoldenCase): ToolCallingRequest {
  return {
    family: "kimi-k3",
    tools: TOOL_SETS[c.tools],
    tool_choice: c.tool_choice,
    reasoning: c.reasoning,
    parallel_tool_calls: c.parallel,
    ...(c.response_format ? { response_format: c.response_format } : {}),
  };
}

export function outlineUrl(name: string): URL {
  return new URL(`tools/outlines/${name}.outline`, fixtures);
}

const named = (name: string): ToolChoice => ({ type: "function", function: { name } });

const ANSWER: ResponseFormat = {
  type: "json_schema",
  json_schema: { name: "answer", schema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] } },
};

function choiceName(choice: ToolChoice): string {
  if (typeof choice === "string") return choice;
  return choice.type === "function" ? "named" : `allowed-${choice.allowed_tools.mode}`;
}

/** Every tool_choice × reasoning × parallel combination for the seed tools. */
const combinations: GoldenCase[] = [];
for (const tool_choice of ["auto", "required", named("get_weather")] as ToolChoice[]) {
  for (const reasoning of ["final_output_only", "think", "auto"] as ReasoningMode[]) {
    for (const parallel of [true, false]) {
      combinations.push({
        name: `choice-${choiceName(tool_choice)}.${reasoning.replace(/_/g, "-")}.${parallel ? "parallel" : "single"}`,
        tools: "seeds",
        tool_choice,
        reasoning,
        parallel,
      });
    }
  }
}

/** One schema-feature tool at a time (tool_choice forces it, so the outline shows just that tool). */
const schemaCases: GoldenCase[] = TOOL_SETS.schemas.map((tool) => ({
  name: `schema-${tool.function.name.replace(/[^a-z_]+/g, "-").replace(/^-|-$/g, "")}`,
  tools: "schemas",
  tool_choice: named(tool.function.name),
  reasoning: "final_output_only",
  parallel: true,
}));

/** Answer constraints, allowed_tools, and the tool_choice none cases that still build a grammar. */
const otherCases: GoldenCase[] = [
  { name: "answer.none.final-output-only", tools: "seeds", tool_choice: "none", reasoning: "final_output_only", parallel: true, response_format: ANSWER },
  { name: "answer.none.think", tools: "seeds", tool_choice: "none", reasoning: "think", parallel: true, response_format: ANSWER },
  { name: "answer.none.auto", tools: "seeds", tool_choice: "none", reasoning: "auto", parallel: true, response_format: ANSWER },
  { name: "answer.auto.final-output-only", tools: "seeds", tool_choice: "auto", reasoning: "final_output_only", parallel: true, response_format: ANSWER },
  { name: "answer.named.think", tools: "seeds", tool_choice: named("get_weather"), reasoning: "think", parallel: false, response_format: { type: "json_object" } },
  { name: "answer.auto-choice.auto", tools: "seeds", tool_choice: "auto", reasoning: "auto", parallel: false, response_format: { type: "regex", pattern: "(yes|no)\\." } },
  { name: "answer.required.final-output-only", tools: "seeds", tool_choice: "required", reasoning: "final_output_only", parallel: false, response_format: { type: "choice", choices: ["done", "failed"] } },
  {
    name: "allowed-required.final-output-only", tools: "seeds", reasoning: "final_output_only", parallel: true,
    tool_choice: { type: "allowed_tools", allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "add" } }] } },
  },
  {
    name: "allowed-auto.think", tools: "seeds", reasoning: "think", parallel: true,
    tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "get_weather" } }] } },
  },
];

export const GOLDEN_CASES: GoldenCase[] = [...combinations, ...schemaCases, ...otherCases];
