import { describe, expect, it } from "vitest";
import { SchemaError } from "../../lib/errors.js";
import { compileJsonSchema, type JsonSchemaOptions } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { GrammarBuilder, lit, seq } from "../../lib/compile/ir.js";
import { lowerJsonSchema } from "../../lib/compile/json-schema/index.js";

type Case = [name: string, schema: unknown, accept: string[], reject: string[], options?: JsonSchemaOptions];

const cases: Case[] = [
  ["true", true, ["1", '"a"', "[]", "{}", '{"a":[1,{"b":null}]}'], ["", "{", "tru"]],
  ["false", false, [], ["1", "null", "{}"]],
  ["type string", { type: "string" }, ['""', '"a\\nb"', '"\\u00e9"'], ["1", "null", '"a'] ],
  ["type integer", { type: "integer" }, ["0", "-12", "1e+21"], ["1.5", '"1"', "01"]],
  ["type list", { type: ["null", "boolean"] }, ["null", "true", "false"], ["0", '""']],
  ["enum", { enum: ["a", 1, null, [1, 2], { x: true }] }, ['"a"', "1", "1.0", "null", "[1,2]", "[1, 2]", '{"x":true}', '{"x": true}'], ['"b"', "2", "[1]", '{"x":false}', '{"x":true,"y":1}']],
  ["const object any order", { const: { a: 1, b: 2 } }, ['{"a":1,"b":2}', '{"b":2,"a":1}'], ['{"a":1}'], { anyOrder: true }],
  ["properties ordered", { type: "object", properties: { a: { type: "integer" }, b: { type: "string" } }, required: ["a"] }, ['{"a":1}', '{"a":1,"b":"x"}', '{"a":1,"c":[]}', '{ "a" : 1 , "b" : "x" }'], ['{}', '{"b":"x","a":1}', '{"a":"1"}', '{"a":1,"a":2}']],
  ["properties any order", { properties: { a: { type: "integer" }, b: { type: "string" } }, required: ["a"], additionalProperties: false }, ['{"a":1}', '{"b":"x","a":1}'], ['{"b":"x"}', '{"a":1,"a":2}', '{"a":1,"c":1}'], { anyOrder: true }],
  ["additionalProperties schema", { properties: { a: { type: "integer" } }, additionalProperties: { type: "boolean" } }, ['{"a":1,"b":true}', '{"x":false}'], ['{"b":1}', '{"a":true}', '{"\\u0061":true}']],
  ["patternProperties", { patternProperties: { "^x": { type: "integer" } }, additionalProperties: false }, ['{"x1":1}', '{}'], ['{"y":1}', '{"x":"s"}']],
  ["array prefix + items", { prefixItems: [{ type: "string" }], items: { type: "integer" }, minItems: 2, maxItems: 3 }, ['["a",1]', '["a",1,2]', '[ "a" , 1 ]'], ['["a"]', '["a",1,2,3]', '[1,1]']],
  ["contains", { contains: { type: "string" }, minContains: 2, maxContains: 2 }, ['["a","b"]', '[1,"a",2,"b"]'], ['["a"]', '["a","b","c"]']],
  ["string length + pattern", { type: "string", pattern: "^[a-z]+$", maxLength: 3 }, ['"abc"', '"a"'], ['"abcd"', '""', '"aB"']],
  ["number range", { type: "number", minimum: 0, exclusiveMaximum: 10 }, ["0", "9.5", "9.999"], ["10", "-1", "10.0"]],
  ["anyOf", { anyOf: [{ type: "string", maxLength: 1 }, { type: "integer", minimum: 5 }] }, ['"a"', "5"], ['"ab"', "4"]],
  ["oneOf overlapping", { oneOf: [{ type: "integer" }, { minimum: 2 }] }, ["1", "2.5", "-3"], ["2", "3"]],
  ["not", { not: { type: "string" } }, ["1", "null"], ['"a"']],
  ["if-then-else", { if: { type: "integer" }, then: { minimum: 0 }, else: { type: "string" } }, ["0", '"a"'], ["-1", "true"]],
  ["recursive $ref", { $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" }, v: { type: "integer" } }, additionalProperties: false } }, $ref: "#/$defs/node" }, ['{"next":{"next":{}}}', '{"next":{"v":2},"v":1}'], ['{"next":1}', '{"x":1}']],
  // A cycle of anyOf branches means its least fixed point: the branches that are not the way round.
  ["anyOf that refers to itself", { $defs: { v: { anyOf: [{ type: "string", maxLength: 2 }, { $ref: "#/$defs/v" }] } }, $ref: "#/$defs/v" }, ['"ab"', '""'], ['"abc"', "1"]],
  ["anyOf cycle through two schemas, each asked for on its own", {
    $defs: { a: { anyOf: [{ type: "integer" }, { $ref: "#/$defs/b" }] }, b: { anyOf: [{ type: "boolean" }, { $ref: "#/$defs/a" }] } },
    type: "array", prefixItems: [{ $ref: "#/$defs/a" }, { $ref: "#/$defs/b" }], items: false,
  }, ["[1,true]", "[true,1]", "[false,false]"], ['[1,"x"]', "[null,1]"]],
  ["anyOf cycle under an intersection", { $defs: { v: { type: "string", anyOf: [{ maxLength: 1 }, { allOf: [{ $ref: "#/$defs/v" }, { minLength: 3 }] }] } }, $ref: "#/$defs/v" }, ['"a"'], ['"abc"', "1"]],
  ["compact whitespace", { type: "array", items: { type: "integer" } }, ["[1,2]"], ["[1, 2]", "[ 1]"], { whitespace: "compact" }],
  ["bounded whitespace", { type: "array", items: { type: "integer" } }, ["[1, 2]", "[ 1]"], ["[1,  2]"], { maxWhitespace: 1 }],
  ["dependentRequired", { dependentRequired: { a: ["b"] } }, ['{"b":1}', '{"a":1,"b":2}', "1"], ['{"a":1}']],
  ["not additionalProperties false (some other key)", { not: { properties: { a: {} }, additionalProperties: false } }, ['{"b":1}', '{"a":1,"b":2}'], ["{}", '{"a":1}', "1"]],
  ["not patternProperties (some matching key breaks it)", { not: { patternProperties: { "^x": { type: "integer" } } } }, ['{"x":"s"}', '{"y":1,"xa":null}'], ['{"x":1}', "{}", '{"y":"s"}', '"str"'], { anyOrder: true }],
  ["not propertyNames (some long key)", { not: { propertyNames: { maxLength: 1 } } }, ['{"ab":1}', '{"a":1,"bc":2}'], ['{"a":1}', "{}"], { anyOrder: true }],
  ["double negation of additionalProperties", { type: "object", not: { not: { additionalProperties: { type: "string" } } } }, ['{"a":"x"}', "{}"], ['{"a":1}', "1"]],
  ["oneOf closed objects", { oneOf: [{ properties: { a: { const: 1 } }, additionalProperties: false }, { properties: { b: {} }, additionalProperties: false }] }, ['{"a":1}', '{"b":true}'], ["{}", '{"a":1,"b":1}', '{"a":2}', "3"], { anyOrder: true }],
  ["format with a length bound it always meets", { type: "string", format: "date", maxLength: 20 }, ['"2020-02-29"'], ['"2021-02-29"', '"x"']],
  ["pattern x maxLength", { type: "string", pattern: "^[a-z]+(-[a-z]+)*@[a-z]+\\.[a-z]{2,}$", maxLength: 12 }, ['"ab@cd.ef"', '"a-b@c.de"'], ['"ab@cd"', '""', '"a-@b.cd"', '"abcdef@fgh.ij"']],
  ["format x maxLength", { type: "string", format: "email", maxLength: 20 }, ['"a@b.c"', '"joe.bloggs@exampl.cc"'], ['"a@"', '"@b"', '"joe.bloggs@example.com"']],
  // No member count fits: no object, and no invalid counted node (min above max) in the IR.
  ["minProperties above maxProperties", { type: "object", minProperties: 5, maxProperties: 3 }, [], ["{}", '{"a":1,"b":2,"c":3,"d":4}']],
  ["minProperties above maxProperties, typeless", { minProperties: 2, maxProperties: 1, additionalProperties: { type: "string" } }, ["1", "[]", '"x"'], ["{}", '{"a":"x"}', '{"a":"x","b":"y"}']],
  ["minLength code points", { type: "string", minLength: 2, maxLength: 2 }, ['"😀😀"', '"ab"', '"\\n\\t"'], ['"😀"', '"abc"']],
  // Too large as a product: the length is counted (a counted node over the format's code points).
  ["format x maxLength, counted", { type: "string", format: "uri", maxLength: 2048 }, [`"https://x.org/${"a".repeat(2030)}"`, '"urn:a"'], [`"https://x.org/${"a".repeat(2040)}"`, '"x"']],
];

describe("compileJsonSchema (table)", () => {
  for (const [name, schema, good, bad, options] of cases) {
    it(name, () => {
      const { grammar } = compileJsonSchema(schema as never, options);
      for (const t of good) expect([t, isMatch(grammar, t)]).toEqual([t, true]);
      for (const t of bad) expect([t, isMatch(grammar, t)]).toEqual([t, false]);
    });
  }
});

describe("refusals", () => {
  const refused: Array<[unknown, string, string]> = [
    [{ type: "array", uniqueItems: true }, "uniqueItems", "#/uniqueItems"],
    [{ properties: { a: { $dynamicRef: "#x" } } }, "$dynamicRef", "#/properties/a/$dynamicRef"],
    [{ $ref: "http://example.com/x.json" }, "$ref", "#/$ref"],
    [{ pattern: "(?=a)" }, "pattern", "#/pattern"],
    // Length bounds whose counts are not one range per state (fixed length, even lengths only).
    [{ properties: { u: { type: "string", pattern: "^(ab)+$", minLength: 10001, maxLength: 10001 } } }, "minLength", "#/properties/u"],
  ];
  it.each(refused)("%j", (schema, keyword, path) => {
    try {
      compileJsonSchema(schema as never);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).keyword).toBe(keyword);
      expect((err as SchemaError).schemaPath).toBe(path);
    }
  });
  it("lenient lists what it left out", () => {
    const { unenforced, grammar } = compileJsonSchema({ type: "array", uniqueItems: true }, { lenient: true });
    expect(unenforced.map((u) => u.keyword)).toEqual(["uniqueItems"]);
    expect(isMatch(grammar, "[1,1]")).toBe(true);
  });
});

describe("inside larger grammars", () => {
  it("a json_schema format lowers through the compiler, strictly, naming the format on refusal", () => {
    const g = lowerFormat({ type: "json_schema", json_schema: { type: "object", properties: { n: { type: "integer", maximum: 3 } }, required: ["n"] }, any_order: true });
    expect(isMatch(g, '{"n":3}')).toBe(true);
    expect(isMatch(g, '{"n":4}')).toBe(false);
    expect(() => lowerFormat({ type: "json_schema", json_schema: { type: "array", items: { type: "string" }, uniqueItems: true } })).toThrow(/uniqueItems .*\(in format\.json_schema\)/);
  });
  it("several schemas share one builder under distinct rule names", () => {
    const b = new GrammarBuilder();
    const a = lowerJsonSchema({ type: "integer" }, b);
    const c = lowerJsonSchema({ type: "string", maxLength: 2 }, b);
    b.define("root", seq(a, lit(" "), c));
    const g = b.build("root");
    expect(isMatch(g, '12 "ab"')).toBe(true);
    expect(isMatch(g, '12 "abc"')).toBe(false);
    expect(new Set(g.rules.map((r) => r.name)).size).toBe(g.rules.length);
  });
  it("bad options and bad schemas are typed errors", () => {
    expect(() => compileJsonSchema({}, { whitespace: "none" as never })).toThrow(/options.whitespace/);
    expect(() => compileJsonSchema({}, { maxWhitespace: -1 })).toThrow(/options.maxWhitespace/);
    expect(() => compileJsonSchema([] as never)).toThrow(SchemaError);
    expect(() => compileJsonSchema({ minLength: "3" })).toThrow(/#\/minLength: expected a non-negative integer/);
    expect(() => compileJsonSchema({ $ref: "#/$defs/missing" })).toThrow(/cannot resolve '#\/\$defs\/missing'/);
    expect(() => compileJsonSchema({ $ref: "#" })).toThrow(/refers to itself/);
    // Cycles that do not pass through anyOf, or pass through a complement, have no meaning to enforce.
    expect(() => compileJsonSchema({ $defs: { v: { allOf: [{ type: "string" }, { $ref: "#/$defs/v" }] } }, $ref: "#/$defs/v" })).toThrow(/refers to itself/);
    expect(() => compileJsonSchema({ $defs: { v: { anyOf: [{ type: "string" }, { not: { $ref: "#/$defs/v" } }] } }, $ref: "#/$defs/v" })).toThrow(/refers to itself/);
    expect(() => compileJsonSchema({ $defs: { v: { oneOf: [{ type: "string" }, { $ref: "#/$defs/v" }] } }, $ref: "#/$defs/v" })).toThrow(/refers to itself/);
  });
});
