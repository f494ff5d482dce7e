/**
 * The grammars the engine's exactness tests and benchmarks run on: the three Kimi K3 seed
 * grammars (../shared/spec/seeds), Kimi K3 tool sets with varied JSON Schema parameters, and
 * JSON Schemas compiled on their own; with realistic outputs for each.
 */
import type { IrGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import type { JsonSchema } from "../../lib/format/types.js";
import { buildToolCallingFormat } from "../../lib/tools/index.js";
import type { FunctionTool, ToolChoice } from "../../lib/tools/index.js";
import { seedTools } from "../helpers/seeds.js";

/** The Kimi K3 grammar of a tool set and tool_choice (final output only). */
export function k3Grammar(tools: FunctionTool[], toolChoice: ToolChoice): IrGrammar {
  const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: toolChoice });
  if (!tag) throw new Error("the Kimi K3 builder returned no format");
  return lowerFormat(tag);
}

const fn = (name: string, parameters: JsonSchema): FunctionTool => ({ type: "function", function: { name, parameters } }) as FunctionTool;

/** Tool sets whose parameters exercise the JSON Schema features, with an output for each. */
export const TOOL_SETS: Array<{ name: string; tools: FunctionTool[]; output: string }> = [
  {
    name: "nested objects",
    tools: [fn("create_event", {
      type: "object",
      properties: {
        title: { type: "string" },
        when: { type: "object", properties: { date: { type: "string" }, hour: { type: "integer" } }, required: ["date", "hour"] },
      },
      required: ["title", "when"],
    })],
    output: '<|open|>response<|sep|>Sure.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="create_event" index="1"<|sep|><|open|>argument key="title" type="string"<|sep|>Team sync — café<|close|>argument<|sep|><|open|>argument key="when" type="object"<|sep|>{"date": "2024-05-01", "hour": 14}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  },
  {
    name: "enums",
    tools: [fn("set_mode", { type: "object", properties: { mode: { enum: ["fast", "slow", "auto"] }, level: { type: "integer", enum: [1, 2, 3] } }, required: ["mode"] })],
    output: '<|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="set_mode" index="1"<|sep|><|open|>argument key="mode" type="string"<|sep|>slow<|close|>argument<|sep|><|open|>argument key="level" type="number"<|sep|>2<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  },
  {
    name: "arrays of objects",
    tools: [fn("add_items", {
      type: "object",
      properties: { items: { type: "array", items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "number" } }, required: ["sku", "qty"] } } },
      required: ["items"],
    })],
    output: '<|open|>response<|sep|>Adding them now.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="add_items" index="1"<|sep|><|open|>argument key="items" type="array"<|sep|>[{"sku": "A-1", "qty": 2}, {"sku": "B\\"2", "qty": 0.5}]<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  },
  {
    name: "optional parameters",
    tools: [fn("search", {
      type: "object",
      properties: { query: { type: "string" }, limit: { type: "integer" }, exact: { type: "boolean" }, tags: { type: "array", items: { type: "string" } } },
      required: ["query"],
    }), fn("noop", { type: "object", properties: {} })],
    output: '<|open|>response<|sep|>Searching.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="search" index="1"<|sep|><|open|>argument key="query" type="string"<|sep|>best ramen near me<|close|>argument<|sep|><|open|>argument key="exact" type="boolean"<|sep|>false<|close|>argument<|sep|><|close|>call<|sep|><|open|>call tool="noop" index="2"<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  },
  {
    name: "recursion",
    tools: [fn("save_tree", {
      type: "object",
      properties: { tree: { $ref: "#/$defs/node" } },
      required: ["tree"],
      $defs: { node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } }, required: ["name"] } },
    })],
    output: '<|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="save_tree" index="1"<|sep|><|open|>argument key="tree" type="object"<|sep|>{"name": "root", "children": [{"name": "a", "children": [{"name": "b"}]}, {"name": "c", "children": []}]}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  },
];

/** Realistic outputs of the seed grammars, by tool_choice. */
export const SEED_OUTPUTS: Record<"auto" | "required" | "named", string> = {
  auto: '<|open|>response<|sep|>It is sunny in Paris today; no tool needed.<|close|>response<|sep|><|close|>message<|sep|>',
  required: '<|open|>response<|sep|>Let me check both.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Paris, France<|close|>argument<|sep|><|close|>call<|sep|><|open|>call tool="add" index="2"<|sep|><|open|>json type="object"<|sep|>{"y": 1.5, "x": -2, "items": ["a", "b c"]}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  named: '<|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Zürich<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
};

/** The seed grammar of one tool_choice. */
export function seedGrammar(choice: "auto" | "required" | "named"): IrGrammar {
  const toolChoice: ToolChoice = choice === "named" ? { type: "function", function: { name: "get_weather" } } : choice;
  return k3Grammar(seedTools(), toolChoice);
}

/** A JSON Schema compiled on its own, with a document it accepts. */
export const SCHEMAS: Array<{ name: string; schema: JsonSchema; document: string }> = [
  {
    name: "order",
    schema: {
      type: "object",
      properties: {
        id: { type: "integer" },
        status: { enum: ["open", "closed"] },
        lines: { type: "array", items: { type: "object", properties: { sku: { type: "string" }, price: { type: "number" } }, required: ["sku"] } },
        note: { type: ["string", "null"] },
      },
      required: ["id", "status", "lines"],
    },
    document: '{"id": 42, "status": "open", "lines": [{"sku": "x-1", "price": 9.99}, {"sku": "y"}], "note": null}',
  },
  {
    name: "string formats",
    schema: {
      type: "object",
      properties: { email: { type: "string", format: "email" }, homepage: { type: "string", format: "uri" }, born: { type: "string", format: "date" } },
      required: ["email", "born"],
      additionalProperties: false,
    },
    document: '{"email": "ada.lovelace@example.org", "homepage": "https://example.org/ada?x=1#top", "born": "1815-12-10"}',
  },
  {
    // Long enough that early positions of the string are token-equivalent (more characters left
    // than the longest token holds) and late ones are not; the document runs up to the limit,
    // with escapes and multi-byte characters on the way.
    name: "strings with length limits",
    schema: {
      type: "object",
      properties: { title: { type: "string", maxLength: 150 }, code: { type: "string", minLength: 3, maxLength: 5 }, when: { type: "string", format: "date-time" } },
      required: ["title", "code"],
      additionalProperties: false,
    },
    document: JSON.stringify({
      title: `${"Größe \"café\" ".repeat(8)}${"x".repeat(150 - 8 * 14)}`,
      code: "AB€",
      when: "2016-12-31T15:59:60-08:00",
    }).replace(/,/g, ", "),
  },
];
