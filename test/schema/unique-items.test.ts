/**
 * `uniqueItems` over finite item domains (lib/compile/json-schema/unique-items.ts): every order
 * while the sets of values used fit the budget, declared order beyond it, refused (with the
 * reason) where items can take unboundedly many values. Random schemas and arrays are checked
 * against ajv; random walks of the grammars must validate.
 */
import { describe, expect, it } from "vitest";
import { SchemaError } from "../../lib/errors.js";
import { compileJsonSchema, type JsonSchemaOptions } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { exactAjv, parseInstance } from "./exact-ajv.js";
import { randomWalk, rng } from "./random-walk.js";

type Case = [name: string, schema: unknown, accept: string[], reject: string[], options?: JsonSchemaOptions];

const LETTERS = "abcdefghijklmnopqrst".split("");

const cases: Case[] = [
  ["enum items, any order", { type: "array", items: { enum: ["a", "b", "c"] }, uniqueItems: true }, ["[]", '["a"]', '["b","a"]', '["c","a","b"]'], ['["a","a"]', '["a","b","a"]', '["d"]']],
  ["booleans", { items: { type: "boolean" }, uniqueItems: true }, ["[true,false]", "[false]"], ["[true,true]", "[false,true,false]"]],
  ["numbers equal by value", { items: { enum: [1, 2, "1"] }, uniqueItems: true }, ['[1,"1",2]', "[1.0,2]"], ["[1,1.0]", "[2,2.00]"]],
  ["const objects and arrays", { items: { anyOf: [{ const: { a: 1, b: 2 } }, { const: [1] }, { const: null }] }, uniqueItems: true }, ['[{"a":1,"b":2},[1],null]'], ['[{"a":1,"b":2},{"a":1,"b":2}]', "[null,null]"], { anyOrder: true }],
  ["objects equal whatever their key order", { items: { enum: [{ a: 1, b: 2 }, { a: 2 }] }, uniqueItems: true }, ['[{"b":2,"a":1},{"a":2}]'], ['[{"a":1,"b":2},{"b":2,"a":1}]'], { anyOrder: true }],
  ["with min and max items", { items: { enum: ["a", "b", "c", "d"] }, uniqueItems: true, minItems: 2, maxItems: 3 }, ['["a","b"]', '["d","c","a"]'], ['["a"]', '["a","b","c","d"]', '["a","a"]']],
  ["prefix items share the distinctness", { prefixItems: [{ enum: [1, 2] }], items: { enum: [1, 2, 3] }, uniqueItems: true }, ["[1,2,3]", "[2,1]", "[2,3]"], ["[1,1]", "[2,3,2]", "[3]"]],
  ["type null and boolean together", { items: { type: ["null", "boolean"] }, uniqueItems: true }, ["[null,true,false]"], ["[null,null]"]],
  ["enum narrowed by allOf", { items: { allOf: [{ enum: ["a", "b", "c"] }, { enum: ["b", "c", "d"] }] }, uniqueItems: true }, ['["c","b"]'], ['["a"]', '["b","b"]']],
  ["draft-07 $ref to definitions", { $schema: "http://json-schema.org/draft-07/schema#", definitions: { e: { enum: ["x", "y"] } }, items: { $ref: "#/definitions/e" }, uniqueItems: true }, ['["y","x"]'], ['["x","x"]']],
  ["many values: declared order by default", { items: { enum: LETTERS }, uniqueItems: true }, ["[]", '["a","c","t"]', '["b"]'], ['["a","a"]', '["c","a"]', '["t","t"]']],
  ["many values with a small maxItems: any order again", { items: { enum: LETTERS }, uniqueItems: true, maxItems: 2 }, ['["t","a"]', '["b","c"]'], ['["a","a"]', '["a","b","c"]']],
];

describe("uniqueItems over finite item sets", () => {
  for (const [name, schema, good, bad, options] of cases) {
    it(name, () => {
      const { grammar } = compileJsonSchema(schema as never, options);
      for (const t of good) expect([t, isMatch(grammar, t)]).toEqual([t, true]);
      for (const t of bad) expect([t, isMatch(grammar, t)]).toEqual([t, false]);
    });
  }

  it.each([
    [{ type: "array", items: { type: "string" }, uniqueItems: true }, "#/uniqueItems", {}],
    [{ properties: { tags: { type: "array", uniqueItems: true } } }, "#/properties/tags/uniqueItems", {}],
    [{ items: { type: "integer", minimum: 0, maximum: 3 }, uniqueItems: true }, "#/uniqueItems", {}],
    [{ items: { enum: LETTERS }, uniqueItems: true }, "#/uniqueItems", { anyOrder: true }],
  ])("refused with the reason: %j", (schema, path, options) => {
    try {
      compileJsonSchema(schema as never, options as JsonSchemaOptions);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).keyword).toBe("uniqueItems");
      expect((err as SchemaError).schemaPath).toBe(path);
      expect((err as Error).message).toMatch(/finite set|rules/);
    }
  });

  it("random item sets agree with ajv; random walks validate", () => {
    const r = rng(4242);
    const pool: unknown[] = ["a", "b", "c", 1, 2, 2.5, true, false, null, { k: 1 }, [1, 2]];
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    let checked = 0;
    for (let round = 0; round < 40; round++) {
      const values = pool.filter(() => r() < 0.4);
      if (values.length === 0) values.push("a");
      const schema: Record<string, unknown> = { items: { enum: values }, uniqueItems: true };
      if (r() < 0.3) schema.minItems = Math.floor(r() * 3);
      if (r() < 0.3) schema.maxItems = Math.floor(r() * 4);
      if (r() < 0.25) schema.prefixItems = [{ enum: values.slice(0, 2) }];
      const anyOrder = r() < 0.5;
      const { grammar } = compileJsonSchema(schema as never, { anyOrder });
      const validate = exactAjv().compile(schema);
      for (let k = 0; k < 20; k++) {
        const arr = Array.from({ length: Math.floor(r() * 4) }, () => pick([...values, ...pool]));
        const text = JSON.stringify(arr);
        const valid = validate(parseInstance(text));
        const accepted = isMatch(grammar, text);
        // Any order must accept every valid array; declared order accepts a subset.
        if (anyOrder) expect({ schema, text, accepted }).toEqual({ schema, text, accepted: valid });
        else if (!valid) expect({ schema, text, accepted }).toEqual({ schema, text, accepted: false });
        checked++;
      }
      for (let k = 0; k < 5; k++) {
        const bytes = randomWalk(grammar, r, 30);
        if (bytes === null) continue;
        const text = new TextDecoder().decode(bytes);
        expect({ schema, text, valid: validate(parseInstance(text)) }).toEqual({ schema, text, valid: true });
      }
    }
    expect(checked).toBe(800);
  });
});
