import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FormatError } from "../../lib/errors.js";
import * as f from "../../lib/format/build.js";
import { printOutline, quoteOutlineString } from "../../lib/format/outline.js";
import { parseStructuralTag } from "../../lib/format/parse.js";
import type { Format } from "../../lib/format/types.js";
import { seedNames, seedOutline, seedOutlineName, seeds } from "../helpers/seeds.js";

const fixtures = new URL("../fixtures/format/", import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, fixtures), "utf8");

const x = f.constString("x");
const seq = f.sequence(f.constString("a"), f.constString("b"));

/** [case, format, outline lines] — each line gets its "\n" in the check. */
const nodeCases: Array<[string, Format, string[]]> = [
  // Leaves.
  ["const_string", x, ["`x`"]],
  ["empty const_string", f.constString(""), ["``"]],
  ["regex as written", f.regex("[a-z]+\\d`/"), ["/[a-z]+\\d`//"]],
  ["any_text", f.anyText(), ["text"]],
  ["any_text, empty excludes not printed", f.anyText({ excludes: [] }), ["text"]],
  ["any_text excluding", f.anyText({ excludes: ["</a>", "<b>"] }), ["text excluding [`</a>`, `<b>`]"]],
  ["any_text max_tokens", f.anyText({ max_tokens: 16 }), ["text max_tokens=16"]],
  ["any_text max_chars", f.anyText({ max_chars: 0 }), ["text max_chars=0"]],
  ["any_text all options", f.anyText({ max_chars: 5, excludes: ["\n"], max_tokens: 3 }), ["text excluding [`\\n`] max_tokens=3 max_chars=5"]],
  ["json_schema", f.jsonSchema({ type: "number" }), ["json(number)"]],
  ["json_schema true", f.jsonSchema(true), ["json(any)"]],
  ["json_schema explicit default style", f.jsonSchema({ type: "string" }, { style: "json", any_order: false }), ["json(string)"]],
  ["json_schema other style", f.jsonSchema({ type: "object", properties: { a: { type: "integer" } } }, { style: "qwen_xml" }), ["qwen_xml({ a?: integer })"]],
  ["json_schema any_order", f.jsonSchema({ type: "object" }, { any_order: true }), ["json(object) any_order"]],
  ["json_schema max_whitespace", f.jsonSchema(false, { max_whitespace_cnt: 2 }), ["json(never) max_whitespace=2"]],
  ["json_schema both options", f.jsonSchema({}, { max_whitespace_cnt: 0, any_order: true }), ["json(any) any_order max_whitespace=0"]],
  ["json_schema excluding", f.jsonSchema({ type: "string" }, { excludes: ["<|open|>", "`"] }), ["json(string) excluding [`<|open|>`, `\\``]"]],
  // Blocks, even with one child.
  ["sequence of one", f.sequence(x), ["sequence", "  `x`"]],
  ["sequence", seq, ["sequence", "  `a`", "  `b`"]],
  ["or", f.or(x, f.regex("y")), ["or", "  `x`", "  /y/"]],
  ["grammar", f.grammar('root ::= "a" b\nb ::= [0-9]+'), ["grammar", '  root ::= "a" b', "  b ::= [0-9]+"]],
  ["grammar: CRLF, blank lines, indentation, final newline", f.grammar('root ::= a\r\n\r\n   | "b"\n\t\na ::= "x"\n'), ["grammar", "  root ::= a", '     | "b"', '  a ::= "x"']],
  ["grammar: blank lines only", f.grammar("\n\n"), ["grammar"]],
  // Wrappers.
  ["optional of a leaf", f.optional(x), ["optional `x`"]],
  ["star of a leaf", f.star(f.regex("[0-9]")), ["star /[0-9]/"]],
  ["plus of a leaf", f.plus(f.anyText({ max_chars: 1 })), ["plus text max_chars=1"]],
  ["repeat bounded", f.repeat(1, 3, x), ["repeat 1..3 `x`"]],
  ["repeat unbounded", f.repeat(1, -1, x), ["repeat 1.. `x`"]],
  ["repeat exact", f.repeat(0, 0, x), ["repeat 0..0 `x`"]],
  ["optional of a block", f.optional(seq), ["optional", "  sequence", "    `a`", "    `b`"]],
  ["optional of optional", f.optional(f.optional(x)), ["optional", "  optional `x`"]],
  ["star of plus of optional", f.star(f.plus(f.optional(x))), ["star", "  plus", "    optional `x`"]],
  ["repeat of a block", f.repeat(2, 5, f.or(x, seq)), ["repeat 2..5", "  or", "    `x`", "    sequence", "      `a`", "      `b`"]],
  ["optional of a leaf tag", f.optional(f.tag("<a>", x, "</a>")), ["optional tag `<a>` `x` `</a>`"]],
  ["optional of a block tag", f.optional(f.tag("<a>", seq, "</a>")), ["optional", "  tag `<a>` .. `</a>`", "    sequence", "      `a`", "      `b`"]],
  // Tags.
  ["tag as a leaf", f.tag("<a>", f.jsonSchema({ type: "string" }), "</a>"), ["tag `<a>` json(string) `</a>`"]],
  ["tag as a block", f.tag("<a>", seq, "</a>"), ["tag `<a>` .. `</a>`", "  sequence", "    `a`", "    `b`"]],
  ["tag with a wrapper content", f.tag("<a>", f.optional(x), "</a>"), ["tag `<a>` .. `</a>`", "  optional `x`"]],
  ["tag with several ends", f.tag("<a>", f.anyText(), ["</a>", "</A>", ""]), ["tag `<a>` text `</a>` | `</A>` | ``"]],
  ["tag with one end in a list", f.tag("", x, ["</a>"]), ["tag `` `x` `</a>`"]],
  ["tag of a leaf tag", f.tag("<a>", f.tag("<b>", x, "</b>"), "</a>"), ["tag `<a>` tag `<b>` `x` `</b>` `</a>`"]],
  ["tag of a block tag", f.tag("<a>", f.tag("<b>", seq, "</b>"), ["</a>", "</x>"]), ["tag `<a>` .. `</a>` | `</x>`", "  tag `<b>` .. `</b>`", "    sequence", "      `a`", "      `b`"]],
  // Tag lists.
  ["tags_with_separator", f.tagsWithSeparator([f.tag("<a>", x, "</a>")], ","), ["tags_with_separator `,`", "  tag `<a>` `x` `</a>`"]],
  ["tags_with_separator flags", f.tagsWithSeparator([f.tag("<a>", x, "</a>"), f.tag("<b>", seq, "</b>")], "", { at_least_one: true, stop_after_first: true }), [
    "tags_with_separator `` at_least_one stop_after_first", "  tag `<a>` `x` `</a>`", "  tag `<b>` .. `</b>`", "    sequence", "      `a`", "      `b`",
  ]],
  ["tags_with_separator false flags", f.tagsWithSeparator([f.tag("<a>", x, "</a>")], "\n", { at_least_one: false, stop_after_first: false }), ["tags_with_separator `\\n`", "  tag `<a>` `x` `</a>`"]],
  ["tags_with_separator stop_after_first", f.tagsWithSeparator([f.tag("<a>", x, "</a>")], ";", { stop_after_first: true }), ["tags_with_separator `;` stop_after_first", "  tag `<a>` `x` `</a>`"]],
  ["triggered_tags", f.triggeredTags(["<f="], [f.tag("<f=a>", x, "</f>"), f.tag("<f=b>", f.jsonSchema({ type: "object" }), "</f>")]), [
    "triggered_tags [`<f=`]", "  tag `<f=a>` `x` `</f>`", "  tag `<f=b>` json(object) `</f>`",
  ]],
  ["triggered_tags with everything", f.triggeredTags(["<a", "<b"], [f.tag("<a>", x, "</a>"), f.tag("<b>", x, "</b>")], { excludes: ["<c>", "`"], at_least_one: true, stop_after_first: true }), [
    "triggered_tags [`<a`, `<b`] excluding [`<c>`, `\\``] at_least_one stop_after_first", "  tag `<a>` `x` `</a>`", "  tag `<b>` `x` `</b>`",
  ]],
  ["triggered_tags, empty excludes", f.triggeredTags(["<a"], [f.tag("<a>", x, "</a>")], { excludes: [], at_least_one: true }), ["triggered_tags [`<a`] at_least_one", "  tag `<a>` `x` `</a>`"]],
  // dispatch: a block of `on PATTERN` wrappers.
  ["dispatch", f.dispatch([["<f=a>", x], ["<f=b>", seq]]), ["dispatch", "  on `<f=a>` `x`", "  on `<f=b>`", "    sequence", "      `a`", "      `b`"]],
  ["dispatch with options", f.dispatch([["<a>", f.jsonSchema({ type: "object" })]], { loop: false, excludes: ["</r>"] }), ["dispatch excluding [`</r>`] loop=false", "  on `<a>` json(object)"]],
  ["dispatch, default options not printed", f.dispatch([["<a>", x]], { loop: true, excludes: [] }), ["dispatch", "  on `<a>` `x`"]],
  // Token-level formats.
  ["token by id", f.token(42), ["token(42)"]],
  ["token by text", f.token("<|tool|>"), ["token(`<|tool|>`)"]],
  ["exclude_token", f.excludeToken([7, "</s>"]), ["any_token excluding [7, `</s>`]"]],
  ["exclude_token, none excluded", f.excludeToken(), ["any_token"]],
  ["any_tokens", f.anyTokens({ exclude_tokens: ["<|eos|>"], max_tokens: 16 }), ["tokens excluding [`<|eos|>`] max_tokens=16"]],
  ["any_tokens plain", f.anyTokens(), ["tokens"]],
  ["tag with token begin and end", f.tag(f.token("<think>"), f.anyTokens(), f.token(6)), ["tag token(`<think>`) tokens token(6)"]],
  ["tag with a token end around a block", f.tag("<r>", seq, f.token(9)), ["tag `<r>` .. token(9)", "  sequence", "    `a`", "    `b`"]],
  ["token_triggered_tags", f.tokenTriggeredTags([2, "<code>"], [f.tag(f.token(2), x, f.token(4)), f.tag(f.token("<code>"), x, f.token(4))], { exclude_tokens: [16], at_least_one: true }), [
    "token_triggered_tags [2, `<code>`] excluding [16] at_least_one", "  tag token(2) `x` token(4)", "  tag token(`<code>`) `x` token(4)",
  ]],
  ["token_dispatch", f.tokenDispatch([[100, x], ["<|tool|>", f.jsonSchema({ type: "object" })]], { loop: false, exclude_tokens: ["</s>"] }), [
    "token_dispatch excluding [`</s>`] loop=false", "  on token(100) `x`", "  on token(`<|tool|>`) json(object)",
  ]],
  // Nesting depth and indentation.
  ["nested blocks", f.sequence(f.or(f.sequence(x)), x), ["sequence", "  or", "    sequence", "      `x`", "  `x`"]],
];

/** [case, string, quoted] for the outline's string escaping. */
const stringCases: Array<[string, string, string]> = [
  ["plain", "abc", "`abc`"],
  ["empty", "", "``"],
  ["backslash", "a\\b", "`a\\\\b`"],
  ["backtick", "a`b", "`a\\`b`"],
  ["newline", "a\nb", "`a\\nb`"],
  ["carriage return", "\r", "`\\r`"],
  ["tab", "\t", "`\\t`"],
  ["NUL", "\u0000", "`\\u{0}`"],
  ["other C0 controls, lowercase hex", "\u0001\u001b\u001f", "`\\u{1}\\u{1b}\\u{1f}`"],
  ["DEL and C1 controls", "\u007f\u0085\u009f", "`\\u{7f}\\u{85}\\u{9f}`"],
  ["non-ASCII as is", "é中🎉\u00a0\u2028", "`é中🎉\u00a0\u2028`"],
  ["quotes and specials as is", "\"'<|x|>{}$", "`\"'<|x|>{}$`"],
  ["escapes together", "\\`\n", "`\\\\\\`\\n`"],
];

describe("outline printer", () => {
  it.each(nodeCases)("%s", (_name, format, lines) => {
    expect(printOutline(format)).toBe(lines.map((l) => `${l}\n`).join(""));
  });

  it.each(stringCases)("quotes strings: %s", (_name, s, quoted) => {
    expect(quoteOutlineString(s)).toBe(quoted);
    expect(printOutline(f.constString(s))).toBe(`${quoted}\n`);
  });

  it("prints a structural tag as its format", () => {
    expect(printOutline(f.structuralTag(seq))).toBe(printOutline(seq));
    expect(printOutline({ type: "structural_tag", format: { type: "optional", content: { type: "const_string", value: "x" } } })).toBe("optional `x`\n");
  });

  it("escapes every string position: begins, ends, separators, triggers, excludes", () => {
    const tree = f.triggeredTags(["\t`"], [f.tag("\t`a", f.anyText({ excludes: ["\\"] }), ["\n", "\u0007"])], { excludes: ["\r"] });
    expect(printOutline(tree)).toBe("triggered_tags [`\\t\\``] excluding [`\\r`]\n  tag `\\t\\`a` text excluding [`\\\\`] `\\n` | `\\u{7}`\n");
    expect(printOutline(f.tagsWithSeparator([f.tag("é", x, "🎉")], "`"))).toBe("tags_with_separator `\\``\n  tag `é` `x` `🎉`\n");
  });

  it("renders the schema inside json_schema as a type", () => {
    const schema = { type: "object", properties: { tags: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } } } };
    expect(printOutline(f.jsonSchema(schema))).toBe("json({ tags?: (string | number)[] })\n");
  });

  it("validates its input and names the bad path", () => {
    const bad = { type: "sequence", elements: [x, { type: "tag", begin: "a", content: x, end: [] }] } as unknown as Format;
    expect(() => printOutline(bad)).toThrow(FormatError);
    expect(() => printOutline(bad)).toThrow('format.elements[1].end: expected a string, a non-empty list of strings or a token {"type": "token", "token": …}, found an empty array');
  });

  it("reports a schema it cannot render at the json_schema path", () => {
    const bad = { type: "optional", content: { type: "json_schema", json_schema: { type: "object", properties: { a: 5 } } } } as unknown as Format;
    let error: unknown;
    try {
      printOutline(bad);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FormatError);
    expect((error as FormatError).path).toBe("format.content.json_schema");
    expect((error as FormatError).message).toContain("#/properties/a: expected a schema (an object or a boolean), found number 5");
  });

  it("ends every line, the last too, with a newline and starts at column 0", () => {
    const text = printOutline(f.sequence(f.optional(seq), x));
    expect(text.endsWith("\n")).toBe(true);
    expect(text.startsWith("sequence\n")).toBe(true);
    expect(text.split("\n").slice(0, -1).every((l) => /^( {2})*\S/.test(l))).toBe(true);
  });
});

describe("outline golden files", () => {
  const goldens = readdirSync(new URL("corpus/", fixtures)).filter((n) => n.endsWith(".outline"));

  it("has golden outlines to check", () => {
    expect(goldens.length).toBeGreaterThanOrEqual(4);
  });

  it.each(goldens)("%s", (name) => {
    const tag = parseStructuralTag(read(`corpus/${name.replace(/\.outline$/, ".json")}`));
    expect(printOutline(tag)).toBe(read(`corpus/${name}`));
  });
});

describe("seed outlines from hand-built trees", () => {
  it.each(seedNames.map((name) => [seedOutlineName(name), name] as const))("%s", (_file, name) => {
    expect(printOutline(seeds[name])).toBe(seedOutline(name));
  });
});
