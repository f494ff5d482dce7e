/**
 * Adversarial regexes and JSON Schemas through the public API (docs/safety.md): nested and huge
 * repeats, huge bounds, overlapping alternatives. Each either compiles or is refused with its
 * typed error. What keeps them bounded is checked by work, not by clock: a grammar that compiles
 * stays within a few times the NFA states, automaton states and mask work it takes today (its
 * repeats held as counters: unrolling `.{100000}` or `[^a]{0,65535}` would pass the bounds by
 * orders of magnitude), and a refusal's message names the bounded check that made it (the
 * schema compiler's step budget, the state bound, the range of a count). The slow shapes found
 * with these are listed in docs/safety.md ("Known slow inputs").
 */
import { describe, expect, it } from "vitest";
import { GrammarBuilder, type IrGrammar } from "../../lib/compile/ir.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { regexToIr } from "../../lib/compile/regex/index.js";
import { compileGrammar, type CompileStats } from "../../lib/engine/compiled-grammar.js";
import { GrammarError, SchemaError, type TagmaskError } from "../../lib/errors.js";
import type { JsonSchema } from "../../lib/format/types.js";
import { tinyVocabulary } from "../engine/tiny-vocab.js";

const vocab = tinyVocabulary();
/** Work bounds for a grammar that compiles: ~3.5x the largest of the rows below today (14,002 NFA states, 2,002 states, 3,868 mask steps). */
const MAX_NFA_STATES = 50_000;
const MAX_STATES = 10_000;
const MAX_MASK_WORK = 20_000;

type Outcome = "compiles" | [new (...args: never[]) => TagmaskError, RegExp];

/** Runs `make` (building the grammar included) and compiles; the error, or the compile's stats. */
function run(make: () => IrGrammar): { error: unknown; stats?: CompileStats } {
  try {
    return { error: undefined, stats: compileGrammar(vocab, make(), { threads: 1 }).stats() };
  } catch (e) {
    return { error: e };
  }
}

function check(name: string, make: () => IrGrammar, outcome: Outcome): void {
  const { error, stats } = run(make);
  if (outcome === "compiles") {
    expect(error, name).toBeUndefined();
    expect(stats!.nfaStates, name).toBeLessThanOrEqual(MAX_NFA_STATES);
    expect(stats!.states, name).toBeLessThanOrEqual(MAX_STATES);
    expect(stats!.maskWork, name).toBeLessThanOrEqual(MAX_MASK_WORK);
  } else {
    expect(error, name).toBeInstanceOf(outcome[0]);
    expect((error as Error).message).toMatch(outcome[1]);
  }
}

const REGEXES: Array<[string, Outcome]> = [
  ["(a*)*b", "compiles"],
  ["(a|a)*c", "compiles"],
  ["(.*){1000}", "compiles"],
  ["((a{100}){100}){100}", "compiles"],
  ["(?:[\\s\\S]{1000}){1000}", "compiles"],
  ["(?:a|b|ab)*(?:a|b|ab){30}", "compiles"],
  ["(?:.*,){40}", "compiles"],
  ["(.*a){30}", "compiles"],
  ["[^a]{0,65535}a[^a]{0,65535}", "compiles"],
  ["(?:a?){1000}a{1000}", "compiles"],
  [".{100000}", "compiles"],
  ["a{0,4294967295}", [GrammarError, /repeat count 4294967295 is too large/]],
];

describe("regexes", () => {
  it.each(REGEXES)("%s", (pattern, outcome) => {
    check(pattern, () => {
      const g = new GrammarBuilder();
      g.define("root", regexToIr(pattern));
      return g.build("root");
    }, outcome);
  });
});

const SCHEMAS: Array<[string, JsonSchema, Outcome]> = [
  ["minLength 1e9", { type: "string", minLength: 1e9 }, "compiles"],
  ["minItems 100,000", { type: "array", minItems: 100000, items: { type: "integer" } }, "compiles"],
  ["maxItems 1e9 of strings up to 1000", { type: "array", maxItems: 1e9, items: { type: "string", maxLength: 1000 } }, "compiles"],
  ["minProperties 1000", { type: "object", minProperties: 1000 }, "compiles"],
  ["maxLength 2^32 - 2", { type: "string", maxLength: 4294967294 }, [SchemaError, /^#\/maxLength: expected an integer in \[0, 2147483647\]/]],
  ["a pattern whose subsets hold hundreds of NFA states", { type: "string", pattern: "^(\\w+\\s?){1,1000}$" }, [SchemaError, /passed 4000000 steps/]],
  ["multipleOf 999983 up to 1e30", { type: "integer", multipleOf: 999983, minimum: 0, maximum: 1e30 }, [SchemaError, /^#\/multipleOf: a multipleOf whose divisor needs a remainder counter/]],
  ["a pattern whose automaton is too large", { type: "string", pattern: "^(a|b)*a(a|b){20}$" }, [SchemaError, /too large \(over 20000 states\)/]],
];

describe("JSON Schemas", () => {
  it.each(SCHEMAS)("%s", (name, schema, outcome) => {
    check(name, () => compileJsonSchema(schema).grammar, outcome);
  });
});
