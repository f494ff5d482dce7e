/**
 * xgrammar's own structural-tag tests, case by case (test/format/xgrammar-suite/, one data module
 * per peer test file): each structural tag loads here and gives xgrammar's verdict on every output
 * its test checks, by the reference recognizer; a tag xgrammar refuses at load is refused here too,
 * with a typed error naming where. Where xgrammar is looser on purpose-free grounds, the row's
 * `stricter` outputs are rejected here and docs/compatibility.md says why.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GrammarError, TagmaskError } from "../../lib/errors.js";
import { ebnfToIr } from "../../lib/compile/ebnf/index.js";
import { GrammarBuilder, type IrGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch, Recognizer } from "../../lib/compile/recognizer.js";
import { parseStructuralTag } from "../../lib/format/parse.js";
import type { Format, StructuralTag } from "../../lib/format/types.js";
import type { EbnfCase, EbnfErrorCase, RefusedCase, TagCase } from "./xgrammar-suite/cases.js";
import { CONVERTER_CASES, CONVERTER_LOADS } from "./xgrammar-suite/converter.js";
import { CONVERTER_REFUSED } from "./xgrammar-suite/converter-refused.js";
import { DEEPSEEK_V4_1_CASES } from "./xgrammar-suite/deepseek-v4-1.js";
import { GRAMMAR_PARSER_CASES, GRAMMAR_PARSER_ERRORS } from "./xgrammar-suite/grammar-parser.js";
import { STRUCTURAL_TAG_PARSER_CASES, STRUCTURAL_TAG_PARSER_REFUSED } from "./xgrammar-suite/structural-tag-parser.js";
import { FUNCTION_CALLING_CASES, FUNCTION_CALLING_REFUSED } from "./xgrammar-suite/function-calling.js";
import { BUILTIN_TAG_CASES } from "./xgrammar-suite/builtin-tags.js";
import { MATCHER_EBNF_CASES } from "./xgrammar-suite/matcher-ebnf.js";
import { MATCHER_STRUCTURAL_TAG_CASES } from "./xgrammar-suite/matcher-structural-tag.js";
import { EMPTY_XML_OBJECT_CASES, EMPTY_XML_OBJECT_REFUSED, GLM_BOUNDED_CASES } from "./xgrammar-suite/xml-objects.js";
import { TAG_DISPATCH_CASES, TAG_DISPATCH_MASKS, type MaskCase } from "./xgrammar-suite/tag-dispatch.js";

const compatibility = readFileSync(new URL("../../docs/compatibility.md", import.meta.url), "utf8");
const jsonSchemaDoc = readFileSync(new URL("../../docs/json-schema.md", import.meta.url), "utf8");

function load(format: unknown) {
  return lowerFormat(typeof format === "string" ? parseStructuralTag(format) : (format as StructuralTag | Format));
}

/** An EBNF grammar that starts at `root` (or at the rule `start` names). */
function ebnf(text: string, start = "root"): IrGrammar {
  const b = new GrammarBuilder();
  ebnfToIr(text, b, { start });
  return b.build(start);
}

function ebnfTable(cases: EbnfCase[]) {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const grammar = ebnf(c.grammar, c.root);
    for (const s of c.accepted) expect(isMatch(grammar, s), `accepted ${JSON.stringify(s)}`).toBe(true);
    for (const s of c.rejected) expect(isMatch(grammar, s), `rejected ${JSON.stringify(s)}`).toBe(false);
    for (const [s, why] of c.stricter ?? []) {
      expect(isMatch(grammar, s), `stricter than xgrammar ${JSON.stringify(s)}`).toBe(false);
      expect(compatibility, "docs/compatibility.md says why").toContain(why);
    }
  });
}

/** Grammars xgrammar refuses: refused here with the same cause, or loaded where docs/compatibility.md says so. */
function ebnfErrorTable(cases: EbnfErrorCase[]) {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    if (c.error === null) {
      expect(ebnf(c.grammar).rules.length).toBeGreaterThan(0);
      expect(compatibility, "docs/compatibility.md says why").toContain(c.why);
      return;
    }
    expect(() => ebnf(c.grammar)).toThrow(GrammarError);
    expect(() => ebnf(c.grammar)).toThrow(c.error);
  });
}

/** The reference mask: the tokens whose bytes the grammar can take from the state reached so far. */
function maskTable(cases: MaskCase[]) {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const r = new Recognizer(ebnf(c.grammar));
    const encoder = new TextEncoder();
    let state = r.initial();
    const chars = [...c.input];
    for (let i = 0; i <= chars.length; i++) {
      const allowed = c.vocab.filter((t) => {
        const next = r.stepBytes(state, encoder.encode(t));
        return next !== null && r.viable(next);
      });
      expect(allowed.sort(), `tokens allowed before character ${i}`).toEqual([...c.allowed[i]!].sort());
      if (i < chars.length) state = r.stepBytes(state, encoder.encode(chars[i]!))!;
    }
  });
}

function verdictTable(cases: TagCase[]) {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    if (c.refusedHere) {
      const [error, why] = c.refusedHere;
      expect(() => load(c.format)).toThrow(error);
      expect(compatibility + jsonSchemaDoc, "docs/compatibility.md or docs/json-schema.md says why").toContain(why);
      return;
    }
    const grammar = load(c.format);
    for (const s of c.accepted) expect(isMatch(grammar, s), `accepted ${JSON.stringify(s)}`).toBe(true);
    for (const s of c.rejected) expect(isMatch(grammar, s), `rejected ${JSON.stringify(s)}`).toBe(false);
    for (const [s, why] of c.stricter ?? []) {
      expect(isMatch(grammar, s), `stricter than xgrammar ${JSON.stringify(s)}`).toBe(false);
      expect(compatibility, "docs/compatibility.md says why").toContain(why);
    }
  });
}

function refusalTable(cases: RefusedCase[]) {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    let error: unknown = null;
    try {
      load(c.format);
    } catch (e) {
      error = e;
    }
    expect(error, "refused with a typed error").toBeInstanceOf(TagmaskError);
    expect((error as Error).message).toContain(c.error);
  });
}

describe("test_structural_tag_converter.py", () => {
  describe("verdicts", () => verdictTable(CONVERTER_CASES));
  describe("refused at load", () => refusalTable(CONVERTER_REFUSED));
  it.each(CONVERTER_LOADS)("loads: %s", (_name, format) => {
    expect(load(format).rules.length).toBeGreaterThan(0);
  });
});

describe("test_grammar_matcher_structural_tag.py", () => verdictTable(MATCHER_STRUCTURAL_TAG_CASES));

describe("test_grammar_matcher_tag_dispatch.py", () => {
  describe("verdicts", () => ebnfTable(TAG_DISPATCH_CASES));
  describe("token masks", () => maskTable(TAG_DISPATCH_MASKS));
});

describe("test_empty_xml_object.py", () => {
  describe("verdicts", () => verdictTable(EMPTY_XML_OBJECT_CASES));
  describe("refused", () => refusalTable(EMPTY_XML_OBJECT_REFUSED));
});

describe("test_glm_bounded_xml_regression.py", () => verdictTable(GLM_BOUNDED_CASES));

describe("test_function_calling_converter.py", () => {
  describe("verdicts", () => verdictTable(FUNCTION_CALLING_CASES));
  describe("refused", () => refusalTable(FUNCTION_CALLING_REFUSED));
});

describe("test_grammar_matcher_ebnf.py", () => ebnfTable(MATCHER_EBNF_CASES));

describe("test_builtin_structural_tag.py", () => verdictTable(BUILTIN_TAG_CASES));

describe("test_grammar_parser.py", () => {
  describe("grammars it parses", () => ebnfTable(GRAMMAR_PARSER_CASES));
  describe("grammars it refuses", () => ebnfErrorTable(GRAMMAR_PARSER_ERRORS));
});

describe("test_structural_tag_parser.py", () => {
  describe("verdicts", () => verdictTable(STRUCTURAL_TAG_PARSER_CASES));
  describe("refused", () => refusalTable(STRUCTURAL_TAG_PARSER_REFUSED));
});

describe("test_deepseek_v4_1.py", () => verdictTable(DEEPSEEK_V4_1_CASES));
