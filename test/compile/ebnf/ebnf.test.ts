/**
 * The EBNF front end: grammars lowered into a builder must match exactly the listed strings
 * (decided by the reference recognizer); printed IR goldens; prefixes keep several grammars apart
 * in one builder; a failed call leaves the builder as it was.
 */
import { describe, expect, it } from "vitest";
import { ebnfToIr } from "../../../lib/compile/ebnf/index.js";
import { GrammarBuilder, choice, lit, printGrammar, seq, validateGrammar } from "../../../lib/compile/ir.js";
import { isMatch } from "../../../lib/compile/recognizer.js";
import { GrammarError } from "../../../lib/errors.js";
import { GRAMMARS } from "./grammars.js";

function build(source: string, prefix?: string) {
  const b = new GrammarBuilder();
  ebnfToIr(source, b, prefix === undefined ? {} : { prefix });
  return b.build(`${prefix ?? ""}root`);
}

describe("ebnfToIr: strings that must and must not match", () => {
  const rows = GRAMMARS.flatMap((g) => [
    ...g.match.map((s) => [g.name, s, true, g.source] as const),
    ...g.reject.map((s) => [g.name, s, false, g.source] as const),
  ]);
  it.each(rows)("%s: %j → %s", (_name, input, expected, source) => {
    const grammar = build(source);
    validateGrammar(grammar);
    expect(isMatch(grammar, input)).toBe(expected);
  });
});

describe("ebnfToIr golden IR", () => {
  it("arithmetic", () => {
    expect(printGrammar(build(GRAMMARS[0]!.source))).toBe(
      [
        "root ::= expr",
        'expr ::= term (("+" | "-") term)*',
        'term ::= factor (("*" | "/") factor)*',
        'factor ::= number | "(" expr ")"',
        "number ::= [0-9]+",
        "",
      ].join("\n"),
    );
  });

  it("escapes, classes, repeats, any character", () => {
    const source = String.raw`root ::= "a\x41\t" [^"\\\]] "é"{2,3} . x? ("" | "y")* [\u0100-\U0001F600]
x ::= [b] "" "c" "d"`;
    expect(printGrammar(build(source))).toBe(
      [
        'root ::= "aA\\t" [^"\\\\-\\]] "é"{2,3} [\\u{0}-\u{10ffff}] x? ("" | "y")* [Ā-\u{1f600}]',
        'x ::= "bcd"',
        "",
      ].join("\n"),
    );
  });

  it("prefixes rule names", () => {
    expect(printGrammar(build('root ::= item+\nitem ::= "i"', "p_"))).toBe('p_root ::= p_item+\np_item ::= "i"\n');
  });
});

describe("ebnfToIr with prefixes and a shared builder", () => {
  it("keeps two grammars with the same rule names apart", () => {
    const b = new GrammarBuilder();
    const digits = ebnfToIr('root ::= d+\nd ::= [0-9]', b, { prefix: "num_" });
    const words = ebnfToIr('root ::= d+\nd ::= [a-z]', b, { prefix: "word_" });
    b.define("root", seq(choice(digits, words), lit(";")));
    const g = b.build("root");
    expect(isMatch(g, "123;")).toBe(true);
    expect(isMatch(g, "abc;")).toBe(true);
    expect(isMatch(g, "a1;")).toBe(false);
  });

  it("refuses a prefix that collides with existing rules and leaves the builder unchanged", () => {
    const b = new GrammarBuilder();
    b.define("x_root", lit("keep"));
    expect(() => ebnfToIr('root ::= "a"', b, { prefix: "x_" })).toThrow(/already exists/);
    expect(() => ebnfToIr('root ::= undefined-rule', b, { prefix: "y_" })).toThrow(GrammarError);
    expect(() => ebnfToIr('root ::= root "a"', b, { prefix: "z_" })).toThrow(/left recursion/);
    // No half-defined rules were left behind: the builder still builds with only its own rule.
    const g = b.build("x_root");
    expect(g.rules.map((r) => r.name)).toEqual(["x_root"]);
  });
});
