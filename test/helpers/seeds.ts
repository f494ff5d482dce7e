/**
 * The spec's seeds as the tests see them: the tools file and the three outlines copied from
 * ../shared/spec/seeds into test/fixtures/seeds (tests never read ../shared), and the three
 * seed structural tags built by hand with the format constructors, so that the printer, the
 * lowering and the GBNF export are checked without going through the Kimi K3 builder (the
 * builder's own tests compare it with the same outlines).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as f from "../../lib/format/build.js";
import type { Format, JsonSchema, StructuralTag, TagFormat } from "../../lib/format/types.js";
import { packageRoot } from "../../lib/package-root.js";
import type { FunctionTool } from "../../lib/tools/types.js";

/** test/fixtures/seeds, found from the package root (also when this file runs compiled from dist/). */
const seedDir = join(packageRoot(), "test", "fixtures", "seeds");

/** The seed tools file (get_weather, add). */
export const seedToolsFile = join(seedDir, "tools.json");

/** The seed tools, parsed afresh on each call (callers may change them). */
export function seedTools(): FunctionTool[] {
  return JSON.parse(readFileSync(seedToolsFile, "utf8")) as FunctionTool[];
}

/** The seeds by tool_choice: "auto", "required", and "named" (get_weather). */
export const seedNames = ["auto", "named", "required"] as const;
export type SeedName = (typeof seedNames)[number];

/** The file name of a seed's outline, e.g. `kimi-k3.auto.final-output-only.outline`. */
export function seedOutlineName(name: SeedName): string {
  return `kimi-k3.${name}.final-output-only.outline`;
}

/** A seed's outline text, as the spec writes it. */
export function seedOutline(name: SeedName): string {
  return readFileSync(join(seedDir, seedOutlineName(name)), "utf8");
}

const OPEN = "<|open|>";
const CLOSE = "<|close|>";
const SEP = "<|sep|>";
const END = "<|end_of_msg|>";

const closeArgument = `${CLOSE}argument${SEP}`;
const closeCall = `${CLOSE}call${SEP}`;

function argument(key: string, type: string, value: Format): TagFormat {
  return f.tag(`${OPEN}argument key="${key}" type="${type}"${SEP}`, value, closeArgument);
}

function jsonArguments(schema: JsonSchema): TagFormat {
  return f.tag(`${OPEN}json type="object"${SEP}`, f.jsonSchema(schema), `${CLOSE}json${SEP}`);
}

/** One call: the index digits, the rest of the opening marker, then either argument form. */
function call(name: string, perParameter: Format, schema: JsonSchema): TagFormat {
  return f.tag(
    `${OPEN}call tool="${name}" index="`,
    f.sequence(f.regex("[1-9][0-9]*"), f.constString(`"${SEP}`), f.or(perParameter, jsonArguments(schema))),
    closeCall,
  );
}

const weatherSchema: JsonSchema = { type: "object", properties: { location: { type: "string" } }, required: ["location"] };
const addSchema: JsonSchema = {
  type: "object",
  properties: { y: { type: "number" }, x: { type: "number" }, items: { type: "array", items: { type: "string" } } },
  required: ["y", "x", "items"],
};

const getWeather = call(
  "get_weather",
  argument("location", "string", f.anyText({ excludes: [closeArgument, closeCall] })),
  weatherSchema,
);
const add = call(
  "add",
  f.sequence(
    argument("y", "number", f.jsonSchema({ type: "number" })),
    argument("x", "number", f.jsonSchema({ type: "number" })),
    argument("items", "array", f.jsonSchema({ type: "array", items: { type: "string" } })),
  ),
  addSchema,
);

function message(calls: TagFormat[], toolsOptional: boolean): StructuralTag {
  const tools = f.tag(`${OPEN}tools${SEP}`, f.tagsWithSeparator(calls, "", { at_least_one: true }), `${CLOSE}tools${SEP}`);
  return f.structuralTag(
    f.sequence(
      f.optional(f.constString(`${OPEN}response${SEP}`)),
      f.tag("", f.anyText({ excludes: [OPEN, CLOSE, END] }), `${CLOSE}response${SEP}`),
      toolsOptional ? f.optional(tools) : tools,
      f.optional(f.constString(`${CLOSE}message${SEP}`)),
    ),
  );
}

/** The seed structural tags by tool_choice, built by hand. */
export const seeds: Record<SeedName, StructuralTag> = {
  auto: message([getWeather, add], true),
  named: message([getWeather], false),
  required: message([getWeather, add], false),
};
