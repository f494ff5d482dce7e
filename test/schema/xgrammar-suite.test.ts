/**
 * xgrammar's own JSON Schema and regex tests, case by case (issue 13): every schema or regex of
 * its Python tests that comes with instances and a verdict, checked against tagmask. A row says
 * how tagmask's verdict relates to xgrammar's (xgrammar-suite.types.ts, Kind); the texts are
 * tagmask's verdicts, and the rows where xgrammar differs list the texts it decides the other way,
 * so a changed verdict on either side shows up here. Schemas compile with `undeclared: "forbid"`,
 * the reading of xgrammar's `strict_mode` (on in its tests), unless a row says otherwise.
 */
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import type { IrGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { regexToIr } from "../../lib/compile/regex/index.js";
import { SchemaError } from "../../lib/errors.js";
import { CONVERTER, propertyNumberCases } from "./xgrammar-suite-converter.data.js";
import { BUILTIN, KEYWORDS, MATCHER } from "./xgrammar-suite-matcher.data.js";
import { EXCLUDES, MATCHER_REGEX, PATTERN_SEARCH, REGEX_CONVERTER } from "./xgrammar-suite-strings.data.js";
import type { Kind, SuiteCase, SuiteFile } from "./xgrammar-suite.types.js";

const FILES: SuiteFile[] = [CONVERTER, MATCHER, KEYWORDS, BUILTIN, EXCLUDES, PATTERN_SEARCH, REGEX_CONVERTER, MATCHER_REGEX];
/**
 * test_object_with_property_numbers loops over 771 schemas of 23 instances each (about a minute
 * here on a loaded machine); every fifth runs by default, all with XGRAMMAR_SUITE_ALL=1.
 */
const ALL_PROPERTY_NUMBERS = propertyNumberCases();
const PROPERTY_NUMBERS = process.env.XGRAMMAR_SUITE_ALL ? ALL_PROPERTY_NUMBERS : ALL_PROPERTY_NUMBERS.filter((_c, i) => i % 5 === 0);

/** The grammars a row stands for: its schema compiled, and also lowered as a structural tag where it has excludes. */
function grammars(c: SuiteCase): IrGrammar[] {
  if (c.regex !== undefined) return [{ rules: [{ name: "root", body: regexToIr(c.regex) }], root: 0 }];
  if (c.format !== undefined) return [lowerFormat(c.format as never)];
  const options = { undeclared: "forbid" as const, ...c.options };
  const out = [compileJsonSchema(c.schema as never, options).grammar];
  if (options.excludes !== undefined && options.undeclared === "forbid") {
    out.push(lowerFormat({ type: "json_schema", json_schema: c.schema as never, excludes: [...options.excludes], ...(options.anyOrder ? { any_order: true } : {}) }));
  }
  return out;
}

/** The row's kind is consistent with what it lists. */
function checkKind(c: SuiteCase): void {
  const peer = c.peer ?? [];
  const inAccept = peer.every((t) => c.accept?.includes(t));
  const inReject = peer.every((t) => c.reject?.includes(t));
  const expected: Record<Kind, boolean> = {
    agree: peer.length === 0,
    stricter: peer.length > 0 && inReject,
    canonical: peer.length > 0 && inReject,
    exact: peer.length > 0 && inAccept,
    refused: c.error?.keyword !== undefined && c.error.path !== undefined,
    compiles: c.peerError !== undefined && c.error === undefined,
  };
  expect(expected[c.kind], `kind ${c.kind} does not fit the row`).toBe(true);
  if (c.kind !== "agree" && c.kind !== "compiles") expect(c.why, "a difference says why").toBeTruthy();
}

function run(c: SuiteCase): void {
  checkKind(c);
  if (c.error) {
    let thrown: unknown;
    try {
      grammars(c);
    } catch (err) {
      thrown = err;
    }
    expect(thrown, "expected a refusal").toBeInstanceOf(Error);
    const err = thrown as Error;
    if (c.error.path !== undefined) {
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).schemaPath).toBe(c.error.path);
      if (c.error.keyword !== undefined) expect((err as SchemaError).keyword).toBe(c.error.keyword);
    }
    if (c.error.message) expect(err.message).toMatch(c.error.message);
    return;
  }
  for (const g of grammars(c)) {
    for (const t of c.accept ?? []) expect([t, isMatch(g, t)]).toEqual([t, true]);
    for (const t of c.reject ?? []) expect([t, isMatch(g, t)]).toEqual([t, false]);
  }
}

for (const file of FILES) {
  describe(file.file, () => {
    it.each(file.cases.map((c) => [c.name, c] as const))("%s", (_name, c) => run(c));
  });
}

describe("test_json_schema_converter.py: test_object_with_property_numbers", () => {
  it.each(PROPERTY_NUMBERS.map((c) => [c.name, c] as const))("%s", (_name, c) => run(c));
});

describe("the table", () => {
  it("counts rows by kind", () => {
    const counts: Record<string, Partial<Record<Kind, number>>> = {};
    for (const file of [...FILES, { file: "test_object_with_property_numbers", cases: ALL_PROPERTY_NUMBERS }]) {
      const row: Partial<Record<Kind, number>> = {};
      for (const c of file.cases) row[c.kind] = (row[c.kind] ?? 0) + 1;
      counts[file.file] = row;
    }
    expect(counts).toMatchInlineSnapshot(`
      {
        "test_builtin_grammar_json_schema.py": {
          "agree": 1,
        },
        "test_grammar_matcher_json_schema.py": {
          "agree": 30,
          "compiles": 3,
          "refused": 1,
          "stricter": 1,
        },
        "test_grammar_matcher_regex.py": {
          "agree": 21,
          "compiles": 2,
        },
        "test_json_schema_converter.py": {
          "agree": 77,
          "compiles": 8,
          "exact": 4,
          "refused": 3,
          "stricter": 2,
        },
        "test_json_schema_excludes.py": {
          "agree": 93,
          "compiles": 6,
          "refused": 1,
          "stricter": 6,
        },
        "test_json_schema_keyword_support.py": {
          "agree": 26,
          "refused": 1,
          "stricter": 3,
        },
        "test_json_schema_pattern_search.py": {
          "agree": 49,
          "canonical": 11,
        },
        "test_object_with_property_numbers": {
          "agree": 771,
        },
        "test_regex_converter.py": {
          "agree": 57,
          "compiles": 5,
        },
      }
    `);
  });
});
