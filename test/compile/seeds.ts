/**
 * The three seed structural tags of ../shared/spec/seeds/, built by hand with the format
 * constructors (the Kimi K3 builder must print the same outlines; the lowering tests use these
 * trees so they do not depend on the builder).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as f from "../../lib/format/build.js";
import type { Format, JsonSchema, StructuralTag, TagFormat } from "../../lib/format/types.js";

/** The seeds as copied into the test fixtures (tests never read ../shared for them). */
export const seedDir = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "seeds");

export const seedNames = ["auto", "named", "required"] as const;
export type SeedName = (typeof seedNames)[number];

export function seedOutline(name: SeedName): string {
  return readFileSync(join(seedDir, `kimi-k3.${name}.final-output-only.outline`), "utf8");
}

const argEnds = ["<|close|>argument<|sep|>", "<|close|>call<|sep|>"];

function argument(key: string, type: string, value: Format): TagFormat {
  return f.tag(`<|open|>argument key="${key}" type="${type}"<|sep|>`, value, "<|close|>argument<|sep|>");
}

function call(name: string, args: Format, whole: JsonSchema): TagFormat {
  return f.tag(
    `<|open|>call tool="${name}" index="`,
    f.sequence(
      f.regex("[1-9][0-9]*"),
      f.constString('"<|sep|>'),
      f.or(args, f.tag('<|open|>json type="object"<|sep|>', f.jsonSchema(whole), "<|close|>json<|sep|>")),
    ),
    "<|close|>call<|sep|>",
  );
}

const weatherSchema: JsonSchema = { type: "object", properties: { location: { type: "string" } }, required: ["location"] };
const addSchema: JsonSchema = {
  type: "object",
  properties: { y: { type: "number" }, x: { type: "number" }, items: { type: "array", items: { type: "string" } } },
  required: ["y", "x", "items"],
};

const getWeather = call("get_weather", argument("location", "string", f.anyText({ excludes: argEnds })), weatherSchema);
const add = call(
  "add",
  f.sequence(
    argument("y", "number", f.jsonSchema({ type: "number" })),
    argument("x", "number", f.jsonSchema({ type: "number" })),
    argument("items", "array", f.jsonSchema({ type: "array", items: { type: "string" } })),
  ),
  addSchema,
);

function message(tools: Format): StructuralTag {
  return f.structuralTag(
    f.sequence(
      f.optional(f.constString("<|open|>response<|sep|>")),
      f.tag("", f.anyText({ excludes: ["<|open|>", "<|close|>", "<|end_of_msg|>"] }), "<|close|>response<|sep|>"),
      tools,
      f.optional(f.constString("<|close|>message<|sep|>")),
    ),
  );
}

function toolsChannel(calls: TagFormat[]): TagFormat {
  return f.tag("<|open|>tools<|sep|>", f.tagsWithSeparator(calls, "", { at_least_one: true }), "<|close|>tools<|sep|>");
}

/** The seed structural tags by tool_choice. */
export const seeds: Record<SeedName, StructuralTag> = {
  auto: message(f.optional(toolsChannel([getWeather, add]))),
  named: message(toolsChannel([getWeather])),
  required: message(toolsChannel([getWeather, add])),
};
