import { describe, expect, it } from "vitest";
import { formatKeyText } from "../../lib/compile/key-text.js";
import { stringifyExact } from "../../lib/format/exact-numbers.js";
import { parseStructuralTag } from "../../lib/format/parse.js";
import type { Format } from "../../lib/format/types.js";
import { buildToolCallingFormat, toolCallingFamilies } from "../../lib/tools/index.js";
import { sixParameterTools } from "../helpers/many-tools.js";
import { seeds } from "../helpers/seeds.js";

describe("formatKeyText", () => {
  it("is the JSON text of every family's format, of seed formats and of unsealed objects, asked once or again", () => {
    const formats: object[] = [];
    for (const family of toolCallingFamilies()) {
      for (const tool_choice of ["auto", "required"] as const) {
        const tag = buildToolCallingFormat({ family, tools: sixParameterTools(3), tool_choice });
        if (tag) formats.push(tag.format);
      }
    }
    for (const seed of Object.values(seeds)) formats.push(seed.format);
    formats.push({ type: "json_schema", json_schema: { type: "object", properties: { a: { type: "integer", maximum: 1e300 } }, x: undefined }, excludes: ["a", undefined] });
    expect(formats.length).toBeGreaterThan(20);
    for (const f of formats) {
      expect(formatKeyText(f)).toBe(JSON.stringify(f));
      expect(formatKeyText(f)).toBe(JSON.stringify(f));
    }
  });

  it("writes numbers a double cannot hold as they were read", () => {
    const tag = parseStructuralTag(
      '{"type":"structural_tag","format":{"type":"sequence","elements":[{"type":"tag","begin":"<f>","content":{"type":"json_schema","json_schema":{"type":"integer","maximum":9007199254740993}},"end":"</f>"},{"type":"repeat","min":1,"max":3,"content":{"type":"const_string","value":"x"}}]}}',
    );
    const text = formatKeyText(tag.format as Format);
    expect(text).toContain("9007199254740993");
    expect(text).toBe(stringifyExact(tag.format));
  });
});
