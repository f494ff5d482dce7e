/**
 * IR grammars for the GBNF exporter, with strings that must and must not match. gbnf.test.ts
 * compares the output with golden files (golden/<name>.gbnf); llama.test.ts checks that
 * node-llama-cpp parses each one and agrees with the reference recognizer on the strings.
 */
import {
  GrammarBuilder, charClass, choice, lit, never, optional, repeat, seq, star, text, type IrGrammar,
} from "../../../lib/compile/ir.js";
import type { GbnfOptions } from "../../../lib/compile/gbnf.js";

export interface IrCase {
  name: string;
  grammar: IrGrammar;
  options?: GbnfOptions;
  match: string[];
  reject: string[];
}

const single = (body: IrGrammar["rules"][number]["body"]): IrGrammar => ({ rules: [{ name: "root", body }], root: 0 });

function nullableItems(): IrGrammar {
  const b = new GrammarBuilder();
  b.define("root", star(b.ruleRef("item")));
  b.define("item", seq(optional(lit("x")), optional(lit("y"))));
  return b.build("root");
}

function oddNames(): IrGrammar {
  const b = new GrammarBuilder();
  b.define("start", seq(b.ruleRef("tool.call/args"), b.ruleRef("root"), b.ruleRef("x_y"), b.ruleRef("é")));
  b.define("tool.call/args", lit("a"));
  b.define("root", lit("b"));
  b.define("x_y", lit("c"));
  b.define("é", lit("d"));
  return b.build("start");
}

export const IR_CASES: IrCase[] = [
  {
    name: "text inside a tag",
    grammar: single(seq(lit("<think>"), text(["</think>"]), lit("</think>"))),
    match: ["<think>a</think>", "<think></think>", "<think><</think>", "<think></thin></think>", "<think>é\n😀</think>"],
    reject: ["<think></think></think>", "<think>x</think", "<think>", "think></think>"],
  },
  {
    name: "overlapping excluded strings",
    grammar: single(seq(text(["aab", "ab"]), lit("!"))),
    match: ["a!", "aa!", "ba!", "!!", "aaa!", "bbb!"],
    reject: ["ab!", "aab!", "xaby!", "a"],
  },
  {
    name: "text with max_chars and excludes",
    grammar: single(seq(text(["ab"], { maxChars: 3 }), lit("."))),
    match: ["aaa.", "ba.", ".", "a.", "é😀a."],
    reject: ["abc.", "aaaa.", "xab.", "ab."],
  },
  {
    name: "text with a large max_chars",
    grammar: single(seq(lit("["), text([], { maxChars: 40 }), lit("]"))),
    match: ["[]", `[${"x".repeat(40)}]`, `[${"é".repeat(33)}]`],
    reject: [`[${"x".repeat(41)}]`, "[", `[${"😀".repeat(41)}]`],
  },
  {
    name: "max_tokens dropped on request",
    grammar: single(seq(text(["\n"], { maxTokens: 5 }), lit("\n"))),
    options: { ignoreTokenLimits: true },
    match: ["abc\n", "\n"],
    reject: ["a\nb\n", "abc"],
  },
  {
    name: "non-ASCII excluded strings",
    grammar: single(seq(text(["終わり", "😀"]), lit("。"))),
    match: ["終わ。", "わり。", "始まり終わ。", "😃。"],
    reject: ["終わり。", "😀。", "a😀b。"],
  },
  {
    name: "class over the surrogate block",
    grammar: single(repeat(charClass([[0xd000, 0xe000]]), 1, null)),
    match: ["\ud000", "\ud7ff\ue000"],
    reject: ["", "a", "\ue001"],
  },
  {
    name: "negated class and never",
    grammar: single(choice(repeat(charClass([[0x61, 0x7a]], true), 1, 3), never(), seq(lit("z"), never()))),
    match: ["A", "ÉÉ", "1 2"],
    reject: ["a", "z", "ABCD", ""],
  },
  {
    name: "counted repeat of a nullable item",
    grammar: single(repeat(seq(optional(lit("a")), optional(lit("b"))), 2, 4)),
    match: ["", "ab", "abab", "aaaa", "ba", "abababab"],
    reject: ["aaaaa", "ababababa", "c"],
  },
  {
    name: "star of a nullable rule",
    grammar: nullableItems(),
    match: ["", "xy", "yx", "xxy", "yyyy"],
    reject: ["z", "xz"],
  },
  {
    name: "large counted repeat",
    grammar: single(repeat(lit("ab"), 40, 70)),
    match: ["ab".repeat(40), "ab".repeat(55), "ab".repeat(70)],
    reject: ["ab".repeat(39), "ab".repeat(71), `${"ab".repeat(40)}a`],
  },
  {
    name: "minimum above llama.cpp's 2000",
    grammar: single(repeat(charClass([[0x30, 0x39]]), 2500, null)),
    match: ["1".repeat(2500), "7".repeat(2600)],
    reject: ["1".repeat(2499), `${"1".repeat(2500)}a`],
  },
  {
    name: "maximum above llama.cpp's 2000",
    grammar: single(repeat(lit("z"), 0, 3000)),
    match: ["", "z".repeat(2001), "z".repeat(3000)],
    reject: ["z".repeat(3001), "y"],
  },
  {
    name: "a character split across bytes nodes",
    grammar: single(seq({ kind: "bytes", bytes: new Uint8Array([0x61, 0xc3]) }, { kind: "bytes", bytes: new Uint8Array([0xa9]) })),
    match: ["aé"],
    reject: ["a", "aè"],
  },
  {
    name: "rule names sanitized",
    grammar: oddNames(),
    match: ["abcd"],
    reject: ["abc", "abcdd"],
  },
  {
    name: "nested repeats",
    grammar: single(repeat(repeat(lit("a"), 0, 5), 0, 5)),
    match: ["", "a", "a".repeat(25)],
    reject: ["a".repeat(26), "b"],
  },
  {
    name: "any text",
    grammar: single(text()),
    match: ["", "anything\n at all 😀"],
    reject: [],
  },
  {
    name: "precedence of choices, sequences and repeats",
    grammar: single(seq(choice(lit("a"), seq(lit("b"), lit("c"))), repeat(choice(lit("d"), lit("e")), 0, 1), star(seq(lit("f"), optional(lit("g")))))),
    match: ["a", "bc", "ad", "bcefgf", "aff"],
    reject: ["b", "ade", "ag", ""],
  },
];
