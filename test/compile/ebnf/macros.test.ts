/**
 * xgrammar's EBNF macros: TagDispatch (with xgrammar's own test strings and both its argument
 * styles: excludes, and the older stop_eos / stop_str), TokenTagDispatch, Token and ExcludeToken
 * (decided over token sequences by the reference recognizer), and their argument errors with
 * line and column.
 */
import { describe, expect, it } from "vitest";
import { ebnfToIr } from "../../../lib/compile/ebnf/index.js";
import { GrammarBuilder, printGrammar, type IrGrammar } from "../../../lib/compile/ir.js";
import { isMatch, isViablePrefix, Recognizer, type RecognizerState } from "../../../lib/compile/recognizer.js";
import { GrammarError } from "../../../lib/errors.js";

function grammar(source: string): IrGrammar {
  const b = new GrammarBuilder();
  const root = ebnfToIr(source, b);
  return { ...b.build("root"), root: root.rule };
}

const cases: Array<[string, string, string[], string[], string[]]> = [
  // xgrammar's test_grammar_matcher_tag_dispatch: test_simple and test_complex_rule.
  ["TagDispatch, looping", 'root ::= TagDispatch(("tag1", rule1), ("tag2", rule2))\nrule1 ::= "abcd"\nrule2 ::= "efg"\n',
    ["tag1abcd", "tag1abcdtag2efg", "tag1abcdqqqqtag2efg", "", "qq"], ["tag1abc", "tag1"], ["tag1abce", "ttag1abd"]],
  ["TagDispatch with repeats in the rules", 'root ::= TagDispatch(("tag1", rule1), ("tag2", rule2))\nrule1 ::= "abcd" [p]*\nrule2 ::= "efg" [t]*\n',
    // [t]* may take the "t" of "tag1", so "tag2efgtttttag1abc" ends in free text "ag1abc".
    ["tag1abcd", "tag1abcdppppptag2efg", "tag2efgttttt", "tag2efgtttttag1abc"], ["tag1ab", "tag1abcdpptag2"], ["tag1abcx", "tag2eft"]],
  ["loop_after_dispatch=false: one dispatch ends it", 'root ::= TagDispatch(("<f>", f), loop_after_dispatch=false)\nf ::= "x"',
    ["", "ab", "ab<f>x"], ["ab<f>"], ["ab<f>xy", "<f>x<f>x"]],
  ["excludes (xgrammar's newer argument), a one-string tuple", 'root ::= TagDispatch(("<end>", leaf), excludes=("<bad>")) "!"\nleaf ::= [a-z]+',
    ["!", "hi<end>abc!", "<end>x<end>y!"], ["hi<ba"], ["<bad>!", "hi<end>!"]],
  ["stop_str ends the dispatch (consumed), stop_eos=false (xgrammar's any_text in a tag)", 'root ::= "BEG" TagDispatch(stop_eos=false, stop_str=("END"), loop_after_dispatch=false)',
    ["BEGHello!END", "BEGENENNDENEND"], ["BEGEN", "BEG"], ["BEGENENDEN", "BEGBEGENDEND"]],
  ["stop_str with stop_eos: either ends it", 'root ::= TagDispatch(("<a>", a), stop_str=("</s>", "END"))\na ::= "1"',
    ["", "x<a>1y", "x<a>1yEND", "</s>"], [], ["END!", "x</s>y"]],
  ["TagDispatch inside a sequence and a group", 'root ::= "[" (TagDispatch(("<a>", a), excludes=("]"))) "]"\na ::= "1"',
    ["[]", "[x<a>1y]"], ["[x"], ["[x]y]", "[<a>2]"]],
];

describe("TagDispatch", () => {
  it.each(cases)("%s", (_name, source, match, prefix, reject) => {
    const g = grammar(source);
    for (const s of match) expect(isMatch(g, s), `must match ${JSON.stringify(s)}`).toBe(true);
    for (const s of prefix) {
      expect(isMatch(g, s), `must not match yet ${JSON.stringify(s)}`).toBe(false);
      expect(isViablePrefix(g, s), `must be viable ${JSON.stringify(s)}`).toBe(true);
    }
    for (const s of reject) expect(isMatch(g, s), `must not match ${JSON.stringify(s)}`).toBe(false);
  });

  it("prints as the rules it stands for", () => {
    expect(printGrammar(grammar('root ::= TagDispatch(("t", r), excludes=("x", "y"), stop_str=("END",))\nr ::= "a"'))).toBe(
      'root ::= text(excluding "t", "x", "y", "END") (("t" r) text(excluding "t", "x", "y", "END"))* ("" | "END")\nr ::= "a"\n',
    );
  });
});

// Token macros over a token list (xgrammar's test_token_edge vocabularies).
const TOKENS = ["<s>", "</s>", "hello", "trigger", "content", "blocked", "fn(", ")", "x", "y"];
const enc = new TextEncoder();
function accepts(g: IrGrammar, tokens: number[]): boolean {
  const r = new Recognizer(g, { tokens: { resolve: (t) => (typeof t === "number" ? t : TOKENS.indexOf(t)), isFree: (id) => id < TOKENS.length && id !== 1 } });
  let states: RecognizerState[] = [r.initial()];
  for (const id of tokens) {
    const next: RecognizerState[] = [];
    for (const s of states) for (const n of [r.stepToken(s, id), r.stepBytes(s, enc.encode(TOKENS[id]!))]) if (n && !next.includes(n)) next.push(n);
    states = next;
  }
  return states.some((s) => r.accepts(s));
}

describe("token macros", () => {
  const tokenCases: Array<[string, string, number[][], number[][]]> = [
    ["Token: one of the ids", "root ::= Token(2, 4)", [[2], [4]], [[3], [2, 4], []]],
    ["Token then a string", 'root ::= Token(2) "trigger"', [[2, 3]], [[2], [3, 3]]],
    ["Token by text", 'root ::= Token("content") Token(8, "y")', [[4, 8], [4, 9]], [[4, 4]]],
    ["ExcludeToken: one free token not excluded", "root ::= ExcludeToken(5, 6)", [[2], [0], [8]], [[5], [6], [1], [2, 2]]],
    ["TokenTagDispatch with a trigger and excludes", 'root ::= TokenTagDispatch((3, body), excludes=(5,))\nbody ::= Token(4)',
      [[], [2, 2], [3, 4], [2, 3, 4, 8]], [[5], [3], [3, 5], [3, 2]]],
    ["TokenTagDispatch without loop", "root ::= TokenTagDispatch((3, body), loop_after_dispatch=false)\nbody ::= Token(4)", [[2, 3, 4]], [[3, 4, 2], [3, 4, 3, 4]]],
    ["xgrammar's e2e: fn( Token(8, 9) arg )", 'root ::= TokenTagDispatch((3, call), excludes=(5,))\ncall ::= "fn(" Token(8, 9) arg ")"\narg ::= [a-z]+',
      [[3, 6, 8, 2, 7]], [[3, 6, 2, 2, 7]]],
  ];
  it.each(tokenCases)("%s", (_name, source, match, reject) => {
    const g = grammar(source);
    for (const t of match) expect(accepts(g, t), `must match ${JSON.stringify(t)}`).toBe(true);
    for (const t of reject) expect(accepts(g, t), `must not match ${JSON.stringify(t)}`).toBe(false);
  });
});

describe("macro errors", () => {
  const bad: Array<[string, number, number, RegExp]> = [
    ['root ::= TagDispatch(("a", r), bogus=true)\nr ::= "x"', 1, 32, /unknown argument bogus of TagDispatch/],
    ['root ::= TagDispatch(("", r))\nr ::= "x"', 1, 23, /tag must be a non-empty string/],
    ['root ::= TagDispatch(("a", r, s))\nr ::= "x"\ns ::= "y"', 1, 22, /must be a pair \(trigger, rule\)/],
    ['root ::= TagDispatch(("a", "r"))', 1, 28, /must be a rule name/],
    ['root ::= TagDispatch(stop_eos=false)', 1, 10, /stop_eos=true or at least one stop string/],
    ['root ::= TagDispatch(stop_eos=1)', 1, 31, /stop_eos must be true or false/],
    ['root ::= TagDispatch(excludes=("x"), stop_str=("x"))', 1, 31, /both excluded and a stop string/],
    ['root ::= TagDispatch(("a", r), excludes=("a"))\nr ::= "x"', 1, 23, /also excluded, so it could never dispatch/],
    ['root ::= TagDispatch(("a", r)\nr ::= "x"', 2, 1, /expected ',' or '\)' after a macro argument, found 'r'/],
    ['root ::= TagDispatch(("a", r), ', 1, 21, /unterminated macro arguments/],
    ['root ::= TagDispatch(("a", r) ("b", r))\nr ::= "x"', 1, 31, /expected ',' or '\)' after a macro argument/],
    ["root ::= TokenTagDispatch((3, r), excludes=(3,))\nr ::= Token(1)", 1, 28, /also excluded/],
    ["root ::= Token()", 1, 10, /needs at least one token/],
    ["root ::= Token(1, true)", 1, 19, /token id or a non-empty token text, found bool/],
    ["root ::= ExcludeToken(99999999999)", 1, 23, /too large for a token id/],
    ['root ::= TagDispatch(("a", r), loop_after_dispatch=true, loop_after_dispatch=false)\nr ::= "x"', 1, 58, /given twice/],
  ];
  it.each(bad)("%s", (source, line, column, message) => {
    let error: unknown;
    try {
      grammar(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GrammarError);
    expect((error as GrammarError).message).toMatch(message);
    expect({ line: (error as GrammarError).line, column: (error as GrammarError).column }).toEqual({ line, column });
  });
});
