/**
 * `excludes` of a `json_schema` format (lib/compile/json-schema/excludes.ts): no JSON string of
 * the document — value or key, at any depth, under any keyword — may hold an excluded string in
 * its text as written between the quotes. Cases from xgrammar's own tests
 * (tests/python/test_json_schema_excludes.py) where tagmask agrees, the documented differences
 * (patterns, formats and pattern-constrained keys are filtered too, lengths are kept), a seeded
 * check against a direct reading of the rule, the refusals, the argument styles' JSON values, and
 * the engine's masks against the reference recognizer on the Llama 3 vocabulary.
 */
import { describe, expect, it } from "vitest";
import { printGrammar } from "../../lib/compile/ir.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { FormatError, GrammarError, InvalidArgumentError, SchemaError } from "../../lib/errors.js";
import type { Format, JsonSchema } from "../../lib/format/types.js";
import { randomWalk, walkTokens } from "../engine/walk.js";
import { rng } from "../helpers/random.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";

const CONTROLS = ["<|open|>", "<|close|>", "<|sep|>"];

const json = (schema: JsonSchema, excludes: string[], extra: Record<string, unknown> = {}): Format =>
  ({ type: "json_schema", json_schema: schema, excludes, ...extra }) as Format;

const str = (value: string): string => JSON.stringify(value);

/** [case, schema, excludes, accepted texts, rejected texts] */
type Case = [string, JsonSchema, string[], string[], string[]];

const CASES: Case[] = [
  // xgrammar: test_string_excludes (style json).
  ["a free string", { type: "string" }, CONTROLS, [str("safe"), str("你好🦋")], CONTROLS.map((c) => str(`x${c}y`))],
  ["a string of any pattern", { type: "string", pattern: "^[\\s\\S]*$" }, CONTROLS, [str("safe"), str("你好🦋")], CONTROLS.map((c) => str(`x${c}y`))],
  ["a string with lengths", { type: "string", minLength: 1, maxLength: 16 }, CONTROLS, [str("safe"), str("你好🦋")], [...CONTROLS.map((c) => str(`x${c}y`)), str("")]],
  ["an enum", { enum: ["safe", "你好🦋", ...CONTROLS.map((c) => `x${c}y`)] }, CONTROLS, [str("safe"), str("你好🦋")], CONTROLS.map((c) => str(`x${c}y`))],
  // xgrammar: test_excludes_match_emitted_string_content_only — the written text, escapes as written.
  ["only strings' text, escapes as written", true, ["ab", ":", "12", "true"], ['{"a":12}', "true", '["a","b"]', '"\\u0061b"', '{"a\\u0062":1}'], ['"ab"', '":"', '"12"', '"true"', '{"ab":1}', '{"x":["ab"]}', '"xxab"']],
  // xgrammar: test_quote_excludes_token_mask_keeps_closing_quote.
  ["a quote: the escape \\\" holds one, \\u0022 does not", { type: "string" }, ['"'], ['""', '"\\u0022"', '"a"'], ['"\\""', '"a\\"b"']],
  ["a backslash: no escape at all", { type: "string" }, ["\\"], ['"a/b"', '""'], ['"\\n"', '"\\u0041"', '"\\/"']],
  // A newline never occurs written in JSON text (it is `\n`); whitespace between tokens is not in a string.
  ["a newline and spaces", { type: "object", additionalProperties: { type: "string" } }, ["\n", " "], ['{ "a" : "x\\ny" }', '{\n"a":"b"\n}'], ['{"a b":"x"}', '{"a":"x y"}']],
  // xgrammar: test_unicode_and_overlapping_excludes.
  ["overlapping and non-ASCII strings", { type: "string" }, ["aba", "bab", "你好", "aba"], [str("ab"), str("你x好"), str("🦋"), str("abba")], [str("aaba"), str("bbab"), str("x你好y")]],
  // xgrammar: test_property_name_excludes (its first three schemas; it leaves pattern-constrained keys unfiltered, tagmask does not).
  ["keys of any object", true, ["bad"], ['{"good":1}'], ['{"bad":1}', '{"xbady":1}']],
  ["additional keys", { type: "object", additionalProperties: true }, ["bad"], ['{"good":1}'], ['{"bad":1}', '{"xbady":1}']],
  ["additional keys beside an empty name", { type: "object", properties: { "": { type: "integer" } }, additionalProperties: true }, ["bad"], ['{"good":1}', '{"":1}'], ['{"bad":1}', '{"xbady":1}']],
  ["keys of patternProperties", { type: "object", patternProperties: { "^[a-z]*$": { type: "integer" } }, additionalProperties: false }, ["bad"], ['{"good":1}'], ['{"bad":1}', '{"xbady":1}']],
  ["keys of propertyNames", { type: "object", propertyNames: { pattern: "^[a-z]*$" }, additionalProperties: { type: "integer" } }, ["bad"], ['{"good":1}'], ['{"bad":1}', '{"xbady":1}']],
  // xgrammar: test_excluded_fixed_key, test_excluded_optional_const_property_can_be_omitted.
  ["a required declared key", { type: "object", properties: { bad: { type: "integer" } }, required: ["bad"], additionalProperties: false }, ["bad"], [], ["{}", '{"bad":1}', '{"你":1}']],
  ["an optional declared key", { type: "object", properties: { bad: { type: "integer" } }, additionalProperties: false }, ["bad"], ["{}"], ['{"bad":1}']],
  ["an optional member whose only value is excluded", { type: "object", properties: { optional: { const: "BAD" }, required: { const: "safe" } }, required: ["required"], additionalProperties: false }, ["BAD"], ['{"required":"safe"}'], ['{"optional":"BAD","required":"safe"}']],
  // xgrammar: test_nested_literal_excludes, test_excluded_literal_branch_preserves_valid_alternative.
  ["objects and arrays among enum values", { enum: [{ text: "BAD" }, { BAD: "text" }, ["BAD"], 42, ["ok"]] }, ["BAD"], ["42", '["ok"]'], ['{"text":"BAD"}', '{"BAD":"text"}', '["BAD"]']],
  ["an anyOf of consts", { anyOf: [{ const: "BAD" }, { const: "safe" }] }, ["BAD"], [str("safe")], [str("BAD"), str("你")]],
  ["a const alone: nothing left", { const: "BAD" }, ["BAD"], [], [str("BAD"), '""']],
  // xgrammar: test_nested_excludes (a $ref'd recursive schema, additional members anywhere).
  [
    "recursive members at any depth",
    {
      type: "object", properties: { value: { $ref: "#/$defs/payload" } }, required: ["value"], additionalProperties: false,
      $defs: { payload: { type: "array", items: { $ref: "#/$defs/node" } }, node: { type: "object", properties: { next: { $ref: "#/$defs/node" } }, additionalProperties: true } },
    },
    CONTROLS,
    ['{"value":[{"next":{"text":"你好","n":42}}]}'],
    ['{"value":[{"next":{"text":"a<|open|>b"}}]}', '{"value":[{"next":{"a<|close|>b":"text"}}]}', '{"value":[{"next":{"deep":[{"x":"<|sep|>"}]}}]}'],
  ],
  // xgrammar: test_excludes_large_open_object.
  [
    "forty declared members and any others",
    { type: "object", properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`customer_${String(i).padStart(3, "0")}_preferred_contact_channel`, { type: "integer" }])), additionalProperties: true },
    CONTROLS,
    ['{"customer_000_preferred_contact_channel":1,"备注":"safe"}'],
    ['{"customer_000_preferred_contact_channel":"wrong type"}', ...CONTROLS.map((c) => `{"extra":"${c}"}`), ...CONTROLS.map((c) => `{"extra${c}":1}`)],
  ],
  ["unique items from an enum", { type: "array", items: { enum: ["a", "BAD", "c"] }, uniqueItems: true }, ["BAD"], ['["a","c"]', "[]"], ['["a","BAD"]', '["a","a"]']],
  // Where tagmask is stricter than xgrammar: a pattern or a format is filtered too, and lengths stay.
  ["a pattern (xgrammar: not filtered)", { type: "string", pattern: "^a[abc]*z$" }, ["bc", "cb"], [str("aabz")], [str("acbz"), str("aab")]],
  ["a non-ASCII pattern (xgrammar: not filtered)", { type: "string", pattern: "^你好[abc]*$" }, ["bc", "cb"], [str("你好aa")], [str("你好bc"), str("hello")]],
  ["an anchored alternative (xgrammar: not filtered)", { type: "string", pattern: "^(BAD|safe)$" }, ["BAD"], [str("safe")], [str("BAD"), str("BA你")]],
  ["a format (xgrammar: not filtered)", { type: "string", format: "email" }, ["bc", "cb"], [str("aa@example.com")], [str("bc@example.com"), str("aa")]],
  ["a format the excludes cannot occur in", { type: "string", format: "date" }, CONTROLS, [str("2024-02-29")], [str("2023-02-29")]],
  ["lengths (xgrammar drops them)", { type: "string", minLength: 2, maxLength: 3 }, ["bc", "cb"], [str("你好"), str("abd")], [str("a"), str("abde"), str("abc")]],
  ["a long maximum length, counted", { type: "string", maxLength: 5000 }, ["<|open|>"], [str("a".repeat(5000)), str("<|op")], [str("a".repeat(5001)), str("x<|open|>")]],
];

describe("excludes with style json: accepted and rejected documents", () => {
  it.each(CASES)("%s", (_name, schema, excludes, accepted, rejected) => {
    const g = lowerFormat(json(schema, excludes));
    for (const text of accepted) expect(isMatch(g, text), `accepts ${text}`).toBe(true);
    for (const text of rejected) expect(isMatch(g, text), `rejects ${text}`).toBe(false);
  });

  it("with any_order, at every depth", () => {
    const schema: JsonSchema = { type: "object", properties: { a: { type: "string" }, b: { type: "object", additionalProperties: { type: "string" } } }, required: ["a"] };
    const g = lowerFormat(json(schema, CONTROLS, { any_order: true }));
    expect(isMatch(g, '{"b":{"k":"v"},"a":"x"}')).toBe(true);
    expect(isMatch(g, '{"b":{"k":"<|sep|>"},"a":"x"}')).toBe(false);
    expect(isMatch(g, '{"a":"x<|open|>"}')).toBe(false);
  });

  it("the same schema beside another without excludes keeps its own (xgrammar: test_excludes_default_and_cache_isolation)", () => {
    const g = lowerFormat({ type: "sequence", elements: [json({ type: "string" }, ["bad"]), json({ type: "string" }, [])] } as Format);
    expect(isMatch(g, '"safe""bad"')).toBe(true);
    expect(isMatch(g, '"bad""safe"')).toBe(false);
    expect(printGrammar(lowerFormat(json({ type: "string" }, [])))).toBe(printGrammar(lowerFormat({ type: "json_schema", json_schema: { type: "string" } })));
  });

  it("compileJsonSchema takes the same option", () => {
    const { grammar } = compileJsonSchema({ type: "object", additionalProperties: { type: "string" } }, { excludes: ["</tool>"] });
    expect(isMatch(grammar, '{"a":"<tool>"}')).toBe(true);
    expect(isMatch(grammar, '{"a":"x</tool>"}')).toBe(false);
    expect(isMatch(grammar, '{"x</tool>":"a"}')).toBe(false);
  });
});

/** A direct reading of the rule: every string token's text, between its quotes, holds no excluded string. */
function stringTexts(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') continue;
    let j = i + 1;
    while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
    out.push(text.slice(i + 1, j));
    i = j;
  }
  return out;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("excludes against a direct reading (seeded)", () => {
  const pieces = ["a", "b", "\\", '"', "u", "0", "4", "n", "é", "\\n", "\\u0061", '\\"'];
  const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const word = (random: () => number, max: number): string => Array.from({ length: Math.floor(random() * (max + 1)) }, () => pick(random, pieces)).join("");

  it.each([
    ["a free string (any escapes)", { type: "string" } as JsonSchema, (s: string) => `"${s}"`, (t: string) => parses(t)],
    // Constrained strings are canonical (JSON.stringify's spelling): one code point, one text.
    ["a string with a maximum length (canonical text)", { type: "string", maxLength: 4 } as JsonSchema, (s: string) => `"${s}"`, (t: string) => parses(t) && JSON.stringify(JSON.parse(t)) === t && [...(JSON.parse(t) as string)].length <= 4],
    ["keys of an open object", { type: "object", additionalProperties: { type: "integer" } } as JsonSchema, (s: string) => `{"${s}":1}`, (t: string) => parses(t)],
  ])("%s", (_name, schema, wrap, valid) => {
    const random = rng(0x5eed13);
    for (let round = 0; round < 12; round++) {
      const excludes = Array.from({ length: 1 + Math.floor(random() * 2) }, () => {
        let w = "";
        while (w === "") w = word(random, 2);
        return w;
      });
      const g = lowerFormat(json(schema, excludes));
      for (let k = 0; k < 25; k++) {
        const text = wrap(word(random, 5));
        const expected = valid(text) && stringTexts(text).every((inside) => !excludes.some((x) => inside.includes(x)));
        expect(isMatch(g, text), `${JSON.stringify(excludes)}: ${text}`).toBe(expected);
      }
    }
  });
});

describe("excludes inside the JSON values of the argument styles", () => {
  const K3 = (k: string, t: string, v: string) => `<|open|>argument key="${k}" type="${t}"<|sep|>${v}<|close|>argument<|sep|>`;

  it("kimi_k3_xml: nested objects and arrays (xgrammar: test_nested_excludes, style kimi_k3_xml)", () => {
    const schema: JsonSchema = {
      type: "object", properties: { value: { $ref: "#/$defs/payload" } }, required: ["value"], additionalProperties: false,
      $defs: { payload: { type: "array", items: { $ref: "#/$defs/node" } }, node: { type: "object", properties: { next: { $ref: "#/$defs/node" } }, additionalProperties: true } },
    };
    const g = lowerFormat(json(schema, CONTROLS, { style: "kimi_k3_xml" }));
    expect(isMatch(g, K3("value", "array", '[{"next": {"text": "你好", "n": 42}}]'))).toBe(true);
    expect(isMatch(g, K3("value", "array", '[{"next": {"text": "a<|open|>b"}}]'))).toBe(false);
    expect(isMatch(g, K3("value", "array", '[{"next": {"a<|close|>b": "text"}}]'))).toBe(false);
  });

  it("qwen_xml: arrays and objects in values are filtered, raw values and names as before", () => {
    const schema: JsonSchema = { type: "object", properties: { city: { type: "string" }, tags: { type: "array", items: { type: "string" } }, where: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] } }, required: ["city"] };
    const g = lowerFormat(json(schema, ["x"], { style: "qwen_xml" }));
    expect(isMatch(g, '<parameter=city>Paris</parameter><parameter=tags>["a", "b"]</parameter><parameter=where>{"lat": 1.5}</parameter>')).toBe(true);
    expect(isMatch(g, '<parameter=city>Paris</parameter><parameter=tags>["a", "xb"]</parameter>')).toBe(false);
    expect(isMatch(g, "<parameter=city>Pxris</parameter>")).toBe(false);
    const noLat = lowerFormat(json(schema, ["lat"], { style: "qwen_xml" }));
    expect(isMatch(noLat, "<parameter=city>Paris</parameter>")).toBe(true);
    expect(isMatch(noLat, '<parameter=city>Paris</parameter><parameter=where>{"lat": 1.5}</parameter>')).toBe(false);
  });
});

describe("refusals", () => {
  it.each([
    ["excluded strings past the budget", json(true, ["x".repeat(2001)]), GrammarError, /^format\.excludes: the excluded strings hold 2001 code points in all, more than the 2000 supported$/],
    ["an empty excluded string (structural tag reader)", json(true, ["a", ""]), FormatError, /^format\.excludes\[1\]: /],
    [
      "a pattern whose product with the excludes is too large",
      json({ type: "string", pattern: "^(?:[bc]*a){700}[bc]*$" }, ["bc".repeat(18)]),
      SchemaError,
      /^#: the string's pattern, crossed with the excluded strings \(excludes\), needs too large an automaton \(over 20000 states\): give fewer or shorter excluded strings, or a simpler pattern \(in format\.json_schema\)$/,
    ],
  ] as const)("%s", (_name, format, type, message) => {
    let error: unknown;
    try {
      lowerFormat(format);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    [["a", ""], /^options\.excludes\[1\]: expected a non-empty string, got ""$/],
    [[1], /^options\.excludes\[0\]: expected a non-empty string, got 1$/],
    ["ab", /^options\.excludes: expected a list of non-empty strings, got string$/],
    [["\ud800"], /^options\.excludes\[0\]: expected well-formed Unicode, found a lone surrogate$/],
  ] as const)("compileJsonSchema: excludes %j", (excludes, message) => {
    expect(() => compileJsonSchema(true, { excludes: excludes as unknown as string[] })).toThrow(InvalidArgumentError);
    expect(() => compileJsonSchema(true, { excludes: excludes as unknown as string[] })).toThrow(message);
  });
});

describe("engine masks equal the reference recognizer's (Llama 3 vocabulary)", () => {
  const vocab = loadTestVocabulary("llama3", { kimiMarkers: true });
  const schema: JsonSchema = {
    type: "object",
    properties: {
      name: { type: "string" },
      tags: { type: "array", items: { type: "string", maxLength: 8 } },
      note: { type: "string", pattern: "^[a-z <>/]*$" },
      kind: { enum: ["plain", "</tool>", "tab"] },
      // Long enough that the matcher counts its length (a counted node over the excludes' automaton).
      memo: { type: "string", maxLength: 300 },
    },
    required: ["name"],
    additionalProperties: { type: "string" },
  };
  const excludes = ["</tool>", "ab", "\\u"];

  it("along an output", () => {
    const grammar = lowerFormat(json(schema, excludes));
    const output = '{"name": "Paris <tool>", "tags": ["x/y", "b a"], "note": "a < b / c", "kind": "plain", "memo": "see </too", "extra": "a\\nb"}';
    expect(isMatch(grammar, output)).toBe(true);
    expect(printGrammar(grammar)).toContain("counted{0,300}");
    const tokens = encodeForTest("llama3", output);
    expect(walkTokens(grammar, compileGrammar(vocab, grammar), vocab.data, tokens, 3)).toBeGreaterThan(0);
  });

  it("kimi_k3_xml: the markers kept out of a nested JSON value, allowed to close the argument", () => {
    const k3Schema: JsonSchema = { type: "object", properties: { value: { type: "object", properties: { text: { type: "string" } }, additionalProperties: { type: "string" } } }, required: ["value"] };
    const grammar = lowerFormat(json(k3Schema, CONTROLS, { style: "kimi_k3_xml" }));
    const output = '<|open|>argument key="value" type="object"<|sep|>{"text": "hi", "k": "<|clo"}<|close|>argument<|sep|>';
    expect(isMatch(grammar, output)).toBe(true);
    expect(isMatch(grammar, output.replace("<|clo", "<|close|>"))).toBe(false);
    const tokens = encodeForTest("llama3", output);
    expect(walkTokens(grammar, compileGrammar(vocab, grammar), vocab.data, tokens, 2)).toBeGreaterThan(0);
  });

  it("on a seeded random walk", () => {
    const grammar = lowerFormat(json(schema, excludes));
    const { compared } = randomWalk(grammar, compileGrammar(vocab, grammar), vocab.data, { steps: 40, seed: 1313, every: 4, structural: 0.3 });
    expect(compared).toBeGreaterThan(0);
  });
});
