/**
 * Bad EBNF: every error is a GrammarError carrying the exact 1-based line and column (UTF-16
 * units) and the 0-based offset, and a message naming what was expected.
 */
import { describe, expect, it } from "vitest";
import { ebnfToIr } from "../../../lib/compile/ebnf/index.js";
import { GrammarBuilder } from "../../../lib/compile/ir.js";
import { GrammarError } from "../../../lib/errors.js";

/** [source, line, column, message fragment]. */
const BAD: Array<[string, number, number, RegExp]> = [
  ['root ::= "abc', 1, 10, /unterminated string/],
  ["root ::= [abc", 1, 10, /unterminated character class/],
  ["root ::= [a-", 1, 10, /unterminated character class/],
  ["root ::= foo", 1, 10, /undefined rule 'foo'/],
  ['root ::= "a" bar\nbar ::= baz "b"\n', 2, 9, /undefined rule 'baz'/],
  ['foo ::= "a"', 1, 1, /missing root rule/],
  ["", 1, 1, /missing root rule/],
  ['root ::= "a"\nroot ::= "b"', 2, 1, /duplicate rule 'root': it is already defined at line 1, column 1/],
  ['root ::= "\\q"', 1, 11, /bad escape '\\q'/],
  ['root ::= "\\x4"', 1, 11, /\\x must be followed by exactly 2 hex digits/],
  ['root ::= "ab\\u12G4"', 1, 13, /\\u must be followed by exactly 4 hex digits/],
  ['root ::= "\\uD800"', 1, 11, /surrogate/],
  ["root ::= [\\U00110000]", 1, 11, /beyond U\+10FFFF/],
  ['root ::= "\\', 1, 11, /'\\' at the end of the input/],
  ['root ::= "a"{3,2}', 1, 13, /bad repeat bounds \{3,2\}/],
  ['root ::= "a"{x}', 1, 14, /expected a repeat count after '\{'/],
  ['root ::= "a"{2', 1, 15, /expected '\}'/],
  ['root ::= "a"{2,x}', 1, 16, /expected a maximum repeat count/],
  ['root ::= "a"{99999999999}', 1, 14, /bad repeat bounds: 99999999999 is too large/],
  ["root ::= [z-a]", 1, 11, /bad character range/],
  ['root ::= root "a" | "b"', 1, 1, /left recursion: root -> root/],
  ['root ::= a\na ::= b "x"\nb ::= a | "y"', 2, 1, /left recursion: a -> b -> a/],
  ['root ::= x\nx ::= y? x "a" | "b"\ny ::= "c"', 2, 1, /left recursion: x -> x/],
  ['root ::= x\nx ::= ("" | "-")* x "a" | "b"', 2, 1, /left recursion: x -> x/],
  ['root ::= * "a"', 1, 10, /'\*' needs an element before it/],
  ['root ::= "a" | +', 1, 16, /'\+' needs an element before it/],
  ['root ::= ("a"', 1, 10, /unterminated group/],
  ['root ::= ("a" | ("b")', 1, 10, /unterminated group/],
  ['root ::= "a")', 1, 13, /unmatched '\)'/],
  ['root = "a"', 1, 6, /expected '::=' after the rule name 'root'/],
  ['::= "a"', 1, 1, /expected a rule name/],
  ['root ::= "a"\n  ::= "b"', 2, 3, /unexpected ':'/],
  ['root ::= "a" b ::= "c"', 1, 14, /expected a line break before the next rule/],
  ['root ::= b ::= "c"', 1, 10, /expected a line break before the next rule/],
  ["root ::= <[12]>", 1, 10, /token references/],
  ["root ::= []", 1, 10, /empty character class '\[\]'/],
  ['root ::= value ">"\nvalue[max_chars=2] ::= [^]*', 2, 6, /rule attributes/],
  ["root[max_chars=3] ::= [a]*", 1, 5, /rule attributes/],
  ['root ::= (= "a")', 1, 10, /lookahead assertions/],
  ['root ::= TagDispatch(("<a>", x))', 1, 30, /undefined rule 'x'/],
  ['root ::= Regex("a+")', 1, 10, /xgrammar macro Regex/],
  ['root ::= "a" ;', 1, 14, /unexpected ';'/],
  ['root ::= x\n\nx ::= "a"\n  | "b" [z-a]', 4, 10, /bad character range/],
  ['root ::= "é😀" @', 1, 16, /unexpected '@'/],
  ['# comment\r\nroot ::= "a"\r\n  | "b" ?? )', 3, 12, /unmatched '\)'/],
];

describe("ebnfToIr errors carry line and column", () => {
  it.each(BAD)("%j → %i:%i", (source, line, column, message) => {
    let caught: unknown;
    try {
      ebnfToIr(source, new GrammarBuilder());
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(GrammarError);
    const err = caught as GrammarError;
    expect([err.line, err.column]).toEqual([line, column]);
    expect(err.message).toMatch(message);
    expect(err.message).toContain(`line ${line}, column ${column}`);
    // The offset agrees with the line and column.
    let offset = 0;
    for (const l of source.split(/\r\n|\r|\n/).slice(0, line - 1)) {
      offset += l.length;
      offset += source.startsWith("\r\n", offset) ? 2 : 1;
    }
    expect(err.position).toBe(offset + column - 1);
  });
});

describe("ebnfToIr on large and deep sources", () => {
  it("refuses groups nested deeper than 256 with their position", () => {
    const source = `root ::= ${"(".repeat(257)}"a"${")".repeat(257)}`;
    expect(() => ebnfToIr(source, new GrammarBuilder())).toThrow(/line 1, column 266: groups are nested more than 256 deep/);
  });

  it("finds left recursion through a chain of 5000 rules without exhausting the stack", () => {
    const rules = Array.from({ length: 5000 }, (_, i) => `r${i} ::= r${(i + 1) % 5000} "x" | "y"`);
    expect(() => ebnfToIr(`root ::= r0\n${rules.join("\n")}`, new GrammarBuilder())).toThrow(/left recursion: r0 -> r1 -> r2 .* -> r4999 -> r0/);
  });
});
