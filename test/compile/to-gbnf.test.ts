/**
 * toGBNF: structural tags → llama.cpp GBNF. node-llama-cpp 3.21.1's own parser must accept every
 * grammar, and llama.cpp's full-match check (`LlamaGrammar._testText`, internal, reached by a
 * cast as in test/compile/gbnf) must agree with the reference recognizer on the IR for every
 * string input of the lowering table and the seed cases.
 */
import { describe, expect, it } from "vitest";
import { toGBNF } from "../../lib/compile/index.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { GrammarError } from "../../lib/errors.js";
import type { Format } from "../../lib/format/types.js";
import { lowerCases } from "./lower-cases.js";
import { llamaGrammar, llamaMatches } from "../helpers/llama-gbnf.js";
import { seedNames, seeds } from "../helpers/seeds.js";

describe("toGBNF", () => {
  it.each(lowerCases.map((c) => [c.name, c] as const))("%s parses in llama.cpp and agrees", async (_name, c) => {
    const format = c.format as Format;
    const gbnf = toGBNF(format, { ignoreTokenLimits: true });
    const grammar = await llamaGrammar(gbnf);
    const ir = lowerFormat(format);
    const inputs = [...c.match, ...c.prefix, ...c.reject].filter((s): s is string => typeof s === "string");
    const bad = inputs.filter((s) => llamaMatches(grammar, s) !== isMatch(ir, s));
    expect(bad).toEqual([]);
  });

  it.each(seedNames.map((n) => [n] as const))("seed %s parses in llama.cpp and agrees on sample outputs", async (name) => {
    const gbnf = toGBNF(seeds[name]);
    const grammar = await llamaGrammar(gbnf);
    const ir = lowerFormat(seeds[name]);
    const samples = [
      "Hi<|close|>response<|sep|>",
      '<|open|>response<|sep|>x<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>' +
        '<|open|>argument key="location" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
      'x<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="add" index="1"<|sep|><|open|>json type="object"<|sep|>' +
        '{"y": 1, "x": 2, "items": ["a"]}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
      "a<|open|>b<|close|>response<|sep|>",
    ];
    expect(samples.filter((s) => llamaMatches(grammar, s) !== isMatch(ir, s))).toEqual([]);
  });

  it("refuses a max_tokens limit unless told to drop it", () => {
    const format: Format = { type: "any_text", max_tokens: 5 };
    expect(() => toGBNF(format)).toThrow(GrammarError);
    expect(toGBNF(format, { ignoreTokenLimits: true })).toMatch(/^root ::= /m);
  });
});
