/**
 * The family `X*aX{n}` (a run of n after an `a` that a repeat before it may also have read): the
 * automaton must remember which of the last n + 1 bytes were `a`, 2^(n+1) states. Below the
 * blow-up proof's threshold the engine determinizes it exactly — its masks equal the reference
 * recognizer's along random documents several times longer than the run; from the threshold on
 * it is refused by the proof (a message only the proof writes), never compiled with a counter
 * that would lose track of which `a` started the run.
 */
import { describe, expect, it } from "vitest";
import { GrammarBuilder, type IrGrammar } from "../../lib/compile/ir.js";
import { regexToIr } from "../../lib/compile/regex/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarError } from "../../lib/errors.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { randomWalk } from "./walk.js";

/** Single bytes, pairs and a triple, so walks cross the run's end inside a token. */
const vocab = TokenizerInfo.fromTokens(["<eos>", "a", "b", "ab", "ba", "aa", "bb", "aba"], {
  vocabType: "raw",
  specialTokens: ["<eos>"],
  stopTokens: ["<eos>"],
});

function grammarOf(pattern: string): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", regexToIr(pattern));
  return g.build("root");
}

const RUNS = ["(?:a|b)", "[ab]"];

describe("X*aX{n} below the blow-up proof's threshold: exact masks", () => {
  const rows = RUNS.flatMap((x) => [3, 8, 12].map((n) => [`${x}*a${x}{${n}}`, n] as const));
  it.each(rows)("%s", (pattern, n) => {
    const grammar = grammarOf(pattern);
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    let steps = 0;
    for (let seed = 1; seed <= 6; seed++) steps += randomWalk(grammar, compiled, vocab.data, { steps: 3 * (n + 2), seed, checkAllAccepts: true }).steps;
    // The walks never end early: every document continues, so they cross the run many times.
    expect(steps).toBe(6 * 3 * (n + 2));
  });
});

describe("X*aX{n} from the threshold on: refused by the proof", () => {
  const rows = RUNS.flatMap((x) => [19, 20, 32, 40, 64].map((n) => [`${x}*a${x}{${n}}`] as const));
  it.each(rows)("%s", (pattern) => {
    let error: unknown;
    try {
      compileGrammar(vocab, grammarOf(pattern), { threads: 1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GrammarError);
    expect((error as Error).message).toMatch(/after any \d+ bytes that are each 'a' or 'b', it must remember which were 'a'/);
  });
});
