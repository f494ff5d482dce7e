/**
 * Golden outlines of the Kimi K3 builder (golden-cases.ts lists them). Set
 * TAGMASK_UPDATE_GOLDENS=1 to rewrite the files after an intended change, then review the diff.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { parseStructuralTag } from "../../lib/format/parse.js";
import { printOutline } from "../../lib/format/outline.js";
import type { Format, JsonSchema } from "../../lib/format/types.js";
import { stringifyStructuralTag } from "../../lib/format/serialize.js";
import { buildToolCallingFormat } from "../../lib/tools/index.js";
import { GOLDEN_CASES, goldenRequest, outlineUrl } from "./golden-cases.js";

/** The json_schema values of a format tree, depth first. */
function jsonSchemas(format: Format): JsonSchema[] {
  switch (format.type) {
    case "json_schema":
      return [format.json_schema];
    case "sequence":
    case "or":
      return format.elements.flatMap(jsonSchemas);
    case "optional":
    case "star":
    case "plus":
    case "repeat":
    case "tag":
      return jsonSchemas(format.content);
    case "tags_with_separator":
    case "triggered_tags":
      return format.tags.flatMap(jsonSchemas);
    default:
      return [];
  }
}

const update = process.env["TAGMASK_UPDATE_GOLDENS"] === "1";

describe("Kimi K3 golden outlines", () => {
  it.each(GOLDEN_CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const tag = buildToolCallingFormat(goldenRequest(c));
    expect(tag).not.toBeNull();
    const outline = printOutline(tag!);
    const file = outlineUrl(c.name);
    if (update) writeFileSync(file, outline);
    expect(existsSync(file), `missing golden ${file.pathname}`).toBe(true);
    expect(outline).toBe(readFileSync(file, "utf8"));
    // The tag is valid xgrammar JSON and survives a round trip through its text form.
    expect(parseStructuralTag(stringifyStructuralTag(tag!))).toEqual(tag);
    // Every schema the builder wrote (narrowed parameter schemas with their definitions, the
    // JSON object form, answers) compiles strictly: nothing in it is left unenforced.
    const schemas = jsonSchemas(tag!.format);
    expect(schemas.length).toBeGreaterThan(0);
    for (const schema of schemas) expect(compileJsonSchema(schema).unenforced).toEqual([]);
  });
});
