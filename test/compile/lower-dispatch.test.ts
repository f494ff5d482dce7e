/**
 * Lowering of `dispatch` and of the token-level formats: the languages (strings that match, stay
 * viable or are rejected; for token formats, token sequences decided by the reference
 * recognizer over a token list), xgrammar's end detection (a tag's string end reaches string
 * formats, its token end token formats, and `dispatch` gets neither), and the printed IR.
 */
import { describe, expect, it } from "vitest";
import { irToGbnf } from "../../lib/compile/gbnf.js";
import { printGrammar, type IrGrammar } from "../../lib/compile/ir.js";
import { GrammarError } from "../../lib/errors.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch, isViablePrefix, Recognizer, type RecognizerState } from "../../lib/compile/recognizer.js";
import type { Format } from "../../lib/format/types.js";
import { expectGolden } from "./golden.js";

const str = (value: string) => ({ type: "const_string", value });
const tok = (t: string | number) => ({ type: "token", token: t });
const tag = (begin: unknown, content: unknown, end: unknown) => ({ type: "tag", begin, content, end });
const lower = (f: unknown): IrGrammar => lowerFormat(f as Format);

interface TextCase {
  name: string;
  format: unknown;
  match: string[];
  prefix: string[];
  reject: string[];
}

const textCases: TextCase[] = [
  {
    name: "dispatch: free text, each pattern followed by its format, looping",
    format: { type: "dispatch", rules: [["<f1>", { type: "regex", pattern: "[0-9]+;" }], ["<f2>", str("ok")]] },
    match: ["", "hello", "a<f1>12;b", "<f2>ok<f1>3;<f2>ok", "x<f2>okok", "<f1 and <f2 are not patterns", "<f"],
    prefix: ["<f1>", "<f1>1", "a<f2>o"],
    reject: ["<f1>x", "<f2>no", "a<f1>;"],
  },
  {
    name: "dispatch without loop: one dispatch at most, nothing after it",
    format: { type: "dispatch", rules: [["<f>", str("x")]], loop: false },
    match: ["", "abc", "abc<f>x"],
    prefix: ["abc<f>"],
    reject: ["<f>xa", "<f>x<f>x", "<f>y"],
  },
  {
    name: "dispatch excludes: forbidden in the free text, so a sequence can follow",
    format: { type: "sequence", elements: [{ type: "dispatch", rules: [["<f>", str("x")]], excludes: ["</r>"] }, str("</r>")] },
    match: ["</r>", "a<f>xb</r>"],
    prefix: ["a", "a</r"],
    reject: ["a</r>b</r>", "a</r>b"],
  },
  {
    name: "dispatch in a tag: the tag's end is not excluded (xgrammar's rule)",
    format: tag("<r>", { type: "dispatch", rules: [["<f>", str("x")]] }, "</r>"),
    match: ["<r></r>", "<r>a</r>", "<r>a</r>b</r>", "<r><f>x</r>"],
    prefix: ["<r>a</r", "<r><f>"],
    reject: ["<r><f></r>"],
  },
  {
    name: "dispatch in a tag with the end in its excludes (xgrammar's documented recipe)",
    format: tag("<r>", { type: "dispatch", rules: [["<f>", str("x")]], excludes: ["</r>"] }, "</r>"),
    match: ["<r></r>", "<r>a<f>xb</r>"],
    prefix: ["<r>a"],
    reject: ["<r>a</r>b</r>"],
  },
  {
    name: "any_text in a dispatch rule still stops at the enclosing tag's end",
    format: tag("<r>", { type: "dispatch", rules: [["<f>", { type: "any_text" }]], loop: false }, "</r>"),
    match: ["<r>a<f>b</r>"],
    prefix: ["<r>a<f>b"],
    reject: ["<r>a<f>b</r>c</r>"],
  },
];

describe("dispatch lowering: languages", () => {
  for (const c of textCases) {
    it(c.name, () => {
      const g = lower(c.format);
      for (const s of c.match) expect(isMatch(g, s), `must match ${JSON.stringify(s)}`).toBe(true);
      for (const s of c.prefix) {
        expect(isMatch(g, s), `must not match yet ${JSON.stringify(s)}`).toBe(false);
        expect(isViablePrefix(g, s), `must be viable ${JSON.stringify(s)}`).toBe(true);
      }
      for (const s of c.reject) expect(isMatch(g, s), `must not match ${JSON.stringify(s)}`).toBe(false);
    });
  }
});

// A token list for the token-level languages: ids by position, "</s>" is not special here (the
// recognizer knows no stop tokens); free tokens are all but "<ctl>".
const TOKENS = ["<tool>", "<end>", "<think>", "</think>", "x", "y", "<bad>", "<ctl>", "<end>x"];
const universe = {
  resolve: (ref: string | number) => (typeof ref === "number" ? ref : TOKENS.indexOf(ref)),
  isFree: (id: number) => id < TOKENS.length && TOKENS[id] !== "<ctl>",
};
const enc = new TextEncoder();

/** Steps a sequence of tokens, each either through a token node or through its bytes. */
function run(r: Recognizer, tokens: string[]): RecognizerState[] {
  let states = [r.initial()];
  for (const t of tokens) {
    const id = TOKENS.indexOf(t);
    const next: RecognizerState[] = [];
    for (const s of states) {
      for (const n of [r.stepToken(s, id), t === "<ctl>" ? null : r.stepBytes(s, enc.encode(t))]) if (n && !next.includes(n)) next.push(n);
    }
    states = next;
  }
  return states;
}

interface TokenCase {
  name: string;
  format: unknown;
  match: string[][];
  reject: string[][];
}

const tokenCases: TokenCase[] = [
  {
    name: "token by text and by id",
    format: { type: "sequence", elements: [tok("<tool>"), tok(4)] },
    match: [["<tool>", "x"]],
    reject: [["<tool>"], ["<tool>", "y"], ["x"]],
  },
  {
    name: "exclude_token in a token tag: the end token is excluded too",
    format: tag(tok("<tool>"), { type: "exclude_token", exclude_tokens: ["<bad>"] }, tok("<end>")),
    match: [["<tool>", "x", "<end>"], ["<tool>", "<think>", "<end>"]],
    reject: [["<tool>", "<end>", "<end>"], ["<tool>", "<bad>", "<end>"], ["<tool>", "<ctl>", "<end>"], ["<tool>", "<end>"]],
  },
  {
    name: "any_tokens with a budget",
    format: tag(tok("<think>"), { type: "any_tokens", max_tokens: 2 }, tok("</think>")),
    match: [["<think>", "</think>"], ["<think>", "x", "y", "</think>"]],
    reject: [["<think>", "x", "y", "x", "</think>"], ["<think>", "</think>", "</think>"]],
  },
  {
    name: "any_text in a token tag: the token end does not reach it",
    format: tag(tok("<tool>"), { type: "any_text" }, tok("<end>")),
    match: [["<tool>", "x", "<end>"], ["<tool>", "<end>x", "<end>"]],
    reject: [["<tool>", "x"]],
  },
  {
    name: "token_triggered_tags: triggers and the enclosing end token are not free",
    format: tag(tok("<think>"), {
      type: "token_triggered_tags", trigger_tokens: ["<tool>"], tags: [tag(tok("<tool>"), str("x"), tok("<end>"))], exclude_tokens: ["<bad>"],
    }, tok("</think>")),
    match: [["<think>", "</think>"], ["<think>", "y", "<tool>", "x", "<end>", "y", "</think>"]],
    reject: [["<think>", "<tool>", "y", "<end>", "</think>"], ["<think>", "<bad>", "</think>"], ["<think>", "</think>", "</think>"]],
  },
  {
    name: "token_triggered_tags with at_least_one: a tag first",
    format: { type: "token_triggered_tags", trigger_tokens: [0], tags: [tag(tok(0), str("x"), tok(1))], at_least_one: true },
    match: [["<tool>", "x", "<end>"], ["<tool>", "x", "<end>", "y", "<tool>", "x", "<end>"]],
    reject: [["y", "<tool>", "x", "<end>"], []],
  },
  {
    name: "token_dispatch: no end detection, loops",
    format: tag(tok("<think>"), { type: "token_dispatch", rules: [["<tool>", str("x")]], exclude_tokens: ["</think>"] }, tok("</think>")),
    match: [["<think>", "y", "<tool>", "x", "<end>", "</think>"]],
    reject: [["<think>", "<tool>", "y", "</think>"], ["<think>", "</think>", "</think>"]],
  },
];

describe("token-level lowering: languages over token sequences", () => {
  for (const c of tokenCases) {
    it(c.name, () => {
      const r = new Recognizer(lower(c.format), { tokens: universe });
      for (const t of c.match) expect(run(r, t).some((s) => r.accepts(s)), `must match ${t.join(" ")}`).toBe(true);
      for (const t of c.reject) expect(run(r, t).some((s) => r.accepts(s)), `must not match ${t.join(" ")}`).toBe(false);
    });
  }

  it("any_tokens in a string tag: the string end is not excluded from the tokens (no cross-level detection)", () => {
    const vocab = ["<r>", "</r>", "x"];
    const r = new Recognizer(lower(tag("<r>", { type: "any_tokens" }, "</r>")), {
      tokens: { resolve: (ref) => (typeof ref === "number" ? ref : vocab.indexOf(ref)), isFree: (id) => id < vocab.length },
    });
    // "</r>" as a free token keeps the tag open; as text it ends it.
    const afterBegin = r.stepBytes(r.initial(), enc.encode("<r>"))!;
    const asToken = r.stepToken(r.stepToken(afterBegin, 2)!, 1)!;
    expect(r.accepts(asToken)).toBe(false);
    expect(r.accepts(r.stepBytes(asToken, enc.encode("</r>"))!)).toBe(true);
    expect(r.accepts(r.stepBytes(afterBegin, enc.encode("</r>"))!)).toBe(true);
  });
});

describe("GBNF export", () => {
  it("writes dispatch as rules over text", () => {
    expect(irToGbnf(lower(textCases[0]!.format))).toContain('"<f1>"');
  });

  it.each([
    ["a token", tok(3)],
    ["free tokens", { type: "any_tokens", max_tokens: 2 }],
    ["a repeat of free tokens", { type: "star", content: { type: "any_tokens" } }],
  ])("refuses token-level formats: %s", (_name, f) => {
    expect(() => irToGbnf(lower(f))).toThrow(GrammarError);
    expect(() => irToGbnf(lower(f))).toThrow(/token-level node .* matches token ids/);
  });
});

describe("printed IR of dispatch and token formats", () => {
  it("matches the golden file", () => {
    const formats: Array<[string, unknown]> = [
      ...textCases.map((c) => [c.name, c.format] as [string, unknown]),
      ...tokenCases.map((c) => [c.name, c.format] as [string, unknown]),
    ];
    expectGolden("lower-dispatch-tokens.txt", formats.map(([name, f]) => `## ${name}\n${printGrammar(lower(f))}`).join("\n"));
  });
});
