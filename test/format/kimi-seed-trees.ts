/**
 * The three seed outlines' format trees (../shared/spec/seeds, copied to
 * test/fixtures/format/seeds), built by hand with the constructors for the two seed tools. The
 * Kimi K3 builder lives in lib/tools; these trees only check the printer and the constructors.
 */
import * as f from "../../lib/format/build.js";
import type { Format, JsonSchema, StructuralTag, TagFormat } from "../../lib/format/types.js";

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

/** Seed file name → the hand-built tree it prints. */
export const seedTrees: ReadonlyArray<[string, StructuralTag]> = [
  ["kimi-k3.auto.final-output-only.outline", message([getWeather, add], true)],
  ["kimi-k3.required.final-output-only.outline", message([getWeather, add], false)],
  ["kimi-k3.named.final-output-only.outline", message([getWeather], false)],
];
