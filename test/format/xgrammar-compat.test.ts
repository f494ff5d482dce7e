/**
 * The structural-tag wire form as xgrammar reads it: optional fields given as null, a top level
 * without its type, the legacy `structures`/`triggers` form, format objects without a type, tag
 * begins and ends given as tokens, and the new format types (dispatch and the token-level ones)
 * with xgrammar's validity rules. Each table row is one case and its expected reading or error.
 */
import { describe, expect, it } from "vitest";
import { FormatError } from "../../lib/errors.js";
import * as f from "../../lib/format/build.js";
import { isStructuralTagObject, parseFormat, parseStructuralTag } from "../../lib/format/parse.js";
import { printOutline } from "../../lib/format/outline.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { formatToJSON, stringifyStructuralTag } from "../../lib/format/serialize.js";
import type { Format } from "../../lib/format/types.js";

const X = { type: "const_string", value: "x" };
const tagOf = (begin: unknown, end: unknown, content: unknown = X) => ({ type: "tag", begin, content, end });

function errorOf(run: () => unknown): FormatError {
  try {
    run();
  } catch (e) {
    if (e instanceof FormatError) return e;
    throw new Error(`expected a FormatError, got ${String(e)}`);
  }
  throw new Error("expected a FormatError, nothing was thrown");
}

describe("optional fields given as null are absent", () => {
  // Every optional field of every format type, set to null, reads as the format without it.
  const cases: Array<[string, Record<string, unknown>, Format]> = [
    ["json_schema style, any_order, max_whitespace_cnt", { type: "json_schema", json_schema: true, style: null, any_order: null, max_whitespace_cnt: null }, { type: "json_schema", json_schema: true }],
    ["any_text excludes, max_tokens, max_chars", { type: "any_text", excludes: null, max_tokens: null, max_chars: null }, { type: "any_text" }],
    ["triggered_tags excludes and flags", { type: "triggered_tags", triggers: ["<a"], tags: [tagOf("<a>", "</a>")], excludes: null, at_least_one: null, stop_after_first: null },
      { type: "triggered_tags", triggers: ["<a"], tags: [{ type: "tag", begin: "<a>", content: { type: "const_string", value: "x" }, end: "</a>" }] }],
    ["tags_with_separator flags", { type: "tags_with_separator", tags: [tagOf("<a>", "</a>")], separator: ",", at_least_one: null, stop_after_first: null },
      { type: "tags_with_separator", tags: [{ type: "tag", begin: "<a>", content: { type: "const_string", value: "x" }, end: "</a>" }], separator: "," }],
    ["dispatch loop and excludes", { type: "dispatch", rules: [["<a>", X]], loop: null, excludes: null }, { type: "dispatch", rules: [["<a>", { type: "const_string", value: "x" }]] }],
    ["exclude_token exclude_tokens", { type: "exclude_token", exclude_tokens: null }, { type: "exclude_token" }],
    ["any_tokens exclude_tokens and max_tokens", { type: "any_tokens", exclude_tokens: null, max_tokens: null }, { type: "any_tokens" }],
    ["token_triggered_tags excludes and flags", { type: "token_triggered_tags", trigger_tokens: [1], tags: [tagOf({ type: "token", token: 1 }, "e")], exclude_tokens: null, at_least_one: null, stop_after_first: null },
      { type: "token_triggered_tags", trigger_tokens: [1], tags: [{ type: "tag", begin: { type: "token", token: 1 }, content: { type: "const_string", value: "x" }, end: "e" }] }],
    ["token_dispatch loop and exclude_tokens", { type: "token_dispatch", rules: [[1, X]], loop: null, exclude_tokens: null }, { type: "token_dispatch", rules: [[1, { type: "const_string", value: "x" }]] }],
    ["a tag's type in a tag list", { type: "tags_with_separator", tags: [{ ...tagOf("<a>", "</a>"), type: null }], separator: "" },
      { type: "tags_with_separator", tags: [{ type: "tag", begin: "<a>", content: { type: "const_string", value: "x" }, end: "</a>" }], separator: "" }],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(parseFormat(input)).toStrictEqual(expected);
  });

  it("a null top-level type is absent too", () => {
    expect(parseStructuralTag({ type: null, format: X })).toStrictEqual({ type: "structural_tag", format: X });
  });

  it.each([
    ["const_string value", { type: "const_string", value: null }, "format.value"],
    ["regex pattern", { type: "regex", pattern: null }, "format.pattern"],
    ["tag begin", tagOf(null, "e"), "format.begin"],
    ["token token", { type: "token", token: null }, "format.token"],
    ["token_triggered_tags trigger_tokens", { type: "token_triggered_tags", trigger_tokens: null, tags: [tagOf({ token: 1 }, "e")] }, "format.trigger_tokens"],
  ])("a required field given as null is still missing: %s", (_name, input, path) => {
    const e = errorOf(() => parseFormat(input));
    expect(e.path).toBe(path);
    expect(e.message).toContain("found null");
  });
});

describe("the top level", () => {
  it("may leave out its type", () => {
    expect(parseStructuralTag('{"format": {"type": "const_string", "value": "x"}}')).toStrictEqual({ type: "structural_tag", format: X });
  });

  const legacyTags = [
    { type: "tag", begin: "<function=f>", content: { type: "json_schema", json_schema: { type: "object", properties: { a: { type: "string" } } } }, end: "</function>" },
    { type: "tag", begin: "<function=g>", content: { type: "json_schema", json_schema: { type: "number" } }, end: "</function>" },
  ];
  const legacyFormat = { type: "triggered_tags", triggers: ["<function="], tags: legacyTags };
  const structures = [
    { begin: "<function=f>", schema: { type: "object", properties: { a: { type: "string" } } }, end: "</function>" },
    { begin: "<function=g>", schema: '{"type": "number"}', end: "</function>" },
  ];

  it.each([
    ["structures", { type: "structural_tag", structures, triggers: ["<function="] }],
    ["tags instead of structures", { type: "structural_tag", tags: structures, triggers: ["<function="] }],
    ["without the type", { structures, triggers: ["<function="] }],
  ])("reads the legacy form: %s", (_name, input) => {
    expect(parseStructuralTag(input)).toStrictEqual({ type: "structural_tag", format: legacyFormat });
    expect(parseStructuralTag(JSON.stringify(input))).toStrictEqual({ type: "structural_tag", format: legacyFormat });
  });

  it("writes the legacy form back in the new form", () => {
    const tag = parseStructuralTag({ structures, triggers: ["<function="] });
    expect(JSON.parse(stringifyStructuralTag(tag))).toStrictEqual({ type: "structural_tag", format: legacyFormat });
  });

  it.each([
    ["no triggers", { type: "structural_tag", structures }, "triggers", "missing required field"],
    ["a trigger no tag begins with", { structures, triggers: ["<function=", "<tool"] }, "triggers[1]", "expected a prefix of at least one tag's begin"],
    ["a structure without its schema", { structures: [{ begin: "<a>", end: "</a>" }], triggers: ["<a"] }, "structures[0].schema", "missing required field of a legacy structure"],
    ["a schema that is not JSON", { structures: [{ begin: "<a>", schema: "{type:", end: "</a>" }], triggers: ["<a"] }, "structures[0].schema", "text that is not JSON"],
    ["a begin that is not a string", { structures: [{ begin: 1, schema: {}, end: "</a>" }], triggers: ["<a"] }, "structures[0].begin", "expected a string, found number 1"],
    ["an unknown field in a structure", { structures: [{ begin: "<a>", schema: {}, end: "</a>", ends: [] }], triggers: ["<a"] }, "structures[0].ends", 'unknown field "ends"'],
    ["an unknown top-level field", { structures, triggers: ["<function="], strict: true }, "strict", 'unknown field "strict" in a legacy structural tag'],
    ["both structures and tags", { structures, tags: structures, triggers: ["<function="] }, "tags", 'either "structures" or "tags"'],
    ["structures not a list", { structures: {}, triggers: ["<a"] }, "structures", "expected a list of {begin, schema, end} objects"],
  ])("refuses a bad legacy form: %s", (_name, input, path, words) => {
    const e = errorOf(() => parseStructuralTag(input));
    expect(e.path).toBe(path);
    expect(e.message).toContain(words);
  });
});

describe("structural tags and bare formats told apart", () => {
  it.each([
    [{ type: "structural_tag", format: X }, true],
    [{ format: X }, true],
    [{ type: null, format: X }, true],
    [{ structures: [], triggers: [] }, true],
    [{ tags: [], triggers: ["<a"] }, true],
    [X, false],
    [{ type: "tags_with_separator", tags: [], separator: "" }, false],
    [{ value: "x" }, false],
    ["text", false],
  ])("%j: %s", (input, expected) => {
    expect(isStructuralTagObject(input)).toBe(expected);
  });

  it("lowerFormat and printOutline read a structural tag without its type, and the legacy form", () => {
    const legacy = { structures: [{ begin: "<a>", schema: { type: "integer" }, end: "</a>" }], triggers: ["<a"] };
    expect(isMatch(lowerFormat({ format: X } as never), "x")).toBe(true);
    expect(isMatch(lowerFormat(legacy as never), "hi <a>12</a>")).toBe(true);
    expect(printOutline({ format: { value: "x" } } as never)).toBe("`x`\n");
    expect(printOutline(legacy as never)).toBe("triggered_tags [`<a`]\n  tag `<a>` json(integer) `</a>`\n");
  });
});

describe("format objects without a type", () => {
  // xgrammar tries its format readers in a fixed order; these are the types it can infer.
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["tag", { begin: "<a>", content: X, end: "</a>" }, "tag"],
    ["tag with token begin", { begin: { token: 3 }, content: X, end: "</a>" }, "tag"],
    ["const_string", { value: "x" }, "const_string"],
    ["json_schema", { json_schema: { type: "integer" } }, "json_schema"],
    ["dispatch", { rules: [["<a>", X]] }, "dispatch"],
    ["dispatch with excludes", { rules: [["<a>", X]], excludes: ["<z>"] }, "dispatch"],
    ["token_dispatch (a token id trigger)", { rules: [[7, X]] }, "token_dispatch"],
    ["triggered_tags", { triggers: ["<a"], tags: [tagOf("<a>", "</a>")] }, "triggered_tags"],
    ["tags_with_separator", { tags: [tagOf("<a>", "</a>")], separator: "," }, "tags_with_separator"],
    ["sequence", { elements: [X, { value: "y" }] }, "sequence"],
    ["any_text", { excludes: ["<a>"] }, "any_text"],
    ["optional", { content: X }, "optional"],
    ["repeat", { min: 1, max: 2, content: X }, "repeat"],
  ];
  it.each(cases)("%s", (_name, input, type) => {
    const parsed = parseFormat(input);
    expect(parsed.type).toBe(type);
    expect(parseFormat(formatToJSON(parsed))).toStrictEqual(parsed);
  });

  it.each([
    ["a regex", { pattern: "a+" }],
    ["a token", { token: 3 }],
    ["an empty object", {}],
    ["any_text options without excludes", { max_tokens: 4 }],
  ])("refuses what xgrammar cannot infer either: %s", (_name, input) => {
    const e = errorOf(() => parseFormat(input));
    expect(e.path).toBe("format.type");
    expect(e.message).toContain("missing required field of a format");
  });

  it("reports a bad field of an inferred type at its path", () => {
    const e = errorOf(() => parseFormat({ elements: [X, { value: 3 }] }));
    expect(e.path).toBe("format.elements[1].value");
  });
});

describe("tags with token begins and ends", () => {
  it.each([
    ["token objects", tagOf({ type: "token", token: "<tool>" }, { type: "token", token: 4 }), { type: "token", token: "<tool>" }, { type: "token", token: 4 }],
    ["without the token type", tagOf({ token: 2 }, { token: "</tool>" }), { type: "token", token: 2 }, { type: "token", token: "</tool>" }],
    ["a token begin, string ends", tagOf({ token: 2 }, ["a", "b"]), { type: "token", token: 2 }, ["a", "b"]],
  ])("%s", (_name, input, begin, end) => {
    const tag = parseFormat(input);
    expect(tag).toStrictEqual({ type: "tag", begin, content: X, end });
  });

  it.each([
    ["a begin object of another type", tagOf({ type: "const_string", value: "<a>" }, "e"), "format.begin.type", 'expected "token"'],
    ["a negative id", tagOf({ token: -1 }, "e"), "format.begin.token", "expected a token id (an integer from 0 to 2147483647)"],
    ["a fractional id", tagOf("b", { token: 1.5 }), "format.end.token", "found number 1.5"],
    ["an id beyond 2^31-1", tagOf("b", { token: 2 ** 31 }), "format.end.token", "an integer from 0 to 2147483647"],
    ["an empty token text", tagOf({ token: "" }, "e"), "format.begin.token", "non-empty token text"],
    ["an extra field", tagOf({ token: 1, special: true }, "e"), "format.begin.special", 'unknown field "special" in a token'],
    ["a token begin in triggered_tags", { type: "triggered_tags", triggers: ["<a"], tags: [tagOf({ token: 1 }, "e")] }, "format.tags[0].begin", "use token_triggered_tags"],
  ])("refuses %s", (_name, input, path, words) => {
    const e = errorOf(() => parseFormat(input));
    expect(e.path).toBe(path);
    expect(e.message).toContain(words);
  });
});

describe("xgrammar's validity rules", () => {
  const anyText = { type: "any_text" };
  it.each([
    ["unlimited content with only an empty end", tagOf("<a>", "", anyText), "format.end", "expected at least one non-empty end string"],
    ["unlimited content with only empty ends", tagOf("<a>", ["", ""], { type: "star", content: X }), "format.end", "can go on without bound"],
    ["an unlimited element in a sequence", tagOf("<a>", "", { type: "sequence", elements: [X, anyText] }), "format.end", "non-empty end string"],
    ["a tag begin that starts with two triggers", { type: "triggered_tags", triggers: ["<a", "<"], tags: [tagOf("<a>", "</a>")] }, "format.tags[0].begin", "exactly one trigger"],
    ["an empty dispatch", { type: "dispatch", rules: [] }, "format.rules", "non-empty list of [pattern, format] pairs"],
    ["a dispatch rule of three", { type: "dispatch", rules: [["<a>", X, X]] }, "format.rules[0]", "an array of two"],
    ["an empty dispatch pattern", { type: "dispatch", rules: [["", X]] }, "format.rules[0][0]", "non-empty string"],
    ["a dispatch pattern that is excluded", { type: "dispatch", rules: [["<a>", X]], excludes: ["<a>"] }, "format.rules[0][0]", "not in excludes"],
    ["a token_dispatch token that is excluded", { type: "token_dispatch", rules: [["<t>", X]], exclude_tokens: ["<t>"] }, "format.rules[0][0]", "not in exclude_tokens"],
    ["a token_dispatch rule with a float", { type: "token_dispatch", rules: [[1.5, X]] }, "format.rules[0][0]", "token id"],
    ["no trigger tokens", { type: "token_triggered_tags", trigger_tokens: [], tags: [tagOf({ token: 1 }, "e")] }, "format.trigger_tokens", "non-empty list of token ids"],
    ["a string begin in token_triggered_tags", { type: "token_triggered_tags", trigger_tokens: [1], tags: [tagOf("<a>", "e")] }, "format.tags[0].begin", "use triggered_tags"],
    ["a begin token that is no trigger", { type: "token_triggered_tags", trigger_tokens: [1, 2], tags: [tagOf({ token: 3 }, "e")] }, "format.tags[0].begin.token", "expected one of the trigger tokens [1, 2]"],
    ["a trigger token no tag begins with", { type: "token_triggered_tags", trigger_tokens: ["<a>", "<b>"], tags: [tagOf({ token: "<a>" }, "e")] }, "format.trigger_tokens[1]", "begins at least one tag"],
    ["a trigger token that is excluded", { type: "token_triggered_tags", trigger_tokens: [1], exclude_tokens: [1], tags: [tagOf({ token: 1 }, "e")] }, "format.trigger_tokens[0]", "not in exclude_tokens"],
    ["an exclude list with a bad entry", { type: "any_tokens", exclude_tokens: [1, true] }, "format.exclude_tokens[1]", "found boolean true"],
    ["max_tokens beyond 2^31-1", { type: "any_tokens", max_tokens: 2 ** 31 }, "format.max_tokens", "at most 2147483647"],
    ["an empty regex", { type: "regex", pattern: "" }, "format.pattern", "non-empty string"],
    ["a repeat minimum beyond 2^31-1", { type: "repeat", min: 2 ** 31, max: -1, content: X }, "format.min", "at most 2147483647"],
  ])("refuses %s", (_name, input, path, words) => {
    const e = errorOf(() => parseFormat(input));
    expect(e.path).toBe(path);
    expect(e.message).toContain(words);
  });

  it.each([
    ["unlimited content with a non-empty end among empty ones", tagOf("<a>", ["", "</a>"], anyText)],
    ["unlimited content with excludes of its own", tagOf("<a>", "", { type: "any_text", excludes: ["<"] })],
    ["unlimited content ended by a token", tagOf("<a>", { token: 1 }, anyText)],
    ["bounded content with an empty end", tagOf("<a>", "", { type: "json_schema", json_schema: { type: "object" } })],
    ["a sequence whose only unlimited element has excludes", tagOf("<a>", "", { type: "sequence", elements: [X, { type: "any_text", excludes: ["<"] }] })],
    ["repeat with max 0 of unlimited content", tagOf("<a>", "", { type: "repeat", min: 0, max: 0, content: anyText })],
    ["mixed token kinds (left to the compiler)", { type: "token_triggered_tags", trigger_tokens: [1], tags: [tagOf({ token: "<a>" }, "e")] }],
  ])("accepts %s", (_name, input) => {
    expect(() => parseFormat(input)).not.toThrow();
  });
});

describe("repeat bounds as xgrammar reads them", () => {
  it("a maximum beyond 2^31-1 is unbounded", () => {
    expect(parseFormat({ type: "repeat", min: 1, max: 2 ** 33, content: X })).toStrictEqual({ type: "repeat", min: 1, max: -1, content: X });
    expect(parseFormat({ type: "repeat", min: 1, max: 2 ** 31 - 1, content: X })).toStrictEqual({ type: "repeat", min: 1, max: 2 ** 31 - 1, content: X });
  });
});

describe("the new format types round-trip", () => {
  const trees: Format[] = [
    f.dispatch([["<a>", f.constString("x")], ["<b>", f.anyText()]], { loop: false, excludes: ["</r>"] }),
    f.token(5),
    f.token("<|tool|>"),
    f.excludeToken([1, "</s>"]),
    f.anyTokens({ exclude_tokens: ["<e>"], max_tokens: 3 }),
    f.tokenTriggeredTags([2], [f.tag(f.token(2), f.anyTokens(), f.token(4))], { exclude_tokens: [16], at_least_one: true, stop_after_first: true }),
    f.tokenDispatch([[3, f.constString("x")], ["<t>", f.token(9)]], { loop: true, exclude_tokens: [] }),
  ];
  it.each(trees.map((t) => [t.type, t] as const))("%s", (_name, tree) => {
    const json = formatToJSON(tree);
    expect(parseFormat(JSON.parse(JSON.stringify(json)))).toStrictEqual(tree);
  });
});
