/**
 * The json_schema argument styles (lib/compile/styles): the lowered grammar of each style on a
 * schema covering strings, enums, integers, nullable strings, arrays and nested objects (IR
 * goldens), which texts it accepts and rejects (xgrammar's own examples among them, and where
 * tagmask is stricter), the refusals, the legacy qwen_xml_parameter and excludes; and the
 * engine's masks against the reference recognizer along an output of each style on the Llama 3
 * vocabulary.
 */
import { describe, expect, it } from "vitest";
import { printGrammar } from "../../../lib/compile/ir.js";
import { lowerFormat } from "../../../lib/compile/lower.js";
import { isMatch } from "../../../lib/compile/recognizer.js";
import { compileGrammar } from "../../../lib/engine/compiled-grammar.js";
import { FormatError, GrammarError, SchemaError } from "../../../lib/errors.js";
import { parseStructuralTag } from "../../../lib/format/parse.js";
import type { Format, JsonSchema } from "../../../lib/format/types.js";
import { walkTokens } from "../../engine/walk.js";
import { encodeForTest, loadTestVocabulary } from "../../helpers/vocab.js";
import { expectGolden } from "../golden.js";

const SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    city: { type: "string" },
    unit: { enum: ["c", "f"] },
    days: { type: "integer", minimum: 1, maximum: 9 },
    note: { type: ["string", "null"], maxLength: 8 },
    tags: { type: "array", items: { type: "string" } },
    where: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] },
  },
  required: ["city"],
};

const styled = (style: string, schema: JsonSchema = SCHEMA, extra: Record<string, unknown> = {}): Format =>
  ({ type: "json_schema", json_schema: schema, style, ...extra }) as Format;

const STYLES = ["qwen_xml", "minimax_xml", "deepseek_xml", "glm_xml", "kimi_k3_xml", "cohere_xml"] as const;

describe("lowered grammars (IR goldens)", () => {
  it.each(STYLES)("%s", (style) => {
    expectGolden(`styles/${style}.ir`, printGrammar(lowerFormat(styled(style))));
  });
  it("minimax_m3_xml", () => {
    const schema = { type: "object", properties: { city: { type: "string" }, days: { type: "integer" }, tags: { type: "array", items: { type: "string" } } }, required: ["city"], additionalProperties: false };
    expectGolden("styles/minimax_m3_xml.ir", printGrammar(lowerFormat(styled("minimax_m3_xml", schema))));
  });
});

const DS = (k: string, flag: string, v: string) => `<｜DSML｜parameter name="${k}" string="${flag}">${v}</｜DSML｜parameter>`;
const K3 = (k: string, t: string, v: string) => `<|open|>argument key="${k}" type="${t}"<|sep|>${v}<|close|>argument<|sep|>`;
const CO = (k: string, t: string, v: string) => `<cofl:value name="${k}" type="${t}">${v}</cofl:value>`;
const M3 = (k: string, v: string) => `]<]minimax[>[<${k}>${v}]<]minimax[>[</${k}>`;

describe("accepted and rejected texts", () => {
  it.each([
    // qwen_xml: values on their own lines or bare; the template's form and xgrammar's test form.
    ["qwen_xml", "<parameter=city>\nParis\n</parameter>\n", true],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=days>3</parameter>", true],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=days>\n3\n</parameter>", true],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=days>12</parameter>", false],
    ["qwen_xml", "<parameter=days>3</parameter>", false],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=unit>c</parameter>", true],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=unit>k</parameter>", false],
    ["qwen_xml", "<parameter=city>a</parameter></parameter>", false],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=note>null</parameter>", true],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=note>abcdefghi</parameter>", false],
    ["qwen_xml", '<parameter=city>Paris</parameter><parameter=tags>["a", "</parameter>"]</parameter>', true],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=where>{\"lat\": 1.5}</parameter>", true],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=where>{}</parameter>", false],
    ["qwen_xml", "<parameter=city>Paris</parameter><parameter=extra>1</parameter>", false],
    ["qwen_xml", "<parameter=unit>c</parameter><parameter=city>Paris</parameter>", false],
    // minimax_xml
    ["minimax_xml", '<parameter name="city">Paris</parameter>\n<parameter name="days">3</parameter>', true],
    ["minimax_xml", "<parameter=city>Paris</parameter>", false],
    // deepseek_xml: the flag is pinned to the value's kind (xgrammar accepts either).
    ["deepseek_xml", DS("city", "true", "Paris") + DS("days", "false", "3"), true],
    ["deepseek_xml", DS("city", "false", "Paris"), false],
    ["deepseek_xml", DS("city", "true", "Paris") + DS("days", "true", "3"), false],
    ["deepseek_xml", "<parameter=city>Bob</parameter>", false],
    // glm_xml, with and without GLM-4.5's newlines.
    ["glm_xml", "<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key><arg_value>3</arg_value>", true],
    ["glm_xml", "<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n", true],
    ["glm_xml", '<parameter name="city">Paris</parameter>', false],
    // kimi_k3_xml: one tag per type.
    ["kimi_k3_xml", K3("city", "string", "Paris") + K3("days", "number", "3") + K3("note", "null", "null"), true],
    ["kimi_k3_xml", K3("city", "string", "Paris") + K3("note", "string", "hi"), true],
    ["kimi_k3_xml", K3("city", "number", "3"), false],
    // cohere_xml: nested values.
    ["cohere_xml", CO("city", "raw", "Paris") + CO("tags", "list", '<cofl:value type="raw">a</cofl:value><cofl:value type="raw">b</cofl:value>') + CO("where", "dict", CO("lat", "json", "1.5")), true],
    ["cohere_xml", CO("city", "json", '"Paris"'), false],
    ["cohere_xml", CO("city", "raw", "Paris") + CO("where", "dict", ""), false],
  ] as const)("%s: %j → %s", (style, text, accepted) => {
    expect(isMatch(lowerFormat(styled(style)), text)).toBe(accepted);
  });

  it("minimax_m3_xml: elements, item elements, scalars as JSON text", () => {
    const schema = { type: "object", properties: { city: { type: "string" }, days: { type: "integer" }, tags: { type: "array", items: { type: "string" } } }, required: ["city"], additionalProperties: false };
    const g = lowerFormat(styled("minimax_m3_xml", schema));
    expect(isMatch(g, `${M3("city", "Paris")}\n${M3("days", "3")}${M3("tags", M3("item", "a") + M3("item", "b"))}`)).toBe(true);
    expect(isMatch(g, M3("days", "3"))).toBe(false);
    expect(isMatch(g, M3("city", "Pa]<]minimax[>[ris"))).toBe(false);
  });

  it("unconstrained arguments: free keys with any value; numbers written raw are numbers (untagged styles)", () => {
    const g = lowerFormat(styled("qwen_xml", true));
    expect(isMatch(g, "<parameter=name>\nvalue\n</parameter>")).toBe(true);
    expect(isMatch(g, "<parameter=abc>\n[1, 2, 3]\n</parameter>")).toBe(true);
    expect(isMatch(g, '<parameter=cdef>\n{"name": "Tom"}\n</parameter>')).toBe(true);
    expect(isMatch(g, "anything")).toBe(false);
    // `{` starts JSON where objects are allowed: an unbalanced brace is no string.
    expect(isMatch(g, "<parameter=x>{oops</parameter>")).toBe(false);
  });

  it("minProperties / maxProperties count the arguments (xgrammar's deepseek_xml example)", () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, age: { type: "integer" }, ID: { type: "integer" }, is_student: { type: "boolean" } },
      maxProperties: 3, minProperties: 2,
    };
    const g = lowerFormat(styled("deepseek_xml", schema));
    expect(isMatch(g, DS("age", "false", "25"))).toBe(false);
    expect(isMatch(g, DS("name", "true", "Bob") + DS("age", "false", "25"))).toBe(true);
    expect(isMatch(g, DS("name", "true", "Bob") + DS("ID", "false", "123456") + DS("is_student", "false", "true"))).toBe(true);
    expect(isMatch(g, DS("name", "true", "John") + DS("age", "false", "1") + DS("ID", "false", "1") + DS("is_student", "false", "false"))).toBe(false);
    const open = lowerFormat(styled("qwen_xml", { type: "object", minProperties: 2, maxProperties: 2 }));
    expect(isMatch(open, "<parameter=a>1</parameter>")).toBe(false);
    expect(isMatch(open, "<parameter=a>1</parameter><parameter=b>2</parameter>")).toBe(true);
    expect(isMatch(open, "<parameter=a>1</parameter><parameter=b>2</parameter><parameter=c>3</parameter>")).toBe(false);
  });

  it("a raw string too long to cross with the markers has its length counted (qwen_xml's framing newlines too)", () => {
    const g = lowerFormat(styled("qwen_xml", { type: "object", properties: { q: { type: "string", minLength: 2, maxLength: 5000 } }, required: ["q"] }));
    const call = (v: string) => `<parameter=q>${v}</parameter>`;
    expect(isMatch(g, call("ab"))).toBe(true);
    expect(isMatch(g, call(`\n${"x".repeat(5000)}\n`))).toBe(true);
    expect(isMatch(g, call("x".repeat(5000)))).toBe(true);
    expect(isMatch(g, call("x".repeat(5001)))).toBe(false);
    expect(isMatch(g, call("a"))).toBe(false);
    expect(isMatch(g, call("\na"))).toBe(false);
    expect(isMatch(g, call("a</parameter>b"))).toBe(false);
  });

  it("additionalProperties: free names minus the declared ones", () => {
    const g = lowerFormat(styled("qwen_xml", { type: "object", properties: { a: { type: "integer" } }, additionalProperties: { type: "string" } }));
    expect(isMatch(g, "<parameter=a>1</parameter><parameter=b>x</parameter>")).toBe(true);
    expect(isMatch(g, "<parameter=a>1</parameter><parameter=a>x</parameter>")).toBe(false);
  });

  it("excludes keep strings out of raw values and names", () => {
    const g = lowerFormat(styled("minimax_xml", { type: "object", properties: { v: { type: "string" } }, required: ["v"] }, { excludes: ["BAD"] }));
    expect(isMatch(g, '<parameter name="v">你好</parameter>')).toBe(true);
    expect(isMatch(g, '<parameter name="v">xBADy</parameter>')).toBe(false);
  });

  it("excludes keep strings out of the JSON objects and arrays in values too", () => {
    const g = lowerFormat(styled("qwen_xml", SCHEMA, { excludes: ["x"] }));
    expect(isMatch(g, '<parameter=city>Paris</parameter><parameter=tags>["a"]</parameter>')).toBe(true);
    expect(isMatch(g, '<parameter=city>Paris</parameter><parameter=tags>["ax"]</parameter>')).toBe(false);
  });

  it("a root const or enum fixes the arguments whole: each listed object, its members in order", () => {
    const g = lowerFormat(styled("qwen_xml", { enum: [{ city: "Paris", days: 3 }, { city: "Rome" }, "not arguments"] }));
    expect(isMatch(g, "<parameter=city>Paris</parameter><parameter=days>3</parameter>")).toBe(true);
    expect(isMatch(g, "<parameter=city>\nRome\n</parameter>\n")).toBe(true);
    for (const t of ["<parameter=city>Rome</parameter><parameter=days>3</parameter>", "<parameter=city>Paris</parameter>", "<parameter=city>Paris</parameter><parameter=days>4</parameter>", "<parameter=city>Oslo</parameter>", ""]) {
      expect(isMatch(g, t), t).toBe(false);
    }
    const k = lowerFormat(styled("kimi_k3_xml", { type: "object", const: { 'quo"ted': "safe", n: null } }, { excludes: ['"'] }));
    expect(isMatch(k, K3("quo&quot;ted", "string", "safe") + K3("n", "null", "null"))).toBe(true);
    expect(isMatch(k, K3("quo&quot;ted", "string", "safe"))).toBe(false);
  });

  it("nested styles: an anyOf or oneOf of objects and arrays is one markup body per branch", () => {
    const point = { type: "object", properties: { x: { type: "integer" } }, required: ["x"], additionalProperties: false };
    const pair = { type: "array", items: { type: "integer" }, minItems: 2, maxItems: 2 };
    const named = { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false };
    const args = (value: JsonSchema) => ({ type: "object", properties: { v: value }, required: ["v"], additionalProperties: false });
    const item = (v: string) => `<cofl:value type="json">${v}</cofl:value>`;
    const oneOf = lowerFormat(styled("cohere_xml", args({ oneOf: [point, pair, { type: "string", maxLength: 2 }] })));
    for (const [text, ok] of [
      [CO("v", "dict", CO("x", "json", "1")), true],
      [CO("v", "list", item("1") + item("2")), true],
      [CO("v", "raw", "ab"), true],
      [CO("v", "raw", "abc"), false],
      [CO("v", "list", item("1")), false],
      [CO("v", "list", CO("x", "json", "1")), false],
      [CO("v", "dict", item("1") + item("2")), false],
    ] as const) expect(isMatch(oneOf, text), text).toBe(ok);
    const anyOf = lowerFormat(styled("cohere_xml", args({ type: "object", anyOf: [point, named] })));
    for (const [text, ok] of [
      [CO("v", "dict", CO("x", "json", "1")), true],
      [CO("v", "dict", CO("name", "raw", "a")), true],
      [CO("v", "dict", CO("x", "json", "1") + CO("name", "raw", "a")), false],
    ] as const) expect(isMatch(anyOf, text), text).toBe(ok);
    const m3 = lowerFormat(styled("minimax_m3_xml", args({ anyOf: [point, { type: "integer" }] })));
    expect(isMatch(m3, M3("v", M3("x", "1")))).toBe(true);
    expect(isMatch(m3, M3("v", "7"))).toBe(true);
    expect(isMatch(m3, M3("v", M3("name", "a")))).toBe(false);
  });

  it("root patternProperties: names matching a pattern take its values, under every pattern they match", () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, metric_x: { maximum: 5 } },
      patternProperties: { "^metric_": { type: "number" }, "_hot$": { type: "boolean" }, "^q": { type: "integer" } },
      additionalProperties: false,
    };
    const q = (k: string, v: string) => `<parameter=${k}>${v}</parameter>`;
    const g = lowerFormat(styled("qwen_xml", schema));
    for (const [text, ok] of [
      [q("name", "w") + q("metric_cpu", "0.5"), true],
      [q("metric_x", "5"), true],
      [q("metric_x", "6"), false], // declared and matched: both schemas
      [q("metric_x", "x"), false],
      [q("metric_cpu", "fast"), false],
      [q("flag_hot", "true"), true],
      [q("metric_hot", "true"), false], // two patterns: a number and a boolean at once
      [q("other", "1"), false],
      [q("q1", "2") + q("q1", "3"), true],
      [q("q1", "2.5"), false],
    ] as const) expect(isMatch(g, text), text).toBe(ok);
    // Open: the names no pattern matches take additionalProperties.
    const open = lowerFormat(styled("qwen_xml", { ...schema, additionalProperties: { type: "string", maxLength: 2 } }));
    expect(isMatch(open, q("other", "ab"))).toBe(true);
    expect(isMatch(open, q("other", "abc"))).toBe(false);
    expect(isMatch(open, q("metric_cpu", "ab"))).toBe(false);
    // Kimi K3 writes the names escaped; patterns read them decoded.
    const k3 = lowerFormat(styled("kimi_k3_xml", { type: "object", patternProperties: { '^a&"b$': { type: "integer" }, "^c": { type: "string" } }, additionalProperties: false }));
    expect(isMatch(k3, K3("a&amp;&quot;b", "number", "1"))).toBe(true);
    expect(isMatch(k3, K3('a&"b', "number", "1"))).toBe(false);
    expect(isMatch(k3, K3("c&quot;", "string", "x") + K3("c&amp;d", "string", "y"))).toBe(true);
    expect(isMatch(k3, K3("c&quot;", "number", "1"))).toBe(false);
  });

  it("qwen_xml_parameter (xgrammar's deprecated form) loads as json_schema with style qwen_xml", () => {
    const tag = parseStructuralTag({ type: "structural_tag", format: { type: "qwen_xml_parameter", json_schema: { type: "object", properties: { a: { type: "string" } } } } });
    expect(tag.format).toEqual({ type: "json_schema", json_schema: { type: "object", properties: { a: { type: "string" } } }, style: "qwen_xml" });
    expect(isMatch(lowerFormat(tag), "<parameter=a>x</parameter>")).toBe(true);
  });
});

describe("refusals", () => {
  it.each([
    ["a root keyword the tags cannot carry", styled("qwen_xml", { type: "object", propertyNames: { maxLength: 3 } }), SchemaError, /root keyword "propertyNames"/],
    ["a patternProperties pattern that cannot be enforced", styled("qwen_xml", { type: "object", patternProperties: { "(?=a)": {} } }), SchemaError, /#\/patternProperties\/\(\?=a\): the pattern cannot be enforced/],
    ["a non-object root", styled("glm_xml", { type: "string" }), SchemaError, /must describe an object/],
    ["any_order with a nested style", styled("cohere_xml", SCHEMA, { any_order: true }), GrammarError, /any_order/],
    ["any_order with maxProperties and required arguments", styled("qwen_xml", { ...SCHEMA, maxProperties: 2 }, { any_order: true }), SchemaError, /any_order with maxProperties/],
    ["a root keyword beside a root enum", styled("qwen_xml", { enum: [{ a: "x" }], required: ["a"] }), SchemaError, /root keyword "required" beside "enum"/],
    ["a name the style cannot write", styled("qwen_xml", { type: "object", properties: { "a>b": { type: "string" } } }), SchemaError, /cannot be written/],
    ["MiniMax M3 additional properties", styled("minimax_m3_xml", { type: "object", properties: { a: { type: "string" } }, additionalProperties: true }), SchemaError, /fixed element names/],
    ["an unknown style", styled("yaml_xml"), FormatError, /unknown argument style "yaml_xml"/],
    [
      "oneOf with two object branches in a nested style",
      styled("cohere_xml", { type: "object", properties: { v: { oneOf: [{ type: "object", properties: { a: {} }, additionalProperties: false }, { type: "object", properties: { b: {} }, additionalProperties: false }] } } }),
      SchemaError,
      /#\/properties\/v\/oneOf: .*several branches of oneOf allow an object/,
    ],
  ] as const)("%s", (_what, format, type, message) => {
    let error: unknown;
    try {
      lowerFormat(format);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
  });
});

describe("engine masks equal the reference recognizer's (Llama 3 vocabulary)", () => {
  const vocab = loadTestVocabulary("llama3", { kimiMarkers: true });
  it.each([
    ["qwen_xml", "<parameter=city>\nParis\n</parameter>\n<parameter=note>\nnull\n</parameter>\n<parameter=tags>\n[\"a\"]\n</parameter>\n"],
    ["deepseek_xml", DS("city", "true", "Oslo") + "\n" + DS("days", "false", "3")],
    ["glm_xml", "<arg_key>city</arg_key><arg_value>Rome</arg_value><arg_key>where</arg_key><arg_value>{\"lat\": 2}</arg_value>"],
    ["kimi_k3_xml", K3("city", "string", "Paris") + K3("unit", "string", "f")],
    ["cohere_xml", CO("city", "raw", "Paris") + CO("tags", "list", '<cofl:value type="raw">x</cofl:value>')],
  ] as const)("%s", (style, output) => {
    const grammar = lowerFormat(styled(style));
    expect(isMatch(grammar, output)).toBe(true);
    const tokens = encodeForTest("llama3", output);
    expect(walkTokens(grammar, compileGrammar(vocab, grammar), vocab.data, tokens, 5)).toBeGreaterThan(0);
  });

  it("any_order: arguments in another order, each at most once, the required ones present", () => {
    const schema = { type: "object", properties: { a: { type: "integer" }, b: { type: "string" }, c: { type: "boolean" } }, required: ["a", "b"], additionalProperties: false };
    const grammar = lowerFormat(styled("qwen_xml", schema, { any_order: true }));
    const p = (k: string, v: string) => `<parameter=${k}>${v}</parameter>`;
    for (const ok of [p("b", "x") + p("c", "true") + "\n" + p("a", "1"), p("a", "1") + p("b", "x")]) {
      expect(isMatch(grammar, ok), ok).toBe(true);
      expect(walkTokens(grammar, compileGrammar(vocab, grammar), vocab.data, encodeForTest("llama3", ok), 5)).toBeGreaterThan(0);
    }
    for (const bad of [p("b", "x"), p("a", "1") + p("b", "x") + p("a", "2"), p("a", "1") + p("b", "x") + p("d", "3")]) expect(isMatch(grammar, bad), bad).toBe(false);
  });
});
