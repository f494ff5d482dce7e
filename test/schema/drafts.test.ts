/**
 * Drafts: `$schema` (or the `draft` option when there is none) decides which keywords exist — one
 * the draft does not define is an annotation — and whether `$ref` replaces its siblings.
 */
import { describe, expect, it } from "vitest";
import { InvalidArgumentError, SchemaError } from "../../lib/errors.js";
import { compileJsonSchema, type JsonSchemaOptions } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";

const D7 = "http://json-schema.org/draft-07/schema#";
const D6 = "http://json-schema.org/draft-06/schema#";
const D4 = "http://json-schema.org/draft-04/schema#";
const D2019 = "https://json-schema.org/draft/2019-09/schema";
const D2020 = "https://json-schema.org/draft/2020-12/schema";

type Case = [name: string, schema: unknown, accept: string[], reject: string[], options?: JsonSchemaOptions];

const cases: Case[] = [
  ["draft-07: prefixItems is an annotation", { $schema: D7, prefixItems: [{ type: "string" }], items: { type: "integer" } }, ["[1]", "[]"], ['["a"]']],
  ["2020-12: the same schema's prefixItems applies", { prefixItems: [{ type: "string" }], items: { type: "integer" } }, ['["a"]', '["a",1]'], ["[1]"]],
  ["draft-07 by option, no $schema", { prefixItems: [{ type: "string" }], items: { type: "integer" } }, ["[1]"], ['["a"]'], { draft: "draft-07" }],
  ["$schema wins over the option", { $schema: D2020, prefixItems: [{ type: "string" }] }, ['["a"]'], ["[1]"], { draft: "draft-07" }],
  ["draft-07: minContains is an annotation", { $schema: D7, contains: { const: 1 }, minContains: 2 }, ["[1]"], ["[2]"]],
  ["2019-09: minContains counts", { $schema: D2019, contains: { const: 1 }, minContains: 2 }, ["[1,1]"], ["[1]"]],
  ["2019-09: prefixItems is an annotation, array items is the tuple", { $schema: D2019, prefixItems: [{ type: "string" }], items: [{ type: "integer" }], additionalItems: false }, ["[1]"], ['["a"]', "[1,2]"]],
  ["draft-07: array items and additionalItems", { $schema: D7, items: [{ type: "string" }], additionalItems: { type: "integer" } }, ['["a",1,2]'], ['["a","b"]', "[1]"]],
  ["no $schema: array items and additionalItems keep their draft-07 meaning", { items: [{ type: "string" }], additionalItems: false }, ['["a"]'], ['["a",1]']],
  ["draft-07: dependentRequired is an annotation, dependencies applies", { $schema: D7, dependentRequired: { a: ["b"] }, dependencies: { c: ["d"] } }, ['{"a":1}', '{"c":1,"d":2}'], ['{"c":1}']],
  ["draft-06: if/then/else are annotations", { $schema: D6, if: { type: "integer" }, then: { minimum: 10 } }, ["1"], []],
  ["draft-04: const is an annotation, exclusiveMaximum a boolean", { $schema: D4, const: 3, maximum: 5, exclusiveMaximum: true }, ["4", "1"], ["5"]],
  ["draft-07: unevaluatedProperties is an annotation", { $schema: D7, properties: { a: {} }, unevaluatedProperties: false }, ['{"a":1,"b":2}'], []],
  ["draft-07: $ref replaces its siblings", { $schema: D7, definitions: { i: { type: "integer" } }, $ref: "#/definitions/i", minimum: 5 }, ["1"], ['"x"']],
  ["2019-09: $ref siblings apply", { $schema: D2019, $defs: { i: { type: "integer" } }, $ref: "#/$defs/i", minimum: 5 }, ["5"], ["1"]],
  [
    "draft-07: a sibling $id does not change the base URI of the $ref",
    {
      $schema: D7,
      $id: "http://example.com/sibling/base/",
      definitions: {
        foo: { $id: "http://example.com/sibling/foo.json", type: "string" },
        baseFoo: { $id: "foo.json", type: "number" },
      },
      allOf: [{ $id: "http://example.com/sibling/", $ref: "foo.json" }],
    },
    ["1"],
    ['"a"'],
  ],
  [
    "draft-07: a $ref's sibling $id is no resource either",
    { $schema: D7, definitions: { a: { $id: "#hidden", $ref: "#/definitions/b" }, b: { type: "integer" } }, properties: { x: { $ref: "#/definitions/a" } } },
    ['{"x":1}'],
    ['{"x":"s"}'],
  ],
  ["draft-07: $id '#name' is an anchor", { $schema: D7, definitions: { a: { $id: "#num", type: "integer" } }, items: { $ref: "#num" } }, ["[1]"], ['["a"]']],
  [
    "2019-09: $recursiveRef with one $recursiveAnchor is a static reference",
    { $schema: D2019, $recursiveAnchor: true, type: ["object", "integer"], additionalProperties: { $recursiveRef: "#" } },
    ['{"a":{"b":1}}', "1"],
    ['{"a":"x"}', '{"a":{"b":"x"}}'],
  ],
  ["draft-07: $recursiveRef is an annotation", { $schema: D7, properties: { a: { $recursiveRef: "#/definitions/missing" } } }, ['{"a":1}'], []],
  ["draft-04: id sets the base URI", { $schema: D4, id: "http://example.com/root.json", definitions: { a: { id: "a.json", type: "integer" } }, items: { $ref: "a.json" } }, ["[1]"], ['["a"]']],
];

describe("keywords by draft", () => {
  for (const [name, schema, good, bad, options] of cases) {
    it(name, () => {
      const { grammar } = compileJsonSchema(schema as never, options);
      for (const t of good) expect([t, isMatch(grammar, t)]).toEqual([t, true]);
      for (const t of bad) expect([t, isMatch(grammar, t)]).toEqual([t, false]);
    });
  }
});

describe("draft errors", () => {
  it("declared 2020-12 refuses the array form of items, saying what to write", () => {
    try {
      compileJsonSchema({ $schema: D2020, items: [{ type: "string" }] });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).schemaPath).toBe("#/items");
      expect((err as Error).message).toMatch(/prefixItems/);
    }
  });
  it("an unknown draft option is an InvalidArgumentError", () => {
    expect(() => compileJsonSchema({}, { draft: "draft-99" as never })).toThrow(InvalidArgumentError);
  });
});
