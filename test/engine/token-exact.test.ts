/**
 * Exactness of token edges: the engine's masks equal the oracle's (the reference recognizer,
 * which takes a token through its bytes or, as a whole, through a token node) on a tiny token
 * list (every step, every token accepted or not as the mask says) and on the real Llama 3 and
 * Qwen3 vocabularies (realistic outputs at every step, seeded random walks at sampled steps),
 * for grammars mixing text, special tokens named by id and by text, free tokens, budgets and
 * dispatch on tokens.
 */
import { describe, expect, it } from "vitest";
import type { IrGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import type { Format } from "../../lib/format/types.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { encodeForTest, loadTestVocabulary, type TestVocabularyName } from "../helpers/vocab.js";
import { randomWalk, walkTokens } from "./walk.js";

const tok = (t: string | number) => ({ type: "token", token: t });
const tag = (begin: unknown, content: unknown, end: unknown) => ({ type: "tag", begin, content, end });
const str = (value: string) => ({ type: "const_string", value });
const lower = (f: unknown): IrGrammar => lowerFormat(f as Format);

describe("token edges, tiny token list: every step, every token", () => {
  const TOKENS = ["<s>", "</s>", "<tool>", "<code>", "<end>", "<think>", "<think_end>", "hello", "world", "{", "}", "fn(", ")", "x", "y", ",", "<bad>",
    "<", "tool>", "<to", "ol>", "<end", ">", "hel", "lo", "\"", ":", "a", "1", "é", "<tool>x"];
  const vocab = TokenizerInfo.fromTokens(TOKENS, { vocabType: "raw", specialTokens: ["<s>", "</s>"], vocabSize: TOKENS.length + 3 });
  const schema = { type: "object", properties: { a: { type: "integer" } }, required: ["a"] };
  const cases: Array<[string, unknown]> = [
    ["token begin/end around json", tag(tok("<tool>"), { type: "json_schema", json_schema: schema }, tok("<end>"))],
    ["a token or the same text", { type: "or", elements: [tag(tok("<tool>"), str("x"), "<end>"), tag("<tool>", { type: "any_text" }, "<end>")] }],
    ["token_triggered_tags with free tokens", {
      type: "token_triggered_tags", trigger_tokens: ["<tool>", 3],
      tags: [tag(tok(2), { type: "any_tokens", exclude_tokens: ["<bad>"] }, tok("<end>")), tag(tok("<code>"), { type: "exclude_token" }, tok(4))],
      exclude_tokens: [16],
    }],
    ["any_tokens with a budget, then text", { type: "sequence", elements: [{ type: "any_tokens", exclude_tokens: [">"], max_tokens: 3 }, str("hello")] }],
    ["token_dispatch without loop, control token trigger", { type: "token_dispatch", rules: [["<s>", str("hello")], ["<tool>", { type: "any_text" }]], loop: false }],
    ["dispatch on text patterns", { type: "dispatch", rules: [["<tool>", str("x")], ["fn(", { type: "regex", pattern: "[a-y]*\\)" }]], excludes: ["<bad>"] }],
    ["star of token sequences", { type: "star", content: { type: "sequence", elements: [tok("<tool>"), str("x"), tok("<end>")] } }],
  ];
  for (const [name, format] of cases) {
    it(name, () => {
      const grammar = lower(format);
      const compiled = compileGrammar(vocab, grammar);
      let steps = 0;
      for (let seed = 1; steps < 120; seed++) {
        const r = randomWalk(grammar, compiled, vocab.data, { steps: 40, seed, checkAllAccepts: true, structural: 0.5 });
        steps += Math.max(r.steps, 1);
      }
    });
  }
});

interface RealCase {
  name: string;
  format: unknown;
  output: string;
}

const LLAMA_CASES: RealCase[] = [
  {
    name: "header tokens, then calls between reserved tokens",
    format: {
      type: "sequence",
      elements: [
        tag(tok("<|start_header_id|>"), str("assistant"), tok(128007)),
        str("\n\n"),
        {
          type: "token_triggered_tags",
          trigger_tokens: ["<|reserved_special_token_5|>"],
          tags: [tag(tok("<|reserved_special_token_5|>"), { type: "json_schema", json_schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }, tok("<|reserved_special_token_3|>"))],
          exclude_tokens: ["<|start_header_id|>"],
        },
      ],
    },
    output: '<|start_header_id|>assistant<|end_header_id|>\n\nLet me call it. <|reserved_special_token_5|>{"name": "get_time"}<|reserved_special_token_3|> Done.',
  },
  {
    name: "thinking in any_tokens with a budget, then a Kimi marker by text",
    format: {
      type: "sequence",
      elements: [
        tag(tok("<|reserved_special_token_10|>"), { type: "any_tokens", max_tokens: 40 }, tok("<|reserved_special_token_11|>")),
        tag(tok("<|open|>"), { type: "any_text", excludes: ["<|close|>"] }, "<|close|>"),
      ],
    },
    output: "<|reserved_special_token_10|>Plan: answer briefly.<|reserved_special_token_11|><|open|>response<|sep|>Hi!<|close|>",
  },
];

const QWEN_CASES: RealCase[] = [
  {
    name: "think tokens, then token_dispatch on <tool_call> (a text token too)",
    format: {
      type: "sequence",
      elements: [
        tag(tok("<think>"), { type: "any_tokens", exclude_tokens: ["<|im_start|>"] }, tok("</think>")),
        {
          type: "token_dispatch",
          rules: [["<tool_call>", tag("\n", { type: "json_schema", json_schema: { type: "object", properties: { name: { type: "string" }, arguments: { type: "object" } }, required: ["name", "arguments"] } }, "\n</tool_call>")]],
          exclude_tokens: ["<|im_start|>", "<|endoftext|>"],
        },
      ],
    },
    output: '<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  },
  {
    name: "text dispatch on the same pattern, exclude_token and a single token",
    format: {
      type: "sequence",
      elements: [
        { type: "dispatch", rules: [["<tool_call>", tag("\n", { type: "json_schema", json_schema: { type: "object" } }, "\n</tool_call>")]], loop: false, excludes: ["<tools>"] },
        tok("<|box_start|>"),
        { type: "exclude_token", exclude_tokens: ["<|box_end|>"] },
        tok("<|box_end|>"),
      ],
    },
    output: 'Calling. <tool_call>\n{"q": 1}\n</tool_call><|box_start|>x<|box_end|>',
  },
];

for (const [vocabName, cases] of [["llama3", LLAMA_CASES], ["qwen3", QWEN_CASES]] as Array<[TestVocabularyName, RealCase[]]>) {
  describe(`token edges, exact masks, ${vocabName}`, () => {
    const vocab = loadTestVocabulary(vocabName, { kimiMarkers: true });
    for (const c of cases) {
      describe(c.name, () => {
        const grammar = lower(c.format);
        const compiled = compileGrammar(vocab, grammar);
        it("along a realistic output, every step", () => {
          const tokens = encodeForTest(vocabName, c.output);
          expect(walkTokens(grammar, compiled, vocab.data, tokens, 1)).toBe(tokens.length + 1);
        });
        it("along seeded random walks", () => {
          let steps = 0;
          for (let seed = 11; steps < 150; seed++) {
            const r = randomWalk(grammar, compiled, vocab.data, { steps: 150 - steps, seed, every: 10, structural: 0.5 });
            steps += Math.max(r.steps, 1);
          }
        });
      });
    }
  });
}
