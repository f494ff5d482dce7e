import { describe, expect, it } from "vitest";
import { printGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch, isViablePrefix } from "../../lib/compile/recognizer.js";
import { FormatError, GrammarError, SchemaError } from "../../lib/errors.js";
import type { Format } from "../../lib/format/types.js";
import { expectGolden } from "./golden.js";
import { lowerCases } from "./lower-cases.js";

const show = (s: string | Uint8Array): string => (typeof s === "string" ? JSON.stringify(s) : `bytes ${Array.from(s, (x) => x.toString(16)).join(" ")}`);

describe("lowerFormat: table over every format type", () => {
  for (const c of lowerCases) {
    it(c.name, () => {
      const g = lowerFormat(c.format as Format);
      for (const s of c.match) {
        expect(isMatch(g, s), `must match ${show(s)}`).toBe(true);
      }
      for (const s of c.prefix) {
        expect(isMatch(g, s), `must not match yet ${show(s)}`).toBe(false);
        expect(isViablePrefix(g, s), `must be viable ${show(s)}`).toBe(true);
      }
      for (const s of c.reject) {
        expect(isMatch(g, s), `must not match ${show(s)}`).toBe(false);
      }
    });
  }

  it("has at least 200 cases", () => {
    const n = lowerCases.reduce((sum, c) => sum + c.match.length + c.prefix.length + c.reject.length, 0);
    expect(n).toBeGreaterThanOrEqual(200);
  });

  it("prints the lowered grammars as in the golden file", () => {
    const text = lowerCases.map((c) => `## ${c.name}\n${printGrammar(lowerFormat(c.format as Format))}`).join("\n");
    expectGolden("lower-formats.txt", text);
  });

  it("gives the same language without simplification", () => {
    for (const c of lowerCases) {
      const raw = lowerFormat(c.format as Format, { simplify: false });
      for (const s of [...c.match, ...c.reject]) expect(isMatch(raw, s), `${c.name}: ${show(s)}`).toBe(c.match.includes(s));
    }
  });
});

describe("lowerFormat: errors", () => {
  const cases: Array<[string, unknown, new (...args: never[]) => Error, RegExp, Record<string, number>?]> = [
    ["unknown type", { type: "nope" }, FormatError, /^format\.type: /],
    ["missing field", { type: "tag", begin: "<a>", end: "</a>" }, FormatError, /^format\.content: /],
    ["bad repeat bounds", { type: "repeat", min: 3, max: 2, content: { type: "const_string", value: "a" } }, FormatError, /^format\.max: /],
    ["regex syntax", { type: "sequence", elements: [{ type: "const_string", value: "a" }, { type: "regex", pattern: "a(b" }] }, GrammarError, /^format\.elements\[1\]\.pattern: /],
    ["regex back-reference", { type: "regex", pattern: "(a)\\1" }, GrammarError, /^format\.pattern: .*back-reference/i, { position: 3 }],
    ["ebnf error", { type: "grammar", grammar: 'root ::= "a"\nx ::= [' }, GrammarError, /^format\.grammar: /, { line: 2 }],
    ["ebnf undefined rule", { type: "or", elements: [{ type: "grammar", grammar: "root ::= missing" }] }, GrammarError, /^format\.elements\[0\]\.grammar: .*missing/],
    ["schema refused by the JSON Schema compiler", { type: "tag", begin: "<a>", content: { type: "json_schema", json_schema: { type: "string", format: "iri" } }, end: "</a>" }, SchemaError, /format\.content\.json_schema/],
    ["unknown style", { type: "json_schema", json_schema: true, style: "yaml" }, FormatError, /^format\.style: unknown argument style "yaml"/],
    ["any_order with a nested style", { type: "json_schema", json_schema: true, style: "minimax_m3_xml", any_order: true }, GrammarError, /^format\.any_order: argument style "minimax_m3_xml"/],
    ["json_schema excludes past the budget", { type: "json_schema", json_schema: true, excludes: ["x".repeat(2001)] }, GrammarError, /^format\.excludes: the excluded strings hold 2001 code points/],
  ];
  for (const [name, format, type, message, location] of cases) {
    it(name, () => {
      let caught: unknown;
      try {
        lowerFormat(format as Format);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(type);
      expect((caught as Error).message).toMatch(message);
      for (const [k, v] of Object.entries(location ?? {})) expect((caught as Record<string, unknown>)[k], k).toBe(v);
    });
  }

  it("accepts a structural tag wrapper and rejects a malformed one", () => {
    const g = lowerFormat({ type: "structural_tag", format: { type: "const_string", value: "x" } });
    expect(isMatch(g, "x")).toBe(true);
    expect(() => lowerFormat({ type: "structural_tag" } as never)).toThrow(FormatError);
  });
});

describe("lowerFormat: large grammars", () => {
  it("keeps the rules a 16,000-rule chain reaches without exhausting the call stack", () => {
    // The pattern's automaton (2^14 states) is written as a chain of rules; finding the rules the
    // root reaches once recursed along it and threw a RangeError.
    const pattern = "^(a|b)*a(a|b){13}$";
    const ir = lowerFormat({ type: "structural_tag", format: { type: "json_schema", json_schema: { type: "object", properties: { a: { type: "string", pattern } } } } });
    expect(ir.rules.length).toBeGreaterThan(16_000);
  }, 60_000);
});
