/**
 * The token-mask tests of xgrammar's tests/python/test_json_schema_pattern_search.py and
 * test_json_schema_excludes.py on tagmask's engine: the same tiny vocabularies, the same steps,
 * the same expected masks, except where a row's comment says tagmask differs
 * (docs/compatibility.md: constrained strings take only the canonical spelling).
 */
import { describe, expect, it } from "vitest";
import { compileJsonSchema, type JsonSchemaOptions } from "../../lib/compile/json-schema/index.js";
import type { IrGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { GrammarError } from "../../lib/errors.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { maskHas } from "./oracle.js";

const CONTROLS = ["<|open|>", "<|close|>", "<|sep|>"];
const ARG_BEGIN = '<|open|>argument key="value" type="string"<|sep|>';
const ARG_END = "<|close|>argument<|sep|>";
const EOS = "[EOS]";

/** One step: accept text or a token (must succeed, or `fails`), roll back, or check the mask. */
type Step =
  | { text: string }
  | { token: string; fails?: true }
  | { rollback: number }
  | { allowed?: string[]; blocked?: string[] }
  | { terminated: true };

interface Case {
  name: string;
  vocab: string[];
  grammar: () => IrGrammar;
  steps: Step[];
}

const schema = (s: unknown, options: JsonSchemaOptions = {}) => () => compileJsonSchema(s as never, { whitespace: "compact", ...options }).grammar;
const k3Leaf = (value: unknown, excludes = CONTROLS) => () =>
  lowerFormat({ type: "json_schema", json_schema: { type: "object", properties: { value }, required: ["value"], additionalProperties: false }, style: "kimi_k3_xml", excludes } as never);
const filler = Array.from({ length: 1200 }, (_, i) => `x${i}`);
const lengthPattern = (pattern: string, minLength: number, maxLength?: number) => ({ type: "string", pattern, minLength, ...(maxLength === undefined ? {} : { maxLength }) });

const CASES: Case[] = [
  {
    name: "test_pattern_max_length_masks_content_at_decoded_boundary",
    vocab: ['"', "a", "b", 'b"', "ab"],
    grammar: schema(lengthPattern("b", 2, 2)),
    steps: [{ text: '"a' }, { allowed: ["b", 'b"'], blocked: ['"'] }, { token: "b" }, { allowed: ['"'], blocked: ["a", "b", "ab"] }],
  },
  {
    name: "test_pattern_max_length_masks_content_at_decoded_boundary (too short)",
    vocab: ['"', "a", "b", 'b"', "ab"],
    grammar: schema(lengthPattern("b", 2, 2)),
    steps: [{ text: '"b' }, { blocked: ['"'] }],
  },
  {
    name: "test_pattern_min_length_rechecks_closing_token",
    vocab: ['"', "a", "b"],
    grammar: schema(lengthPattern("b", 2)),
    steps: [{ text: '"b' }, { allowed: ["a"], blocked: ['"'] }],
  },
  {
    name: "test_pattern_min_length_rechecks_quote_after_partial_unicode_escape",
    vocab: ['0062"', "x"],
    grammar: schema(lengthPattern(".", 3)),
    steps: [{ text: '"a\\u' }, { blocked: ['0062"'] }],
  },
  {
    name: "test_pattern_length_filters_large_cached_accept_set",
    vocab: ['"', "b", 'b"', '\\u0062"', '\\u0062x"', ...filler],
    grammar: schema(lengthPattern("a", 2, 2)),
    // xgrammar also allows \u0062" (an escape of b, then the closing quote): here b is written only as itself.
    steps: [{ text: '"a' }, { allowed: ["b", 'b"'], blocked: ['"', '\\u0062"', '\\u0062x"', "x0"] }],
  },
  {
    name: "test_pattern_length_filters_narrow_cached_accept_set",
    vocab: ['"', "1", "1234567890", "12345678901", '1234567890"', ...filler],
    grammar: schema(lengthPattern("^[0-9]{10,10}$", 10, 10)),
    steps: [{ text: '"' }, { allowed: ["1", "1234567890", '1234567890"'], blocked: ["12345678901", "x0"] }],
  },
  {
    name: "test_quote_excludes_token_mask_keeps_closing_quote",
    vocab: ['"', "hello", '\\"', "\\u0022", EOS],
    grammar: schema({ type: "string" }, { excludes: ['"'] }),
    steps: [
      { token: '"' }, { allowed: ['"', "\\u0022"], blocked: ['\\"'] }, { token: '\\"', fails: true },
      { token: "\\u0022" }, { token: '"' }, { token: EOS }, { terminated: true },
    ],
  },
  ...[{ const: "BAD" }, { enum: ["BAD"] }, { type: "string", pattern: "^BAD$" }].map((blocked): Case => ({
    name: `test_excluded_branch_mask_rejects_unicode_and_stop_token ${JSON.stringify(blocked)} or "safe"`,
    vocab: ["你", "🦋", '"你"', '"BAD"', '"safe"', EOS],
    grammar: schema({ anyOf: [blocked, { const: "safe" }] }, { excludes: ["BAD"] }),
    steps: [{ allowed: ['"safe"'], blocked: ["你", "🦋", '"你"', '"BAD"', EOS] }, { token: '"safe"' }, { token: EOS }, { terminated: true }],
  })),
  ...[false, true].map((constrained): Case => ({
    name: `test_k3_excludes_token_mask_and_argument_end${constrained ? " (pattern)" : ""}`,
    vocab: [ARG_BEGIN, "hello", "<|open|>", "<|close|>", "argument", "response", "<|sep|>", "<|op", "en|>", "hello" + ARG_END, EOS],
    grammar: k3Leaf(constrained ? { type: "string", pattern: "^[\\s\\S]*$" } : { type: "string" }),
    steps: [
      { token: ARG_BEGIN }, { allowed: ["hello", "<|close|>", "hello" + ARG_END], blocked: ["<|open|>"] },
      { token: "<|op" }, { blocked: ["en|>"] }, { rollback: 1 },
      { token: "hello" }, { token: "<|close|>" }, { allowed: ["argument"], blocked: ["response"] },
      { token: "argument" }, { token: "<|sep|>" }, { allowed: [EOS] }, { token: EOS }, { terminated: true },
    ],
  })),
  {
    name: "test_nested_k3_three_controls_mask_and_argument_boundary",
    vocab: [ARG_BEGIN.replace('type="string"', 'type="object"'), '{"text":"', "hello", ...CONTROLS, "<|op", "en|>", '"}', "argument", "response", 'hello"}' + ARG_END, EOS],
    grammar: k3Leaf({ type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false }),
    steps: [
      { token: ARG_BEGIN.replace('type="string"', 'type="object"') }, { token: '{"text":"' },
      { allowed: ['hello"}' + ARG_END], blocked: CONTROLS }, ...CONTROLS.map((c): Step => ({ token: c, fails: true })),
      { token: "<|op" }, { blocked: ["en|>"] }, { token: "en|>", fails: true }, { rollback: 1 },
      { token: "hello" }, { token: '"}' }, { allowed: ["<|close|>"], blocked: ["<|open|>", "<|sep|>"] }, { token: "<|close|>" },
      { allowed: ["argument"], blocked: ["response"] }, { token: "argument" }, { allowed: ["<|sep|>"] }, { token: "<|sep|>" },
      { allowed: [EOS] }, { token: EOS }, { terminated: true },
    ],
  },
  {
    name: "test_nested_k3_three_controls_mask_and_argument_boundary (one token across the boundary)",
    vocab: [ARG_BEGIN.replace('type="string"', 'type="object"'), '{"text":"', 'hello"}' + ARG_END, EOS],
    grammar: k3Leaf({ type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false }),
    steps: [{ token: ARG_BEGIN.replace('type="string"', 'type="object"') }, { token: '{"text":"' }, { token: 'hello"}' + ARG_END }, { token: EOS }, { terminated: true }],
  },
  ...[false, true].flatMap((constrained) =>
    [['"', "<|close|>response<|sep|>"], ['"<|close|>response<|sep|>']].map((closing): Case => ({
      name: `test_json_string_response_schema_keeps_k3_response_end${constrained ? " (pattern)" : ""} closing with ${JSON.stringify(closing)}`,
      vocab: ['"hello', ...CONTROLS, '"', "<|close|>response<|sep|>", '"<|close|>response<|sep|>', EOS],
      grammar: () => lowerFormat({
        type: "tag", begin: "", end: "<|close|>response<|sep|>",
        content: { type: "json_schema", json_schema: { type: "string", ...(constrained ? { pattern: "^[\\s\\S]*$" } : {}) }, excludes: CONTROLS },
      } as never),
      steps: [{ token: '"hello' }, { allowed: ['"', '"<|close|>response<|sep|>'], blocked: CONTROLS }, ...closing.map((t): Step => ({ token: t })), { token: EOS }, { terminated: true }],
    })),
  ),
];

describe("xgrammar's token-mask tests on tiny vocabularies", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const info = TokenizerInfo.fromTokens(c.vocab.includes(EOS) ? c.vocab : [...c.vocab, EOS], { vocabType: "raw", specialTokens: [EOS], stopTokens: [EOS] });
    const id = (t: string) => {
      const i = c.vocab.indexOf(t);
      expect(i, `token ${JSON.stringify(t)} is in the vocabulary`).toBeGreaterThanOrEqual(0);
      return i < 0 ? c.vocab.length : i;
    };
    const matcher = new GrammarMatcher(compileGrammar(info, c.grammar(), { threads: 1 }));
    const mask = new Int32Array(Math.ceil(info.vocabSize / 32));
    c.steps.forEach((step, i) => {
      const where = `step ${i} ${JSON.stringify(step)}`;
      if ("text" in step) expect(matcher.acceptString(step.text), where).toBe(true);
      else if ("token" in step) expect(matcher.acceptToken(id(step.token)), where).toBe(!step.fails);
      else if ("rollback" in step) matcher.rollback(step.rollback);
      else if ("terminated" in step) expect(matcher.isTerminated(), where).toBe(true);
      else {
        matcher.fillNextTokenBitmask(mask);
        for (const t of step.allowed ?? []) expect(maskHas(mask, id(t)), `${where}: ${JSON.stringify(t)} allowed`).toBe(true);
        for (const t of step.blocked ?? []) expect(maskHas(mask, id(t)), `${where}: ${JSON.stringify(t)} blocked`).toBe(false);
      }
    });
  });
});

describe("test_excluded_branch_mask_rejects_unicode_and_stop_token, the excluded value alone", () => {
  // xgrammar compiles a grammar that matches nothing and masks every token; tagmask's engine
  // refuses it when compiling, with the reason.
  const info = TokenizerInfo.fromTokens(["你", "🦋", '"你"', '"BAD"', '"safe"', EOS], { vocabType: "raw", specialTokens: [EOS], stopTokens: [EOS] });
  it.each([{ const: "BAD" }, { enum: ["BAD"] }, { type: "string", pattern: "^BAD$" }])("%j", (blocked) => {
    const grammar = compileJsonSchema(blocked as never, { excludes: ["BAD"] }).grammar;
    expect(() => compileGrammar(info, grammar, { threads: 1 })).toThrow(GrammarError);
    expect(() => compileGrammar(info, grammar, { threads: 1 })).toThrow(/matches no string at all/);
  });
});
