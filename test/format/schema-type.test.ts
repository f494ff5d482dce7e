import { describe, expect, it } from "vitest";
import { SchemaError } from "../../lib/errors.js";
import { parseJsonText } from "../../lib/format/json-text.js";
import { schemaToType } from "../../lib/format/schema-type.js";
import type { JsonSchema } from "../../lib/format/types.js";

/** Schemas are written as JSON text so that key order (and keys like `__proto__`) are exact. */
type Case = [string, string, string];

/** outline.md's own table, row by row. */
const specTable: Case[] = [
  ["spec 1", '{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}', "{ location: string }"],
  ["spec 2", '{"type":"array","items":{"type":"string"}}', "string[]"],
  ["spec 3", '{"type":"number"}', "number"],
  ["spec 4", '{"type":"object","properties":{"count":{"type":["integer","null"]}}}', "{ count?: integer | null }"],
  ["spec 5", '{"type":"integer","minimum":1}', "integer(minimum=1)"],
  ["spec 6", '{"type":"object","additionalProperties":true}', "{ ... }"],
  ["spec 7", '{"type":"array","items":true}', "any[]"],
  ["spec 8", '{"type":"object","properties":{"tags":{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"number"}]}}}}', "{ tags?: (string | number)[] }"],
  // Examples in the rules' text.
  ["spec text: pattern", '{"type":"string","pattern":"[A-Z]{3}"}', 'string(pattern="[A-Z]{3}")'],
  ["spec text: union before suffix", '{"type":"array","items":{"type":["integer","null"]},"maxItems":3}', "(integer | null)[](maxItems=3)"],
  ["spec text: const string", '{"const":"x"}', '"x"'],
  ["spec text: const number", '{"const":1}', "1"],
  ["spec text: const null", '{"const":null}', "null"],
];

/** Every rendering rule, one group at a time. */
const rules: Case[] = [
  // Boolean and empty schemas.
  ["true", "true", "any"],
  ["false", "false", "never"],
  ["empty object", "{}", "any"],
  // Annotations are ignored wherever they are.
  ["all annotations", '{"$comment":"c","$id":"i","$schema":"s","default":1,"deprecated":true,"description":"d","examples":[1],"readOnly":true,"title":"t","writeOnly":false,"type":"integer"}', "integer"],
  ["only annotations", '{"title":"T","description":"D"}', "any"],
  ["annotations in a property", '{"type":"object","properties":{"a":{"type":"string","description":"x","default":"y"}}}', "{ a?: string }"],
  ["a property named like an annotation", '{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}', "{ title: string }"],
  // Type names.
  ["string", '{"type":"string"}', "string"],
  ["integer", '{"type":"integer"}', "integer"],
  ["boolean", '{"type":"boolean"}', "boolean"],
  ["null", '{"type":"null"}', "null"],
  ["object alone", '{"type":"object"}', "object"],
  ["array alone", '{"type":"array"}', "any[]"],
  ["type list", '{"type":["string","boolean","null"]}', "string | boolean | null"],
  ["type list with array", '{"type":["array","null"]}', "any[] | null"],
  ["type list with array items", '{"type":["array","null"],"items":{"type":"string"}}', "string[] | null"],
  ["type list with object shape", '{"type":["object","null"],"properties":{"a":{"type":"string"}},"required":["a"]}', "{ a: string } | null"],
  // const and enum.
  ["const object as compact JSON", '{"const":{"a":[1, 2],"b":"é"}}', '{"a":[1,2],"b":"é"}'],
  ["const false", '{"const":false}', "false"],
  ["enum", '{"enum":["a","b",1,null]}', '"a" | "b" | 1 | null'],
  ["enum of one", '{"enum":[[1]]}', "[1]"],
  ["empty enum", '{"enum":[]}', "never"],
  ["type satisfied by enum", '{"type":"string","enum":["a","b"]}', '"a" | "b"'],
  ["integer satisfied by enum", '{"type":"integer","enum":[1,2]}', "1 | 2"],
  ["type list satisfied by enum", '{"type":["string","null"],"enum":["a",null]}', '"a" | null'],
  ["type satisfied by const", '{"const":"x","type":"string"}', '"x"'],
  ["number satisfied by integers", '{"type":"number","enum":[1,2.5]}', "1 | 2.5"],
  ["object satisfied by const object", '{"type":"object","const":{"a":1}}', '{"a":1}'],
  ["type not satisfied by enum", '{"type":"integer","enum":[1,2.5]}', "integer & (1 | 2.5)"],
  ["type not satisfied by const", '{"type":"string","const":1}', "string & 1"],
  // anyOf, oneOf, allOf.
  ["anyOf", '{"anyOf":[{"type":"string"},{"type":"integer","minimum":0}]}', "string | integer(minimum=0)"],
  ["anyOf of one", '{"anyOf":[{"type":"string"}]}', "string"],
  ["anyOf nested flattens", '{"anyOf":[{"anyOf":[{"type":"string"},{"type":"null"}]},{"type":"number"}]}', "string | null | number"],
  ["oneOf", '{"oneOf":[{"type":"string"},{"type":"number"}]}', "oneOf(string, number)"],
  ["allOf", '{"allOf":[{"$ref":"#/$defs/a"},{"required":["b"]}]}', "allOf(a, { b: any })"],
  ["oneOf with union branches", '{"oneOf":[{"type":["string","null"]},{"const":1}]}', "oneOf(string | null, 1)"],
  ["anyOf next to a type", '{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}', "object & ({ a: any } | { b: any })"],
  // Objects.
  ["required and optional in property order", '{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["a"]}', "{ b?: string, a: integer }"],
  ["required without property", '{"type":"object","properties":{"a":{"type":"string"}},"required":["z","a","y"]}', "{ a: string, z: any, y: any }"],
  ["required alone", '{"type":"object","required":["a"]}', "{ a: any }"],
  ["additionalProperties true", '{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}', "{ a?: string, ... }"],
  ["additionalProperties schema", '{"type":"object","additionalProperties":{"type":"integer"}}', "{ ...: integer }"],
  ["additionalProperties union", '{"type":"object","additionalProperties":{"type":["integer","null"]}}', "{ ...: integer | null }"],
  ["additionalProperties empty schema", '{"additionalProperties":{}}', "{ ...: any }"],
  ["additionalProperties false", '{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}', "{ a?: string }"],
  ["no fields", '{"type":"object","properties":{}}', "{}"],
  ["only additionalProperties false", '{"type":"object","additionalProperties":false}', "{}"],
  ["properties without type", '{"properties":{"a":{"type":"string"}}}', "{ a?: string }"],
  ["nested object", '{"type":"object","properties":{"p":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},"required":["p"]}', "{ p: { x: number } }"],
  ["property names that are not identifiers", '{"properties":{"first name":{},"a-b":{},"$ok":{},"_1":{},"1a":{},"":{}}}', '{ "first name"?: any, "a-b"?: any, $ok?: any, _1?: any, "1a"?: any, ""?: any }'],
  ["__proto__ property", '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}', "{ __proto__: string }"],
  ["properties with a type that is not object", '{"type":"string","properties":{"a":{}}}', "string & { a?: any }"],
  // Arrays.
  ["array of union", '{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"number"}]}}', "(string | number)[]"],
  ["array of arrays", '{"type":"array","items":{"type":"array","items":{"type":"string"}}}', "string[][]"],
  ["items without type", '{"items":{"type":"boolean"}}', "boolean[]"],
  ["items false", '{"type":"array","items":false}', "never[]"],
  ["array of intersection", '{"type":"array","items":{"$ref":"#/$defs/a","type":"object"}}', "(a & object)[]"],
  ["array of constrained items", '{"type":"array","items":{"type":"integer","minimum":1}}', "integer(minimum=1)[]"],
  ["array of oneOf", '{"items":{"oneOf":[{"type":"string"},{"type":"null"}]}}', "oneOf(string, null)[]"],
  ["tuple items are an extra keyword", '{"type":"array","items":[{"type":"string"}]}', 'any[](items=[{"type":"string"}])'],
  // $ref.
  ["$ref to $defs", '{"$ref":"#/$defs/point"}', "point"],
  ["$ref to definitions", '{"$ref":"#/definitions/point"}', "point"],
  ["$ref with a sibling type", '{"$ref":"#/$defs/point","type":"object"}', "point & object"],
  ["$ref with an escaped name", '{"$ref":"#/$defs/a~1b~0c%20d"}', "a/b~c d"],
  ["$ref elsewhere prints as written", '{"$ref":"#"}', "#"],
  ["$ref to a nested pointer prints as written", '{"$ref":"#/$defs/a/properties/b"}', "#/$defs/a/properties/b"],
  // Definitions.
  ["where", '{"type":"object","properties":{"p":{"$ref":"#/$defs/point"}},"$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}}}', "{ p?: point } where point = { x: number, y: number }"],
  ["$defs before definitions", '{"definitions":{"b":{"type":"string"}},"$ref":"#/$defs/a","$defs":{"a":{"type":"integer"}}}', "a where a = integer, b = string"],
  ["recursive definition", '{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}}}}}', "node where node = { next?: node | null }"],
  ["definition with a union", '{"$ref":"#/$defs/id","$defs":{"id":{"type":["string","integer"]}}}', "id where id = string | integer"],
  ["nested definitions are parenthesized", '{"type":"object","properties":{"a":{"$ref":"#/$defs/x","$defs":{"x":{"type":"string"}}}}}', "{ a?: (x where x = string) }"],
  ["definitions after extra keywords", '{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"minProperties":1,"$defs":{"x":{"type":"string"}}}', "{ a?: x }(minProperties=1) where x = string"],
  // Extra keywords.
  ["extra keywords in schema order", '{"maxLength":5,"type":"string","minLength":1}', "string(maxLength=5, minLength=1)"],
  ["extra keyword with an object value", '{"type":"object","patternProperties":{"^x":{"type":"integer"}}}', 'object(patternProperties={"^x":{"type":"integer"}})'],
  ["extra keyword without type", '{"minimum":1}', "any(minimum=1)"],
  ["format keyword", '{"type":"string","format":"date-time"}', 'string(format="date-time")'],
  ["union before suffix", '{"type":["string","null"],"minLength":1}', "(string | null)(minLength=1)"],
  ["anyOf before suffix", '{"anyOf":[{"type":"string"},{"type":"number"}],"x-extra":true}', "(string | number)(x-extra=true)"],
  ["intersection before suffix", '{"$ref":"#/$defs/a","type":"object","minProperties":1}', "(a & object)(minProperties=1)"],
  ["object shape with suffix", '{"type":"object","properties":{"a":{}},"maxProperties":2}', "{ a?: any }(maxProperties=2)"],
];

function render(json: string): string {
  return schemaToType(parseJsonText(json) as JsonSchema);
}

describe("JSON Schema as a type", () => {
  it.each(specTable)("outline.md: %s", (_name, json, type) => {
    expect(render(json)).toBe(type);
  });

  it.each(rules)("%s", (_name, json, type) => {
    expect(render(json)).toBe(type);
  });

  /** [case, schema, JSON pointer, words of the message] */
  const errors: Array<[string, string, string, string]> = [
    ["properties not an object", '{"properties":5}', "#/properties", "expected an object of property schemas, found number 5"],
    ["property schema not a schema", '{"properties":{"a":5}}', "#/properties/a", "expected a schema (an object or a boolean), found number 5"],
    ["unknown type name", '{"type":"strng"}', "#/type", 'found string "strng"'],
    ["type list with a number", '{"type":["string",1]}', "#/type", "found number 1"],
    ["empty anyOf", '{"anyOf":[]}', "#/anyOf", "expected a non-empty list of schemas"],
    ["oneOf branch not a schema", '{"oneOf":[{},"x"]}', "#/oneOf/1", "expected a schema"],
    ["required not a list of names", '{"required":"a"}', "#/required", "expected a list of property names"],
    ["$ref not a string", '{"$ref":1}', "#/$ref", "expected a reference string"],
    ["enum not a list", '{"enum":"a"}', "#/enum", "expected a list of values"],
    ["$defs not an object", '{"$defs":[]}', "#/$defs", "expected an object of named schemas"],
    ["bad definition", '{"definitions":{"a/b":null}}', "#/definitions/a~1b", "found null"],
    ["bad additionalProperties", '{"additionalProperties":"no"}', "#/additionalProperties", "expected a schema"],
    ["bad items", '{"items":3}', "#/items", "expected a schema"],
  ];

  it.each(errors)("rejects %s with a SchemaError at its pointer", (_name, json, pointer, words) => {
    let error: unknown;
    try {
      render(json);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).schemaPath).toBe(pointer);
    expect((error as SchemaError).message).toContain(words);
  });

  it("refuses cycles in schema objects with a SchemaError instead of overflowing the stack", () => {
    const schema: { [key: string]: unknown } = { type: "object", properties: {} };
    (schema.properties as Record<string, unknown>).self = schema;
    expect(() => schemaToType(schema)).toThrow(SchemaError);
    expect(() => schemaToType(schema)).toThrow(/nested at most 1000 levels/);
  });
});
