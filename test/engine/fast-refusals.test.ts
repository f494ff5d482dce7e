/**
 * Hopeless regexes are refused fast (docs/engine.md, "Limits"): a repeat that goes on, then a
 * fixed run of items that also take the byte starting the run (`.*a.{25}`), has a subset
 * automaton of at least 2^26 states. The subset construction used to find that out by running
 * into its bounds (~1.7 s each); it now proves it after a few milliseconds of work and refuses
 * with a GrammarError that names the two bytes and the length of the run. Shapes that look alike
 * but stay small compile. No clock is read: only the proof writes "after any N bytes", so the
 * message shows the refusal came from it and not from the bounds (which took ~2 s of CPU).
 */
import { describe, expect, it } from "vitest";
import { GrammarBuilder, type IrGrammar } from "../../lib/compile/ir.js";
import { regexToIr } from "../../lib/compile/regex/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarError } from "../../lib/errors.js";
import { tinyVocabulary } from "./tiny-vocab.js";

const vocab = tinyVocabulary();

function regexGrammar(pattern: string): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", regexToIr(pattern));
  return g.build("root");
}

/** Compiles once: the error (or undefined) and the number of states. */
function compileOnce(grammar: IrGrammar): { error: unknown; states: number } {
  try {
    return { error: undefined, states: compileGrammar(vocab, grammar, { threads: 1 }).stateCount };
  } catch (error) {
    return { error, states: 0 };
  }
}

// pattern, the bits the refusal names (the chain it proves; the byte that starts it)
const REFUSED: Array<[string, number, string]> = [
  [".*a.{25}", 26, "'a'"],
  ["[\\s\\S]{0,100000}x[\\s\\S]{20}", 21, "'x'"],
  [".*a.{19}", 20, "'a'"],
  ["[\\s\\S]*x[\\s\\S]{40}", 41, "'x'"],
  ["(?:.|\\n)*[ab].{30}", 31, "'a'"],
  ["\\w*a\\w{40}", 41, "'a'"],
  ["[a-z]{0,5000}q[a-z]{24}", 25, "'q'"],
  ["(?:ab|.)*a.{22}", 23, "'a'"],
  ["x.*a.{25}y", 26, "'a'"],
  [".*a.{25}|b{3}", 26, "'a'"],
  // The run's items as alternatives: x and y lead to different states that close alike.
  ["(?:a|b)*a(?:a|b){25}", 26, "'a'"],
  ["(?:x|y|z)*y(?:x|y|zz){30}", 31, "'y'"],
];

describe("refused by the proof, not at the bounds", () => {
  it.each(REFUSED)("%s", (pattern, bits, start) => {
    const { error } = compileOnce(regexGrammar(pattern));
    expect(error).toBeInstanceOf(GrammarError);
    const message = (error as Error).message;
    expect(message).toMatch(/^rule '[^']+': its automaton is too large to determinize: after any \d+ bytes/);
    const named = /after any (\d+) bytes that are each (\S+) or/.exec(message);
    expect(Number(named?.[1])).toBeGreaterThanOrEqual(bits);
    expect(named?.[2]).toBe(start);
  });
});

const COMPILED: string[] = [
  // One free prefix and a run that does not overlap it: the run's position is all there is.
  "[^a]*a.{25}",
  // Digits after anything: only the length of the last run of digits matters.
  ".*\\d{40}",
  // A short run: 2^k states with k small.
  ".*a.{3}",
  // Bounded before the run: no repeat goes on past it.
  "[a-z]{0,3}a[a-z]{25}",
];

describe("alike but small: compiled", () => {
  it.each(COMPILED)("%s", (pattern) => {
    const { error, states } = compileOnce(regexGrammar(pattern));
    expect(error).toBeUndefined();
    expect(states).toBeGreaterThan(1);
  });
});
