import { describe, expect, it } from "vitest";
import { FormatError } from "../../lib/errors.js";
import * as f from "../../lib/format/build.js";
import * as top from "../../lib/index.js";
import type { Format, TagFormat } from "../../lib/format/types.js";

const x = f.constString("x");
const t = (begin: string): TagFormat => f.tag(begin, x, "</>");

/** [constructor call, the node it must build] */
const builds: Array<[string, () => Format, Format]> = [
  ["constString", () => f.constString("a"), { type: "const_string", value: "a" }],
  ["jsonSchema", () => f.jsonSchema({ type: "string" }), { type: "json_schema", json_schema: { type: "string" } }],
  ["jsonSchema options", () => f.jsonSchema(true, { style: "qwen_xml", any_order: true, max_whitespace_cnt: 2 }), { type: "json_schema", json_schema: true, style: "qwen_xml", any_order: true, max_whitespace_cnt: 2 }],
  ["grammar", () => f.grammar("root ::= \"a\""), { type: "grammar", grammar: "root ::= \"a\"" }],
  ["regex", () => f.regex("[0-9]+"), { type: "regex", pattern: "[0-9]+" }],
  ["anyText", () => f.anyText(), { type: "any_text" }],
  ["anyText options", () => f.anyText({ excludes: ["<"], max_tokens: 4, max_chars: 9 }), { type: "any_text", excludes: ["<"], max_tokens: 4, max_chars: 9 }],
  ["sequence", () => f.sequence(x, x), { type: "sequence", elements: [x, x] }],
  ["or", () => f.or(x), { type: "or", elements: [x] }],
  ["optional", () => f.optional(x), { type: "optional", content: x }],
  ["star", () => f.star(x), { type: "star", content: x }],
  ["plus", () => f.plus(x), { type: "plus", content: x }],
  ["repeat", () => f.repeat(1, -1, x), { type: "repeat", min: 1, max: -1, content: x }],
  ["tag", () => f.tag("<a>", x, ["</a>", "</b>"]), { type: "tag", begin: "<a>", content: x, end: ["</a>", "</b>"] }],
  ["triggeredTags", () => f.triggeredTags(["<a"], [t("<a>")], { at_least_one: true }), { type: "triggered_tags", triggers: ["<a"], tags: [t("<a>")], at_least_one: true }],
  ["tagsWithSeparator", () => f.tagsWithSeparator([t("<a>")], ",", { stop_after_first: true, at_least_one: undefined }), { type: "tags_with_separator", tags: [t("<a>")], separator: ",", stop_after_first: true }],
];

/** [constructor call, path, words] — constructors fail where the mistake is made. */
const mistakes: Array<[string, () => unknown, string, string]> = [
  ["repeat bounds", () => f.repeat(3, 2, x), "format.max", "at least min (3)"],
  ["repeat fractional", () => f.repeat(0.5, 2, x), "format.min", "non-negative integer"],
  ["empty sequence", () => f.sequence(), "format.elements", "non-empty list of formats"],
  ["empty or", () => f.or(), "format.elements", "non-empty list of formats"],
  ["empty end list", () => f.tag("a", x, []), "format.end", "non-empty list of strings"],
  ["trigger begins no tag", () => f.triggeredTags(["<b"], [t("<a>")]), "format.triggers[0]", "prefix of at least one tag's begin"],
  ["tag without a trigger", () => f.triggeredTags(["<a"], [t("<a>"), t("[b]")]), "format.tags[1].begin", "starts with one of the triggers"],
  ["no tags", () => f.tagsWithSeparator([], ","), "format.tags", "non-empty list of tags"],
  ["negative max_chars", () => f.anyText({ max_chars: -1 }), "format.max_chars", "non-negative integer"],
  ["empty style", () => f.jsonSchema({}, { style: "" }), "format.style", "non-empty string"],
  ["schema an array", () => f.jsonSchema([] as unknown as boolean), "format.json_schema", "object or a boolean"],
  ["lone surrogate", () => f.constString("\ud800"), "format.value", "lone surrogate"],
  ["bad child", () => f.optional({ type: "nope" } as unknown as Format), "format.content.type", 'unknown format type "nope"'],
];

describe("constructors", () => {
  it.each(builds)("%s", (_name, build, node) => {
    expect(build()).toStrictEqual(node);
  });

  it.each(mistakes)("refuses %s", (_name, build, path, words) => {
    let error: unknown;
    try {
      build();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FormatError);
    expect((error as FormatError).path).toBe(path);
    expect((error as FormatError).message).toContain(words);
  });

  it("structuralTag wraps a format", () => {
    expect(f.structuralTag(x)).toStrictEqual({ type: "structural_tag", format: x });
  });

  it("copies arguments, so later changes to them do not leak in", () => {
    const schema = { type: "object", properties: {} as Record<string, unknown> };
    const node = f.jsonSchema(schema);
    schema.properties.a = { type: "string" };
    expect(node.json_schema).toStrictEqual({ type: "object", properties: {} });
  });

  it("are exported at the top level as a namespace, next to the functions", () => {
    expect(top.formats.sequence(top.formats.constString("a"))).toStrictEqual({ type: "sequence", elements: [{ type: "const_string", value: "a" }] });
    expect(top.printOutline(top.formats.optional(x))).toBe("optional `x`\n");
    expect(top.schemaToType({ type: "number" })).toBe("number");
    expect(top.parseStructuralTag(top.stringifyStructuralTag(top.formats.structuralTag(x)))).toStrictEqual({ type: "structural_tag", format: x });
    expect(top.FORMAT_TYPES).toHaveLength(20);
  });
});
