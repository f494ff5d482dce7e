/**
 * GBNF export against node-llama-cpp 3.21.1's own grammar code (llama.cpp's GBNF parser and
 * grammar matcher, CPU build, no model needed): every grammar we emit must parse, and on every
 * input tried, llama.cpp's full-match check (`LlamaGrammar._testText`, which runs
 * `isTextCompatible` over the text's code points) must agree with the reference recognizer on
 * the IR. Inputs containing U+0000 are skipped: llama.cpp treats code point 0 as an end marker.
 *
 * The EBNF grammars written in llama.cpp's own syntax are also fed to llama.cpp unchanged, so
 * the EBNF front end is checked against llama.cpp's reading of the same source.
 */
import { describe, expect, it } from "vitest";
import { ebnfToIr } from "../../../lib/compile/ebnf/index.js";
import { irToGbnf } from "../../../lib/compile/gbnf.js";
import { GrammarBuilder, type IrGrammar } from "../../../lib/compile/ir.js";
import { isMatch } from "../../../lib/compile/recognizer.js";
import { regexToIr } from "../../../lib/compile/regex/index.js";
import { GRAMMARS } from "../ebnf/grammars.js";
import { PATTERNS, inputsFor } from "../regex/patterns.js";
import { llamaGrammar, llamaMatches } from "../../helpers/llama-gbnf.js";
import { IR_CASES } from "./cases.js";

/** Parses `gbnf` with llama.cpp and returns the inputs on which it disagrees with the IR. */
async function disagreements(ir: IrGrammar, gbnf: string, inputs: Iterable<string>): Promise<string[]> {
  const grammar = await llamaGrammar(gbnf);
  const bad: string[] = [];
  for (const input of inputs) {
    if (input.includes("\u0000")) continue;
    if (llamaMatches(grammar, input) !== isMatch(ir, input)) bad.push(JSON.stringify(input));
  }
  return bad;
}

const single = (body: IrGrammar["rules"][number]["body"]): IrGrammar => ({ rules: [{ name: "root", body }], root: 0 });

describe("irToGbnf output is accepted by node-llama-cpp and means the same", () => {
  it.each(PATTERNS.map(([p], i) => [p, i] as const))("regex %s", async (pattern, i) => {
    const ir = single(regexToIr(pattern));
    const inputs = inputsFor(pattern, ir.rules[0]!.body, 1000 + i);
    expect(await disagreements(ir, irToGbnf(ir), inputs)).toEqual([]);
  });

  it.each(GRAMMARS.map((g) => [g.name, g] as const))("EBNF %s", async (_name, g) => {
    const b = new GrammarBuilder();
    ebnfToIr(g.source, b);
    const ir = b.build("root");
    expect(await disagreements(ir, irToGbnf(ir), [...g.match, ...g.reject])).toEqual([]);
  });

  it.each(IR_CASES.map((c) => [c.name, c] as const))("IR %s", async (_name, c) => {
    expect(await disagreements(c.grammar, irToGbnf(c.grammar, c.options), [...c.match, ...c.reject])).toEqual([]);
  });
});

describe("EBNF sources in llama.cpp syntax read the same by llama.cpp and ebnfToIr", () => {
  it.each(GRAMMARS.filter((g) => g.llama).map((g) => [g.name, g] as const))("%s", async (_name, g) => {
    const b = new GrammarBuilder();
    ebnfToIr(g.source, b);
    const ir = b.build("root");
    expect(await disagreements(ir, g.source, [...g.match, ...g.reject])).toEqual([]);
  });
});
