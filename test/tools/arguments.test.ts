/**
 * Argument formats of one Kimi K3 call for small parameter schemas (the edge cases beyond the
 * golden tools), and the raw-string pattern conversion checked against JavaScript's RegExp.
 */
import { describe, expect, it } from "vitest";
import { printOutline } from "../../lib/format/outline.js";
import { argumentsFormat } from "../../lib/tools/kimi-k3/arguments.js";
import { patternRegex } from "../../lib/tools/kimi-k3/raw-string.js";
import { normalizeTools } from "../../lib/tools/normalize.js";

function outline(parameters: unknown): string {
  const [tool] = normalizeTools([{ type: "function", function: { name: "f", parameters } }]);
  return printOutline(argumentsFormat(tool!));
}

const JSON_OPEN = '`<|open|>json type="object"<|sep|>`';
const JSON_CLOSE = "`<|close|>json<|sep|>`";
const ARG_CLOSE = "`<|close|>argument<|sep|>`";
const TEXT = "text excluding [`<|close|>argument<|sep|>`, `<|close|>call<|sep|>`]";
const arg = (key: string, type: string) => `\`<|open|>argument key="${key}" type="${type}"<|sep|>\``;
const lines = (...l: string[]) => `${l.join("\n")}\n`;

describe("arguments of one call", () => {
  it.each<[string, unknown, string]>([
    ["oneOf with two string branches: only the JSON form (they could overlap)",
      { type: "object", properties: { a: { oneOf: [{ type: "string", pattern: "^x" }, { type: "string", maxLength: 3 }] } }, required: ["a"] },
      lines(`tag ${JSON_OPEN} json({ a: oneOf(string(pattern="^x"), string(maxLength=3)) }) ${JSON_CLOSE}`)],
    ["anyOf of string enums: one flat choice",
      { type: "object", properties: { a: { anyOf: [{ enum: ["x", "y"] }, { const: "z" }] } }, required: ["a"] },
      lines("or", `  tag ${arg("a", "string")} .. ${ARG_CLOSE}`, "    or", "      `x`", "      `y`", "      `z`",
        `  tag ${JSON_OPEN} json({ a: "x" | "y" | "z" }) ${JSON_CLOSE}`)],
    ["pattern with a length bound: only the JSON form",
      { type: "object", properties: { a: { type: "string", pattern: "^[a-z]+$", maxLength: 4 } }, required: ["a"] },
      lines(`tag ${JSON_OPEN} json({ a: string(pattern="^[a-z]+$", maxLength=4) }) ${JSON_CLOSE}`)],
    ["a string format: only the JSON form",
      { type: "object", properties: { a: { type: "string", format: "uuid" } } },
      lines(`tag ${JSON_OPEN} json({ a?: string(format="uuid") }) ${JSON_CLOSE}`)],
    ["a $ref with a sibling keyword: only the JSON form",
      { type: "object", properties: { a: { $ref: "#/$defs/S", minLength: 2 } }, required: ["a"], $defs: { S: { type: "string" } } },
      lines(`tag ${JSON_OPEN} json({ a: S(minLength=2) } where S = string) ${JSON_CLOSE}`)],
    ["a $ref into properties cannot be carried: only the JSON form",
      { type: "object", properties: { a: { type: "integer" }, b: { $ref: "#/properties/a" } }, required: ["a", "b"] },
      lines(`tag ${JSON_OPEN} json({ a: integer, b: #/properties/a }) ${JSON_CLOSE}`)],
    ["a recursive definition is carried once",
      { type: "object", properties: { list: { $ref: "#/$defs/Node" } }, required: ["list"], $defs: { Node: { type: "object", properties: { value: { type: "number" }, next: { $ref: "#/$defs/Node" } } } } },
      lines("or", `  tag ${arg("list", "object")} json(Node where Node = { value?: number, next?: Node }) ${ARG_CLOSE}`,
        `  tag ${JSON_OPEN} json({ list: Node } where Node = { value?: number, next?: Node }) ${JSON_CLOSE}`)],
    ["a required parameter no value satisfies: only the JSON form",
      { type: "object", properties: { a: { type: "string", enum: [1, 2] } }, required: ["a"] },
      lines(`tag ${JSON_OPEN} json({ a: string & (1 | 2) }) ${JSON_CLOSE}`)],
    ["an optional parameter no value satisfies is left out",
      { type: "object", properties: { a: { type: "string", minLength: 3, maxLength: 2 }, b: { type: "boolean" }, c: false }, required: ["b"] },
      lines("or", `  tag ${arg("b", "boolean")} json(boolean) ${ARG_CLOSE}`,
        `  tag ${JSON_OPEN} json({ a?: string(minLength=3, maxLength=2), b: boolean, c?: never }) ${JSON_CLOSE}`)],
    ["a root anyOf: only the JSON form",
      { type: "object", anyOf: [{ required: ["a"] }, { required: ["b"] }], properties: { a: { type: "string" }, b: { type: "string" } } },
      lines(`tag ${JSON_OPEN} json({ a?: string, b?: string } & ({ a: any } | { b: any })) ${JSON_CLOSE}`)],
    ["enum literals holding a close marker are left out",
      { type: "object", properties: { a: { enum: ["ok", "bad<|close|>call<|sep|>"] } }, required: ["a"] },
      lines("or", `  tag ${arg("a", "string")} \`ok\` ${ARG_CLOSE}`, `  tag ${JSON_OPEN} json({ a: "ok" | "bad<|close|>call<|sep|>" }) ${JSON_CLOSE}`)],
    ["a string or an integer: each type keeps its own keywords",
      { type: "object", properties: { a: { type: ["string", "integer"], minLength: 1, minimum: 0 } }, required: ["a"] },
      lines("or", "  or", `    tag ${arg("a", "string")} .. ${ARG_CLOSE}`, "      sequence", "        /[^<]{1}/", `        ${TEXT}`,
        `    tag ${arg("a", "number")} json(integer(minimum=0)) ${ARG_CLOSE}`,
        `  tag ${JSON_OPEN} json({ a: (string | integer)(minLength=1, minimum=0) }) ${JSON_CLOSE}`)],
    ["a required name without a schema takes any type, after the declared ones",
      { type: "object", properties: { a: { type: "null" } }, required: ["extra", "a"], additionalProperties: false },
      lines("or", "  sequence", `    tag ${arg("a", "null")} json(null) ${ARG_CLOSE}`, "    or",
        `      tag ${arg("extra", "string")} ${TEXT} ${ARG_CLOSE}`,
        `      tag ${arg("extra", "number")} json(number) ${ARG_CLOSE}`,
        `      tag ${arg("extra", "boolean")} json(boolean) ${ARG_CLOSE}`,
        `      tag ${arg("extra", "null")} json(null) ${ARG_CLOSE}`,
        `      tag ${arg("extra", "object")} json(object) ${ARG_CLOSE}`,
        `      tag ${arg("extra", "array")} json(any[]) ${ARG_CLOSE}`,
        `  tag ${JSON_OPEN} json({ a: null, extra: any }) ${JSON_CLOSE}`)],
    ["short strings are a counted regex",
      { type: "object", properties: { a: { type: "string", maxLength: 0 }, b: { type: "string", minLength: 2, maxLength: 19 } }, required: ["a", "b"] },
      lines("or", "  sequence", `    tag ${arg("a", "string")} /[\\s\\S]{0,0}/ ${ARG_CLOSE}`, `    tag ${arg("b", "string")} /[\\s\\S]{2,19}/ ${ARG_CLOSE}`,
        `  tag ${JSON_OPEN} json({ a: string(maxLength=0), b: string(minLength=2, maxLength=19) }) ${JSON_CLOSE}`)],
    ["longer maximum lengths are text with max_chars",
      { type: "object", properties: { a: { type: "string", maxLength: 20 } }, required: ["a"] },
      lines("or", `  tag ${arg("a", "string")} ${TEXT} max_chars=20 ${ARG_CLOSE}`, `  tag ${JSON_OPEN} json({ a: string(maxLength=20) }) ${JSON_CLOSE}`)],
    ["both definition containers are carried, in the root's order",
      { type: "object", properties: { a: { $ref: "#/definitions/A" }, b: { $ref: "#/$defs/B" } }, required: ["a", "b"], definitions: { A: { type: "array", items: { $ref: "#/$defs/B" } } }, $defs: { B: { type: "integer" } } },
      lines("or", "  sequence", `    tag ${arg("a", "array")} json(A where B = integer, A = B[]) ${ARG_CLOSE}`,
        `    tag ${arg("b", "number")} json(B where B = integer) ${ARG_CLOSE}`,
        `  tag ${JSON_OPEN} json({ a: A, b: B } where B = integer, A = B[]) ${JSON_CLOSE}`)],
    ["a key named __proto__ is an ordinary key",
      JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "string"}}, "required": ["__proto__"]}') as unknown,
      lines("or", `  tag ${arg("__proto__", "string")} ${TEXT} ${ARG_CLOSE}`, `  tag ${JSON_OPEN} json({ __proto__: string }) ${JSON_CLOSE}`)],
    ["properties given without a root type: the JSON form adds it",
      { properties: {}, additionalProperties: false },
      lines(`optional tag ${JSON_OPEN} json({}) ${JSON_CLOSE}`)],
  ])("%s", (_what, parameters, expected) => {
    expect(outline(parameters)).toBe(expected);
  });
});

describe("JSON Schema pattern → full-match regex", () => {
  const strings = ["", "a", "b", "ab", "ba", "abc", "xab", "abx", "a$", "xa$y", "aaa", "b\nb", "12", "x12y", "é1", "<b>"];
  it.each(["a", "^a", "a$", "^a$", "ab|^b", "^a|b$", "a\\$", "^(a|b)+$", "[0-9]+", "^[^a]", "(?:x|1)2", "\\d$", "b\\nb"])("%s", (pattern) => {
    const search = new RegExp(pattern, "u");
    const full = new RegExp(`^(?:${patternRegex(pattern)})$`, "u");
    for (const s of strings) expect([s, full.test(s)]).toEqual([s, search.test(s)]);
  });

  it("the padding never holds the start of a marker", () => {
    const full = new RegExp(`^(?:${patternRegex("[0-9]")})$`, "u");
    expect(full.test("1<b")).toBe(true);
    expect(full.test("1<|close|>x")).toBe(false);
    expect(full.test("<<|1")).toBe(false);
  });
});
