import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FormatError } from "../../lib/errors.js";
import * as f from "../../lib/format/build.js";
import { parseFormat, parseStructuralTag } from "../../lib/format/parse.js";
import { formatToJSON, stringifyStructuralTag, structuralTagToJSON } from "../../lib/format/serialize.js";
import type { Format, StructuralTag } from "../../lib/format/types.js";
import { seedNames, seedOutlineName, seeds } from "../helpers/seeds.js";

const corpusDir = new URL("../fixtures/format/corpus/", import.meta.url);
const files = readdirSync(corpusDir).filter((n) => n.endsWith(".json"));

/** Structural tags written in code, beyond the corpus files: the hand-built seeds and edge cases. */
const inCode: Array<[string, StructuralTag]> = [
  ...seedNames.map((name): [string, StructuralTag] => [seedOutlineName(name), seeds[name]]),
  ["every wrapper", f.structuralTag(f.sequence(f.optional(f.star(f.plus(f.repeat(0, -1, f.constString("z"))))), f.repeat(2, 2, f.regex("a|b"))))],
  ["unicode and controls", f.structuralTag(f.tag("\u0000é🎉`\\", f.anyText({ excludes: ["\u2028", "\r\n"] }), ["\t", "\u009f"]))],
  ["schema with odd keys", f.structuralTag(f.jsonSchema(JSON.parse('{"properties":{"__proto__":{"type":"string"},"10":{},"2":{},"a b":{"const":[1,{"x":null}]}}}') as Record<string, unknown>, { style: "qwen_xml", any_order: true, max_whitespace_cnt: 3 }))],
  ["triggered tags with options", f.structuralTag(f.triggeredTags(["<t"], [f.tag("<t1>", f.grammar("root ::= \"1\""), "</t>"), f.tag("<t2>", f.jsonSchema(false), ["</t>", "</T>"])], { excludes: ["<x>"], at_least_one: true, stop_after_first: false }))],
];

const corpus: Array<[string, StructuralTag]> = [
  ...files.map((n): [string, StructuralTag] => [n, parseStructuralTag(readFileSync(new URL(n, corpusDir), "utf8"))]),
  ...inCode,
];

describe("parse ∘ serialize round trip", () => {
  it("has a corpus", () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  it.each(corpus)("%s", (_name, tag) => {
    const text = stringifyStructuralTag(tag);
    const again = parseStructuralTag(text);
    // toStrictEqual ignores key order; the text comparison checks it too.
    expect(again).toStrictEqual(tag);
    expect(stringifyStructuralTag(again)).toBe(text);
    expect(parseStructuralTag(structuralTagToJSON(tag))).toStrictEqual(tag);
    expect(parseFormat(formatToJSON(tag.format))).toStrictEqual(tag.format);
    expect(parseStructuralTag(stringifyStructuralTag(tag, 2))).toStrictEqual(tag);
  });

  it("keeps corpus files' content through the round trip (tags gain their type)", () => {
    for (const name of files) {
      const raw = readFileSync(new URL(name, corpusDir), "utf8");
      const original = JSON.parse(raw) as unknown;
      const serialized = JSON.parse(stringifyStructuralTag(parseStructuralTag(raw))) as unknown;
      expect(addTagTypes(original)).toEqual(serialized);
    }
  });
});

/** The input with `"type": "tag"` added to every entry of a `tags` list: the only normalization. */
function addTagTypes(value: unknown, inTags = false): unknown {
  if (Array.isArray(value)) return value.map((v) => addTagTypes(v, inTags));
  if (typeof value !== "object" || value === null) return value;
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = inTags ? { type: "tag" } : {};
  for (const [k, v] of Object.entries(obj)) out[k] = k === "json_schema" ? v : addTagTypes(v, k === "tags");
  return out;
}

describe("serialization", () => {
  it("writes fields in wire order and tags with their type", () => {
    const tag = f.structuralTag(f.tagsWithSeparator([f.tag("a", f.jsonSchema({ type: "string" }, { max_whitespace_cnt: 1, style: "json" }), "b")], ",", { stop_after_first: true, at_least_one: true }));
    expect(stringifyStructuralTag(tag)).toBe(
      '{"type":"structural_tag","format":{"type":"tags_with_separator","tags":[{"type":"tag","begin":"a","content":{"type":"json_schema","json_schema":{"type":"string"},"style":"json","max_whitespace_cnt":1},"end":"b"}],"separator":",","at_least_one":true,"stop_after_first":true}}',
    );
  });

  it("indents like JSON.stringify", () => {
    expect(stringifyStructuralTag(f.structuralTag(f.constString("x")), 2)).toBe('{\n  "type": "structural_tag",\n  "format": {\n    "type": "const_string",\n    "value": "x"\n  }\n}');
  });

  it("returns fresh JSON that the caller may change", () => {
    const format = f.jsonSchema({ type: "object", properties: { a: { type: "string" } } });
    const json = formatToJSON(format);
    (json.json_schema as Record<string, unknown>).type = "array";
    expect((format.json_schema as Record<string, unknown>).type).toBe("object");
  });

  it("refuses an invalid tree instead of writing invalid JSON", () => {
    const bad = { type: "repeat", min: 2, max: 1, content: { type: "const_string", value: "x" } } as Format;
    expect(() => formatToJSON(bad)).toThrow(FormatError);
    expect(() => formatToJSON(bad)).toThrow("format.max: expected -1 (unbounded) or an integer at least min (2), found number 1");
    expect(() => stringifyStructuralTag({ type: "structural_tag", format: bad })).toThrow("format.max");
  });
});
