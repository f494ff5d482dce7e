/**
 * The builder and the parser agree: for every golden case, the grammar the structural tag
 * lowers to (lib/compile, checked with the reference recognizer) accepts each hand-written
 * valid output, and rejects the malformed outputs written for that case's mode. Plus the
 * grammar-only limits the schema-agnostic parser cannot see (one call without parallel calls,
 * unknown tools and keys, values outside an enum).
 */
import { describe, expect, it } from "vitest";
import { lowerFormat } from "../../lib/compile/lower.js";
import { jsonSchema } from "../../lib/format/build.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import type { IrGrammar } from "../../lib/compile/ir.js";
import { buildToolCallingFormat } from "../../lib/tools/index.js";
import { GOLDEN_CASES, goldenRequest, type GoldenCase } from "./golden-cases.js";
import { ERROR_MARK, MALFORMED, VALID } from "./parser-cases.js";

const STOP = "<|end_of_msg|>";
const grammars = new Map<string, IrGrammar>();
function grammarOf(name: string): IrGrammar {
  let g = grammars.get(name);
  if (!g) {
    const c = GOLDEN_CASES.find((x) => x.name === name) as GoldenCase;
    const tag = buildToolCallingFormat(goldenRequest(c));
    g = lowerFormat(tag!);
    grammars.set(name, g);
  }
  return g;
}

describe("the grammar accepts every hand-written valid output", () => {
  const cases = Object.entries(VALID).flatMap(([name, outputs]) => outputs.map((o, i) => [`${name} #${i + 1}`, name, o.text] as const));
  it.each(cases)("%s", (_label, name, text) => {
    // The stop text is the stop token, which the matcher allows where the grammar can end; the
    // grammar itself does not contain it (the parser accepts it at the end for convenience).
    const output = text.endsWith(STOP) ? text.slice(0, -STOP.length) : text;
    expect(isMatch(grammarOf(name), output)).toBe(true);
  });
});

// lowerFormat allows any JSON value for json_schema until the JSON Schema compiler is wired into
// it; the cases that only a schema rejects are checked from then on.
const schemasEnforced = !isMatch(lowerFormat(jsonSchema({ type: "object" })), "[1]");

describe("the grammar rejects every malformed output", () => {
  it.each(MALFORMED.filter((m) => schemasEnforced || !m.bySchema).map((m) => [m.what, m] as const))("%s", (_what, m) => {
    expect(isMatch(grammarOf(m.case), m.text.replace(ERROR_MARK, ""))).toBe(false);
  });
});

const END_RESPONSE = "<|close|>response<|sep|>";
const weather = (i: number) => `<|open|>call tool="get_weather" index="${i}"<|sep|><|open|>argument key="location" type="string"<|sep|>x<|close|>argument<|sep|><|close|>call<|sep|>`;

describe("limits only the grammar knows", () => {
  it.each([
    ["two calls without parallel calls", "choice-required.final-output-only.single", `${END_RESPONSE}<|open|>tools<|sep|>${weather(1)}${weather(2)}<|close|>tools<|sep|>`],
    ["a tool the named choice excludes", "choice-named.final-output-only.parallel", `${END_RESPONSE}<|open|>tools<|sep|><|open|>call tool="add" index="1"<|sep|><|open|>json type="object"<|sep|>{}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`],
    ["an unknown argument key", "choice-named.final-output-only.parallel", `${END_RESPONSE}<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>x<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`],
    ["a missing required argument", "choice-named.final-output-only.parallel", `${END_RESPONSE}<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`],
    ["a string outside the enum", "schema-set_unit", `${END_RESPONSE}<|open|>tools<|sep|><|open|>call tool="set_unit" index="1"<|sep|><|open|>argument key="unit" type="string"<|sep|>kelvin<|close|>argument<|sep|><|open|>argument key="level" type="null"<|sep|>null<|close|>argument<|sep|><|open|>argument key="only" type="string"<|sep|>yes<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`],
    ["arguments out of declared order", "schema-search", `${END_RESPONSE}<|open|>tools<|sep|><|open|>call tool="search" index="1"<|sep|><|open|>argument key="query" type="string"<|sep|>q<|close|>argument<|sep|><|open|>argument key="limit" type="number"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`],
    ["a string argument with a marker prefix in the pattern padding", "schema-codes", `${END_RESPONSE}<|open|>tools<|sep|><|open|>call tool="codes" index="1"<|sep|><|open|>argument key="airport" type="string"<|sep|>OSL<|close|>argument<|sep|><|open|>argument key="ticket" type="string"<|sep|>1<|x<|close|>argument<|sep|>`],
    ["a length-bounded string starting with <", "schema-codes", `${END_RESPONSE}<|open|>tools<|sep|><|open|>call tool="codes" index="1"<|sep|><|open|>argument key="airport" type="string"<|sep|>OSL<|close|>argument<|sep|><|open|>argument key="ticket" type="string"<|sep|>1<|close|>argument<|sep|><|open|>argument key="prefix" type="string"<|sep|>ab<|close|>argument<|sep|><|open|>argument key="short" type="string"<|sep|><|close|>argument<|sep|><|open|>argument key="title" type="string"<|sep|><T<|close|>argument<|sep|>`],
    ["an empty answer without tool calls", "answer.auto.final-output-only", `${END_RESPONSE}`],
    ["free text where the answer is a choice", "answer.required.final-output-only", `maybe${END_RESPONSE}<|open|>tools<|sep|>${weather(1)}<|close|>tools<|sep|>`],
  ])("%s", (_what, name, text) => {
    expect(isMatch(grammarOf(name), text)).toBe(false);
  });
});

describe("the JSON object form accepts the argument objects the tag form can write", () => {
  const call = (json: string): string =>
    '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>' +
    `<|open|>json type="object"<|sep|>${json}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`;
  const grammarFor = (parameters: Record<string, unknown>): IrGrammar =>
    lowerFormat(buildToolCallingFormat({
      family: "kimi-k3", tool_choice: "required",
      tools: [{ type: "function", function: { name: "f", parameters } }],
    })!);
  const declared = { type: "object", properties: { a: { type: "string" }, n: { type: "object" } }, required: ["a"] };

  it.each([
    ["declared keys", declared, '{"a": "x"}', true],
    ["an undeclared key (additionalProperties absent: closed, like the tag form)", declared, '{"a": "x", "b": 1}', false],
    ["an undeclared key inside a nested object (nested objects keep JSON Schema's meaning)", declared, '{"a": "x", "n": {"b": 1}}', true],
    ["an undeclared key with additionalProperties true", { ...declared, additionalProperties: true }, '{"a": "x", "b": 1}', true],
    ["any key when nothing is declared", { type: "object" }, '{"b": 1}', true],
  ] as const)("%s", (_what, parameters, json, accepted) => {
    expect(isMatch(grammarFor(parameters), call(json))).toBe(accepted);
  });
});
