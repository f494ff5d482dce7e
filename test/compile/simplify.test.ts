import { describe, expect, it } from "vitest";
import {
  GrammarBuilder, charClass, choice, empty, lit, never, optional, plus, printExpr, printGrammar, ref, repeat, seq, star, text, type IrExpr,
  type IrGrammar,
} from "../../lib/compile/ir.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { inlinedForm, simplifyGrammar, simplifyValidGrammar, type SimplifyReport } from "../../lib/compile/simplify.js";

function one(body: IrExpr): IrGrammar {
  const b = new GrammarBuilder();
  b.define("root", body);
  return b.build("root");
}

// [name, grammar, printed after simplification]
const table: Array<[string, IrGrammar, string]> = [
  ["merges adjacent literals", one(seq(lit("<|open|>"), lit("call"), seq(lit(" "), lit("x")))), 'root ::= "<|open|>call x"\n'],
  ["drops empty in sequences", one(seq(empty(), lit("a"), seq(), empty(), charClass([0x30]))), 'root ::= "a" [0]\n'],
  ["flattens nested sequences and choices", one(choice(lit("a"), choice(lit("bb"), choice(lit("cc"))), seq(seq(lit("d"), text()), empty()))), 'root ::= "a" | "bb" | "cc" | "d" text\n'],
  ["unwraps one-item nodes", one(seq(choice(seq(lit("x"))))), 'root ::= "x"\n'],
  ["folds never in sequences and choices", one(choice(seq(lit("a"), never()), lit("bb"), never())), 'root ::= "bb"\n'],
  ["keeps never where it is the whole language", one(seq(lit("a"), never())), "root ::= never\n"],
  ["merges single-character alternatives into a class", one(choice(lit("a"), lit("é"), charClass([[0x30, 0x39]]), lit("xy"))), 'root ::= [0-9a\u00e9] | "xy"\n'],
  ["keeps negated classes apart", one(choice(lit("a"), charClass([0x62], true))), 'root ::= "a" | [^b]\n'],
  ["drops duplicate alternatives", one(choice(seq(lit("ab"), text(["x"])), lit("c"), seq(lit("a"), lit("b"), text(["x"])))), 'root ::= "ab" text(excluding "x") | "c"\n'],
  ["folds trivial repeats", one(seq(repeat(lit("a"), 1, 1), repeat(lit("b"), 0, 0), repeat(empty(), 2, 5), star(never()))), 'root ::= "a"\n'],
  ["makes a required never repeat never", one(plus(never())), "root ::= never\n"],
  ["folds nested repeats", one(seq(star(star(lit("a"))), star(optional(lit("b"))), optional(star(lit("c"))), plus(plus(lit("d"))), star(plus(lit("e"))))), 'root ::= "a"* "b"* "c"* "d"+ "e"*\n'],
  ["keeps nested repeats that are not equivalent", one(seq(repeat(repeat(lit("a"), 2, 2), 0, null), optional(plus(lit("b"))))), 'root ::= "a"{2}* "b"+?\n'],
];

function withRules(): IrGrammar {
  const b = new GrammarBuilder();
  b.define("root", seq(b.ruleRef("open"), b.ruleRef("name"), b.ruleRef("body"), b.ruleRef("alias")));
  b.define("open", lit("<"));
  b.define("name", plus(charClass([[0x61, 0x7a]])));
  b.define("body", choice(seq(lit("["), b.ruleRef("body"), lit("]")), b.ruleRef("close")));
  b.define("close", lit(">"));
  b.define("alias", b.ruleRef("name"));
  b.define("unused", lit("never used"));
  b.define("unused2", seq(b.ruleRef("unused"), b.ruleRef("root")));
  return b.build("root");
}

describe("simplifyGrammar", () => {
  for (const [name, g, printed] of table) {
    it(name, () => {
      expect(printGrammar(simplifyGrammar(g))).toBe(printed);
    });
  }

  it("inlines tiny rules, keeps recursive ones, removes unreachable ones", () => {
    expect(printGrammar(simplifyGrammar(withRules()))).toBe(
      'root ::= "<" [a-z]+ body [a-z]+\n' +
        'body ::= "[" body "]" | ">"\n',
    );
  });

  it("inlines nothing with inlineMaxNodes 0, but still removes unreachable rules", () => {
    expect(printGrammar(simplifyGrammar(withRules(), { inlineMaxNodes: 0 }))).toBe(
      "root ::= open name body alias\n" +
        'open ::= "<"\n' +
        "name ::= [a-z]+\n" +
        'body ::= "[" body "]" | close\n' +
        "alias ::= name\n" +
        'close ::= ">"\n',
    );
  });

  it("inlines a long chain of tiny rules without deep recursion or copying into dead rules", () => {
    // r0 ::= "x" r1, r1 ::= "x" r2, …: a RangeError from ~2,000 links, and 20,000 took seconds.
    const n = 20000;
    const b = new GrammarBuilder();
    b.define("root", b.ruleRef("r0"));
    for (let i = 0; i < n; i++) b.define(`r${i}`, seq(lit("x"), b.ruleRef(`r${i + 1}`)));
    b.define(`r${n}`, lit("y"));
    expect(printGrammar(simplifyGrammar(b.build("root")))).toBe(`root ::= "${"x".repeat(n)}y"\n`);
  });

  it("keeps DAG sharing (no blow-up on shared nodes)", () => {
    let e: IrExpr = choice(lit("a"), lit("bc"));
    for (let i = 0; i < 14; i++) e = seq(e, e, lit("x")); // a tree of 2^14 leaves, 15 distinct nodes
    const g = simplifyGrammar(one(e));
    const distinct = new Set<IrExpr>();
    const walk = (x: IrExpr): void => {
      if (distinct.has(x)) return;
      distinct.add(x);
      if (x.kind === "seq" || x.kind === "choice") x.items.forEach(walk);
    };
    walk(g.rules[0]!.body);
    expect(distinct.size).toBeLessThan(50);
  });

  it("keeps the language on random grammars", () => {
    let seed = 99;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const gen = (d: number, rules: number): IrExpr => {
      const k = d <= 0 ? rand(4) : rand(11);
      switch (k) {
        case 0: return lit(["a", "b", "ab", "é"][rand(4)]!);
        case 1: return charClass([[0x61, 0x62]], rand(4) === 0);
        case 2: return rand(2) ? empty() : never();
        case 3: return { kind: "ref", rule: rand(rules) };
        case 4: case 5: return seq(gen(d - 1, rules), gen(d - 1, rules), gen(d - 1, rules));
        case 6: case 7: return choice(gen(d - 1, rules), gen(d - 1, rules));
        case 8: return repeat(gen(d - 1, rules), rand(2), rand(2) ? null : 1 + rand(2));
        case 9: return repeat(repeat(gen(d - 1, rules), rand(2), rand(2) ? null : 1), rand(2), rand(2) ? null : 1);
        default: return text(rand(2) ? ["ba"] : []);
      }
    };
    for (let n = 0; n < 60; n++) {
      const count = 1 + rand(3);
      const g: IrGrammar = { rules: Array.from({ length: count }, (_, i) => ({ name: `r${i}`, body: gen(3, count) })), root: 0 };
      const s = simplifyGrammar(g);
      for (let m = 0; m < 40; m++) {
        let str = "";
        for (let i = rand(6); i > 0; i--) str += ["a", "b", "é"][rand(3)]!;
        expect(isMatch(s, str), `${printGrammar(g)} on ${JSON.stringify(str)}`).toBe(isMatch(g, str));
      }
    }
  });

  it("leaves fixed rules as they are, keeping only the reachable ones", () => {
    // Rules 1-3 stand for copies of lowered fragments: 2 is tiny but fixed (not inlined), 1 and
    // 3 are reached by nothing the root reaches (dropped; 2 is renumbered, its body kept).
    const body2 = seq(lit("b"), lit("c"));
    const g: IrGrammar = {
      rules: [
        { name: "root", body: seq(lit("a"), ref(2), ref(4)) },
        { name: "f1", body: seq(lit("x"), ref(3)) },
        { name: "f2", body: body2 },
        { name: "f3", body: lit("y") },
        { name: "tiny", body: lit("z") },
      ],
      root: 0,
    };
    const mask = Uint8Array.from([0, 1, 1, 1, 0]);
    const report: SimplifyReport = { settled: false, refs: [] };
    const out = simplifyValidGrammar(g, {}, { mask, refs: new Map([[1, new Set([3])], [2, new Set<number>()], [3, new Set<number>()]]) }, report);
    expect(printGrammar(out)).toBe('root ::= "a" f2 "z"\nf2 ::= "b" "c"\n');
    expect(out.rules[1]!.body).toBe(body2);
    expect(report.settled).toBe(true);
    expect(report.refs.map((r) => [...r])).toEqual([[1], []]);
  });

  it("says when a part would be inlined wherever it stands (tiny, without references)", () => {
    expect(printExpr(inlinedForm(seq(lit(""), text(["</a>"]), lit("</a>")))!)).toBe('text(excluding "</a>") "</a>"');
    expect(inlinedForm(seq(lit("a"), ref(1)))).toBeNull();
    expect(inlinedForm(seq(lit("a"), text(), lit("b"), text()))).toBeNull();
    expect(inlinedForm(lit("a"), { inlineMaxNodes: 0 })).toBeNull();
  });
});
