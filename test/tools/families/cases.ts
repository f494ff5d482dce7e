/**
 * The requests every family is tested with: the end-to-end tools (test/integration/fixtures/
 * tools.json: strings, an enum, numbers, an integer range, a nullable bounded string, an array,
 * a nested object) under every tool_choice × reasoning mode × parallel_tool_calls combination
 * the family supports, plus answer constraints and allowed_tools. Goldens, parser and round-trip
 * tests share this table.
 */
import { readFileSync } from "node:fs";
import { toolCallingFamilies, toolCallingFamily } from "../../../lib/tools/families.js";
import type { FunctionTool, ReasoningMode, ResponseFormat, ToolCallingRequest, ToolChoice } from "../../../lib/tools/types.js";

export const TOOLS = JSON.parse(readFileSync(new URL("../../integration/fixtures/tools.json", import.meta.url), "utf8")) as FunctionTool[];

/** Families of the layout framework and harmony (Kimi K3 has its own golden suite). */
export const FAMILIES = toolCallingFamilies().filter((f) => f !== "kimi-k3");

export interface FamilyCase {
  name: string;
  request: ToolCallingRequest;
}

const named = (name: string): ToolChoice => ({ type: "function", function: { name } });
const ANSWER: ResponseFormat = {
  type: "json_schema",
  json_schema: { name: "answer", schema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] } },
};

/** The reasoning modes a family supports. */
export function reasoningModes(family: string): ReasoningMode[] {
  return toolCallingFamily(family).reasoning === null ? ["final_output_only"] : ["final_output_only", "think", "auto"];
}

function choiceName(choice: ToolChoice): string {
  if (typeof choice === "string") return choice;
  return choice.type === "function" ? "named" : `allowed-${choice.allowed_tools.mode}`;
}

/** Every case of one family (variant: mistral's format). */
export function familyCases(family: string, variant?: string): FamilyCase[] {
  const base = { family, tools: TOOLS, ...(variant === undefined ? {} : { variant }) };
  const out: FamilyCase[] = [];
  const modes = reasoningModes(family).filter((m) => !(family === "mistral" && variant !== "v13" && m !== "final_output_only"));
  for (const tool_choice of ["auto", "required", named("set_alarm")] as ToolChoice[]) {
    for (const reasoning of modes) {
      for (const parallel of [true, false]) {
        out.push({
          name: `choice-${choiceName(tool_choice)}.${reasoning.replace(/_/g, "-")}.${parallel ? "parallel" : "single"}`,
          request: { ...base, tool_choice, reasoning, parallel_tool_calls: parallel },
        });
      }
    }
  }
  const last = modes[modes.length - 1]!;
  out.push(
    { name: "answer.none", request: { ...base, tool_choice: "none", response_format: ANSWER } },
    { name: `answer.auto.${last.replace(/_/g, "-")}`, request: { ...base, tool_choice: "auto", reasoning: last, response_format: ANSWER } },
    { name: "answer.required.choice", request: { ...base, tool_choice: "required", parallel_tool_calls: false, response_format: { type: "choice", choices: ["done", "failed"] } } },
    {
      name: "allowed-auto", request: {
        ...base, tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "get_weather" } }] } },
      },
    },
  );
  return out;
}

/** (family, variant) pairs: every mistral variant, one entry for the others. */
export const FAMILY_VARIANTS: Array<{ family: string; variant?: string; label: string }> = FAMILIES.flatMap((family) => {
  const variants = toolCallingFamily(family).variants;
  return variants === undefined ? [{ family, label: family }] : variants.map((variant) => ({ family, variant, label: `${family}-${variant}` }));
});
