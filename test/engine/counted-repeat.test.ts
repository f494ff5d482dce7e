/**
 * Counted repetition (docs/engine.md, "Counted repetition"): bounded repeats with large bounds are
 * one loop plus a counter, not unrolled copies. The masks must stay exact at the bounds: the
 * engine is compared with the reference recognizer at every step of random walks on a tiny
 * vocabulary (every token's acceptToken too), and on Llama 3 along documents that end at n - 1,
 * n and n + 1 items or characters, where multi-character tokens cross the limit.
 */
import { describe, expect, it } from "vitest";
import { ebnfToIr } from "../../lib/compile/ebnf/index.js";
import { charClass, choice, counted, GrammarBuilder, lit, mark, marks, optional, plus, repeat, seq, star, unit, type IrExpr, type IrGrammar } from "../../lib/compile/ir.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import type { JsonSchema } from "../../lib/format/types.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { compileGrammar, type CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import type { VocabularyData } from "../../lib/tokenizer/vocabulary.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { walkAlong, walksAfterPrefixes } from "./walk.js";

function rootOf(body: (g: GrammarBuilder) => IrExpr): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", body(g));
  return g.build("root");
}

function ebnf(source: string): IrGrammar {
  const g = new GrammarBuilder();
  ebnfToIr(source, g);
  return g.build("root");
}

const AB = charClass([[0x61, 0x62]]);

/**
 * Grammars whose bounds are large enough to be counted, with prefixes that bring a walk near the
 * bounds (random walks from the start rarely get there: they pick the end early).
 */
const TINY_CASES: Array<[string, IrGrammar, string[]]> = [
  ["{0,40} of a letter between brackets", rootOf(() => seq(lit("["), repeat(AB, 0, 40), lit("]"))), ["", "[" + "a".repeat(33), "[" + "ab".repeat(19), "[" + "b".repeat(40)]],
  ["{35,40} of a two-byte item", rootOf(() => seq(repeat(lit("ab"), 35, 40), lit("x"))), ["", "ab".repeat(33), "ab".repeat(35), "ab".repeat(39), "ab".repeat(39) + "a"]],
  ["{40,} (a lower bound only)", rootOf(() => seq(lit("["), repeat(AB, 40, null), lit("]"))), ["[", "[" + "a".repeat(37), "[" + "b".repeat(40)]],
  ["{33,36} of characters split across tokens", rootOf(() => seq(lit('"'), repeat(charClass([0x61, 0xe9, 0x20ac, [0x1f600, 0x1f64f]]), 33, 36), lit('"'))), ['"', '"' + "é€a".repeat(10), '"' + "😀".repeat(34), '"' + "a".repeat(35)]],
  ["recursive arrays with {0,34} more items", ebnf('root ::= "[" (v ("," v){0,34})? "]"\nv ::= root | [0-9]+'), ["[", "[1" + ",2".repeat(31), "[[1],[2" + ",[3]".repeat(33), "[1" + ",[]".repeat(34)]],
  ["counted items that hold counted repeats", rootOf(() => repeat(seq(lit("["), repeat(lit("a"), 0, 35), lit("]")), 0, 34)), ["", "[]".repeat(32) + "[" + "a".repeat(33), "[a]".repeat(34)]],
  ["an ambiguous loop (unrolled instead)", rootOf(() => seq(repeat(plus(lit("a")), 0, 40), lit("x"))), ["", "a".repeat(38)]],
  ["JSON array maxItems 40, minItems 33", compileJsonSchema({ type: "array", items: { type: "integer" }, minItems: 33, maxItems: 40 }, { whitespace: "compact" }).grammar, ["", "[1" + ",22".repeat(31), "[0" + ",1".repeat(38)]],
  ["JSON string with minLength 34 and maxLength 36", compileJsonSchema({ type: "string", minLength: 34, maxLength: 36 }).grammar, ['"', '"' + "é".repeat(32), '"' + "a\\n".repeat(17)]],
  // Counted nodes: a pattern's code points as units, its length bounded apart from its automaton.
  ["counted{3,36} letters, with an '@' part", rootOf(() => {
    const at = seq(unit(lit("@")), star(unit(charClass([0x61, 0xe9]))));
    return seq(lit('"'), counted(seq(plus(unit(AB)), optional(at)), 3, 36), lit('"'));
  }), ['"', '"' + "ab".repeat(16), '"' + "a".repeat(30) + "@", '"' + "b".repeat(34) + "@é"]],
  ["counted{34,} with units in a referenced rule", (() => {
    const g = new GrammarBuilder();
    g.define("root", seq(lit("["), counted(seq(g.ruleRef("word"), star(seq(lit(","), g.ruleRef("word")))), 34, null), lit("]")));
    g.define("word", plus(unit(AB)));
    return g.build("root");
  })(), ["[", "[" + "ab,".repeat(10), "[" + "a,b,".repeat(8) + "a"]],
];

describe("counted repeats on a tiny vocabulary: exact at every step, every token", () => {
  const vocab = tinyVocabulary();
  for (const [name, grammar, prefixes] of TINY_CASES) {
    it(name, () => {
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 6, 12);
    });
  }
});

/**
 * Walks `text`'s tokens, comparing the engine's mask with the oracle's at the last `compareFrom`
 * steps (and at the start). Returns the number of comparisons.
 */
function walkCompare(grammar: IrGrammar, compiled: CompiledGrammar, vocab: VocabularyData, text: string, compareFrom: number): number {
  return walkAlong(grammar, compiled, vocab, encodeForTest("llama3", text), "walk", compareFrom);
}

describe("counted repeats on Llama 3: masks at n - 1, n and n + 1", () => {
  const vocab = loadTestVocabulary("llama3");
  const words = "the quick brown fox jumps over the lazy dog and then some more words ";
  const sentence = (n: number): string => words.repeat(Math.ceil(n / words.length) + 1).slice(0, n);

  it("a string with maxLength 300: documents of 299, 300 and 301 characters", () => {
    const grammar = compileJsonSchema({ type: "string", maxLength: 300 }).grammar;
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    for (const n of [299, 300, 301]) {
      expect(walkCompare(grammar, compiled, vocab.data, JSON.stringify(sentence(n)), 12)).toBeGreaterThan(1);
      const m = new GrammarMatcher(compiled);
      expect(m.acceptString(JSON.stringify(sentence(n))) && m.canTerminate()).toBe(n <= 300);
    }
  });

  it("a string with minLength 200 and maxLength 260, escapes and multi-byte characters near both bounds", () => {
    const grammar = compileJsonSchema({ type: "string", minLength: 200, maxLength: 260 }).grammar;
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const filler = (n: number) => {
      const unit = "Größe \"café\" \n";
      let out = "";
      while ([...out].length + [...unit].length <= n) out += unit;
      return out + "x".repeat(n - [...out].length);
    };
    for (const n of [199, 200, 259, 260, 261]) {
      const text = JSON.stringify(filler(n));
      expect([...filler(n)].length).toBe(n);
      walkCompare(grammar, compiled, vocab.data, text, 10);
      const m = new GrammarMatcher(compiled);
      expect(m.acceptString(text) && m.canTerminate(), `length ${n}`).toBe(n >= 200 && n <= 260);
    }
  });

  it("[a-z ]{0,300} and [a-z ]{250,}", () => {
    for (const [source, ok] of [
      ["root ::= [a-z ]{0,300}", (n: number) => n <= 300],
      ["root ::= [a-z ]{250,} \".\"", (n: number) => n >= 250],
    ] as const) {
      const grammar = ebnf(source);
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      for (const n of [249, 250, 299, 300, 301]) {
        const text = sentence(n) + (source.includes('"."') ? "." : "");
        walkCompare(grammar, compiled, vocab.data, text, 8);
        const m = new GrammarMatcher(compiled);
        expect(m.acceptString(text) && m.canTerminate(), `${source}, ${n}`).toBe(ok(n));
      }
    }
  });

  it("root ::= \"[\" (root (\",\" root){0,40})? \"]\" | [a-z]+ at 40, 41 and 42 items", () => {
    const grammar = ebnf('root ::= "[" (root ("," root){0,40})? "]" | [a-z]+');
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const item = (i: number) => ["abc", "[x,y]", "hello", "[[a],b]", "[]"][i % 5]!;
    for (const n of [40, 41, 42]) {
      const text = `[${Array.from({ length: n }, (_, i) => item(i)).join(",")}]`;
      walkCompare(grammar, compiled, vocab.data, text, 14);
      expect(isMatch(grammar, text)).toBe(n <= 41);
      const m = new GrammarMatcher(compiled);
      expect(m.acceptString(text) && m.canTerminate()).toBe(n <= 41);
    }
  });

  it("JSON arrays with minItems 35 and maxItems 40, nested", () => {
    const schema = { $defs: { n: { anyOf: [{ type: "integer" }, { type: "array", items: { $ref: "#/$defs/n" }, maxItems: 40 }] } }, type: "array", minItems: 35, maxItems: 40, items: { $ref: "#/$defs/n" } };
    const grammar = compileJsonSchema(schema).grammar;
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    for (const n of [34, 35, 39, 40, 41]) {
      const items = Array.from({ length: n }, (_, i) => (i % 9 === 4 ? [i, [i + 1], []] : i * 37));
      const text = JSON.stringify(items).replace(/,/g, ", ");
      walkCompare(grammar, compiled, vocab.data, text, 10);
      const m = new GrammarMatcher(compiled);
      expect(m.acceptString(text) && m.canTerminate(), `${n} items`).toBe(n >= 35 && n <= 40);
    }
  });
});

describe("counted nodes from JSON Schema: a pattern or format with length bounds, on Llama 3", () => {
  const vocab = loadTestVocabulary("llama3");

  it("format email with maxLength 254 (once refused: the product automaton was too large)", () => {
    const { grammar, unenforced } = compileJsonSchema({ type: "string", format: "email", maxLength: 254 });
    expect(unenforced).toEqual([]);
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    for (const local of [240, 241, 242, 243]) {
      const text = JSON.stringify(`${"first.last".repeat(30).slice(0, local)}@ex.com`);
      walkCompare(grammar, compiled, vocab.data, text, 10);
      const m = new GrammarMatcher(compiled);
      expect(m.acceptString(text) && m.canTerminate(), `local part ${local}`).toBe(local + 7 <= 254);
    }
  });

  it("a pattern with minLength 3 and maxLength 5000", () => {
    const { grammar } = compileJsonSchema({ type: "string", pattern: "^[a-z0-9-]+(\\.[a-z0-9-]+)*$", minLength: 3, maxLength: 5000 });
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const host = (n: number) => "node-7.example".repeat(400).slice(0, n).replace(/\.$/, "x");
    for (const n of [2, 3, 4999, 5000, 5001]) {
      const text = JSON.stringify(host(n));
      walkCompare(grammar, compiled, vocab.data, text, n < 10 ? 6 : 8);
      const m = new GrammarMatcher(compiled);
      expect(m.acceptString(text) && m.canTerminate(), `length ${n}`).toBe(n >= 3 && n <= 5000);
    }
  });

  it("refuses length bounds whose counts would not be one range per state, naming the keyword", () => {
    const r = compileJsonSchema({ type: "string", pattern: "^(ab)+$", minLength: 10001, maxLength: 10001 }, { lenient: true });
    expect(r.unenforced.map((u) => u.keyword)).toEqual(["minLength"]);
    expect(() => compileJsonSchema({ type: "string", pattern: "^(ab)+$", minLength: 10001, maxLength: 10001 })).toThrow(/not a range/);
    // With a range of lengths the gaps close: counted.
    expect(compileJsonSchema({ type: "string", pattern: "^(ab)+$", maxLength: 10000 }).unenforced).toEqual([]);
  });
});

describe("member counts: minProperties and maxProperties with additional members (issue 13)", () => {
  const vocab = loadTestVocabulary("llama3");
  const cases: Array<[string, JsonSchema, (n: number) => boolean]> = [
    ["minProperties 3, maxProperties 5 over additional members", { type: "object", additionalProperties: { type: "integer" }, minProperties: 3, maxProperties: 5 }, (n) => n >= 3 && n <= 5],
    ["declared, pattern and additional members, minProperties 4", {
      type: "object", properties: { id: { type: "integer" }, name: { type: "string" } }, required: ["id"],
      patternProperties: { "^x-": { type: "string" } }, additionalProperties: { type: "boolean" }, minProperties: 4,
    }, (n) => n >= 4],
  ];
  for (const [name, schema, ok] of cases) {
    it(name, () => {
      const grammar = compileJsonSchema(schema).grammar;
      expect(printGrammarKinds(grammar)).toContain("counted");
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      for (const n of [2, 3, 4, 5, 6]) {
        const doc: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          if (name.startsWith("declared")) {
            if (i === 0) doc.id = 7;
            else if (i === 1) doc.name = "n";
            else if (i % 2 === 0) doc[`x-k${i}`] = "v";
            else doc[`flag${i}`] = true;
          } else {
            doc[`k${i}`] = i;
          }
        }
        const text = JSON.stringify(doc).replace(/,/g, ", ");
        walkCompare(grammar, compiled, vocab.data, text, 8);
        const m = new GrammarMatcher(compiled);
        expect(m.acceptString(text) && m.canTerminate(), `${n} members`).toBe(ok(n));
      }
    });
  }
  it("counts members: a repeated additional name counts each time (docs/json-schema.md)", () => {
    const grammar = compileJsonSchema({ type: "object", additionalProperties: true, minProperties: 2 }).grammar;
    expect(isMatch(grammar, '{"a":1,"a":2}')).toBe(true);
    expect(isMatch(grammar, '{"a":1}')).toBe(false);
  });
});

function printGrammarKinds(g: IrGrammar): string {
  const kinds = new Set<string>();
  const seen = new Set<IrExpr>();
  const walk = (e: IrExpr): void => {
    if (seen.has(e)) return;
    seen.add(e);
    kinds.add(e.kind);
    if (e.kind === "seq" || e.kind === "choice") e.items.forEach(walk);
    else if (e.kind === "repeat" || e.kind === "counted" || e.kind === "unit") walk(e.item);
  };
  g.rules.forEach((r) => walk(r.body));
  return [...kinds].join(",");
}

describe("counted repeats: structure", () => {
  const vocab = loadTestVocabulary("llama3");

  it("states and memory do not grow with the bound", () => {
    const sizes = (make: (n: number) => IrGrammar) =>
      [1000, 65535, 1_000_000].map((n) => {
        const c = compileGrammar(vocab, make(n), { threads: 1 });
        return { states: c.stateCount, memory: c.memoryBytes };
      });
    for (const make of [
      (n: number) => compileJsonSchema({ type: "string", maxLength: n }).grammar,
      (n: number) => ebnf(`root ::= [a-z]{0,${n}}`),
      (n: number) => ebnf(`root ::= "[" (root ("," root){0,${n}})? "]" | [a-z]+`),
      (n: number) => compileJsonSchema({ type: "array", items: { type: "integer" }, maxItems: n, minItems: Math.floor(n / 2) }).grammar,
    ]) {
      const [a, b, c] = sizes(make);
      expect(b!.states).toBe(a!.states);
      expect(c!.states).toBe(a!.states);
      expect(c!.memory).toBeLessThan(a!.memory * 1.05 + 4096);
    }
  });

  it("rollback, fork and jump-forward across the bound", () => {
    const grammar = ebnf('root ::= "<" [a-z]{40,45} ">" "!"{34}');
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const m = new GrammarMatcher(compiled);
    expect(m.acceptString("<" + "a".repeat(38))).toBe(true);
    const before = m.nextTokenBitmask();
    const fork = m.fork();
    expect(m.acceptString("aaaaa")).toBe(true);
    expect(m.acceptString("bbb")).toBe(false);
    expect(m.acceptString("aa>")).toBe(true);
    expect(m.findJumpForwardString()).toBe("!".repeat(34));
    m.rollback(2);
    expect(m.nextTokenBitmask()).toEqual(before);
    expect(fork.nextTokenBitmask()).toEqual(before);
    expect(fork.acceptString("a".repeat(8))).toBe(false);
    expect(fork.acceptString("a".repeat(7) + ">" + "!".repeat(34))).toBe(true);
    expect(fork.canTerminate()).toBe(true);
  });

  it("refuses units a counted node would meet on another rule level, naming the reason", () => {
    // Through a recursive rule: the units would count for the callee's frame.
    const g = new GrammarBuilder();
    g.define("root", seq(lit("["), counted(g.ruleRef("list"), 34, 40), lit("]")));
    g.define("list", choice(seq(unit(lit("a")), optional(seq(lit(","), g.ruleRef("list")))), lit("b")));
    expect(() => compileGrammar(vocab, g.build("root"))).toThrow(/a counted node reaches units through the recursive rule 'list'/);
    // Inside a repeat large enough to be counted: it is a rule level of its own.
    expect(() => compileGrammar(vocab, rootOf(() => counted(repeat(unit(lit("a")), 0, 100), 0, 50)))).toThrow(/a counted node holds a repeat \{0,100\} with units inside/);
    // Inside a marks node nested in another one.
    expect(() => compileGrammar(vocab, rootOf(() => counted(marks(seq(mark(0, lit("x")), marks(plus(unit(lit("a")))))), 0, 50)))).toThrow(/units inside a marks node nested in another one/);
    // And the other way round: marks inside a counted node, which may be a level of its own.
    expect(() => compileGrammar(vocab, rootOf(() => marks(counted(plus(mark(0, lit("a"))), 0, 5))))).toThrow(/a marks node holds a counted node with marks inside/);
  });

  it("refuses an ambiguous repeat too large to unroll, naming it", () => {
    const g = new GrammarBuilder();
    g.define("root", repeat(plus(lit("ab")), 3_000_000, null));
    expect(() => compileGrammar(vocab, g.build("root"))).toThrow(/rule 'root': a repeat \{3000000,\}/);
    const fine = new GrammarBuilder();
    fine.define("root", choice(repeat(lit("ab"), 3_000_000, null), lit("x")));
    const m = new GrammarMatcher(compileGrammar(vocab, fine.build("root")));
    expect(m.acceptString("ab".repeat(1000))).toBe(true);
    expect(m.canTerminate()).toBe(false);
  });
});
