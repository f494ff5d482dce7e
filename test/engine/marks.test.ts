/**
 * Marks (docs/engine.md, "Marks"): a `marks` node lets a loop use each of up to 32 marks at most
 * once, and requires some of them; the matcher keeps the used ones per rule level. JSON Schema
 * objects whose members may come in any order are such loops, one mark per name, so they cost
 * time linear in the number of names instead of an automaton over the subsets of names. Masks
 * must stay exact: the engine is compared with the reference recognizer at every step of random
 * walks on a tiny vocabulary (every token's acceptToken too), and on Llama 3 along documents.
 */
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { choice, counted, GrammarBuilder, lit, mark, marks, optional, plus, charClass, seq, serializeGrammar, deserializeGrammar, star, unit, printGrammar, type IrExpr, type IrGrammar } from "../../lib/compile/ir.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { GrammarError, SchemaError } from "../../lib/errors.js";
import type { JsonSchema } from "../../lib/format/types.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";
import { tinyVocabulary } from "./tiny-vocab.js";
import { walksAfterPrefixes, walkTokens } from "./walk.js";

function rootOf(body: (g: GrammarBuilder) => IrExpr): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", body(g));
  return g.build("root");
}

const DIGITS = plus(charClass([[0x30, 0x32]]));
/** `"NAME":VALUE` with the mark on the closing quote. */
const member = (name: string, index: number, value: IrExpr = DIGITS): IrExpr => seq(lit(`"${name}`), mark(index, seq(lit('":'), value)));
/** `{ M (, M)* }` over marked members, `required` marks required. */
const object = (members: IrExpr[], required: number[] = []): IrExpr => {
  const m = choice(...members);
  return seq(lit("{"), marks(optional(seq(m, star(seq(lit(","), m)))), required), lit("}"));
};

const schema = (s: JsonSchema, compact = true): IrGrammar => compileJsonSchema(s, { anyOrder: true, whitespace: compact ? "compact" : "any" }).grammar;

const TINY_CASES: Array<[string, IrGrammar, string[]]> = [
  ["three optional names, one a prefix of another", rootOf(() => object([member("a", 0), member("b", 1), member("ab", 2)])), ["", '{"a":1,', '{"ab":2,"a":1,', '{"b":1,"ab":0,']],
  ["a required name", rootOf(() => object([member("a", 0), member("b", 1), member("ab", 2)], [1])), ["", '{"a":1,', '{"ab":2,"a":1']],
  ["marked names and free keys", rootOf(() => {
    const free = seq(lit('"x'), star(charClass([[0x61, 0x62]])), lit('":'), DIGITS);
    return object([member("a", 0), member("ab", 1), free]);
  }), ["", '{"a":1,"xab":2,', '{"ab":1,"a":2,']],
  ["nested objects: the inner marks are their own", (() => {
    const g = new GrammarBuilder();
    g.define("root", object([member("a", 0, g.ruleRef("inner")), member("b", 1)], [0]));
    g.define("inner", object([member("a", 0), member("b", 1)], [1]));
    return g.build("root");
  })(), ["", '{"a":{"b":1,', '{"b":1,"a":{"a":2,"b":1}']],
  ["marks under a member count", rootOf(() => {
    const m = choice(unit(member("a", 0)), unit(member("b", 1)), unit(member("ab", 2)));
    return seq(lit("{"), counted(marks(optional(seq(m, star(seq(lit(","), m))))), 2, null), lit("}"));
  }), ["", '{"a":1,', '{"b":1,"ab":2']],
  ["JSON Schema: optional, required, additional members", schema({
    type: "object", properties: { a: { type: "integer" }, ab: { type: "integer" }, b: { type: "array", items: { type: "integer" }, maxItems: 2 } },
    required: ["ab"], additionalProperties: { type: "integer" },
  }), ["", '{"a":1,', '{"ab":2,"a":1,"b":[1]']],
  ["JSON Schema: additionalProperties false, minProperties 2", schema({
    type: "object", properties: { a: { type: "integer" }, b: { type: "integer" }, ab: { type: "integer" } }, additionalProperties: false, minProperties: 2,
  }), ["", '{"a":1,', '{"ab":2,"b":1,']],
];

describe("marks on a tiny vocabulary: exact at every step, every token", () => {
  const vocab = tinyVocabulary();
  for (const [name, grammar, prefixes] of TINY_CASES) {
    it(name, () => {
      const compiled = compileGrammar(vocab, grammar, { threads: 1 });
      walksAfterPrefixes(grammar, compiled, vocab.data, prefixes, 6, 14);
    });
  }
});

describe("marks: what they allow", () => {
  const vocab = tinyVocabulary();
  const grammar = rootOf(() => object([member("a", 0), member("b", 1), member("ab", 2)], [1]));

  it("each name at most once, in any order, required ones present (engine and recognizer agree)", () => {
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    for (const [text, ok] of [
      ['{"b":1}', true], ['{"a":1,"b":2}', true], ['{"ab":0,"b":1,"a":2}', true], ['{"b":1,"ab":2,"a":0}', true],
      ["{}", false], ['{"a":1}', false], ['{"a":1,"ab":2}', false], ['{"b":1,"b":2}', false], ['{"a":1,"b":1,"a":2}', false],
    ] as const) {
      expect(isMatch(grammar, text), text).toBe(ok);
      const m = new GrammarMatcher(compiled);
      expect(m.acceptString(text) && m.canTerminate(), text).toBe(ok);
    }
  });

  it("a used name closes its prefix: no dead end after '\"a' once a and ab are used", () => {
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const m = new GrammarMatcher(compiled);
    expect(m.acceptString('{"a":1,"ab":2,')).toBe(true);
    const fork = m.fork();
    expect(fork.acceptString('"a')).toBe(false);
    expect(m.acceptString('"b":0}')).toBe(true);
    expect(m.canTerminate()).toBe(true);
  });

  it("rollback and fork restore the used marks", () => {
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const m = new GrammarMatcher(compiled);
    expect(m.acceptString('{"a":1,')).toBe(true);
    const before = m.nextTokenBitmask();
    expect(m.acceptString('"b":2,')).toBe(true);
    m.rollback(1);
    expect(m.nextTokenBitmask()).toEqual(before);
    expect(m.acceptString('"b":2,"ab":1}')).toBe(true);
    expect(m.canTerminate()).toBe(true);
  });

  it("serializes and prints", () => {
    const back = deserializeGrammar(serializeGrammar(grammar));
    expect(printGrammar(back)).toBe(printGrammar(grammar));
    expect(printGrammar(grammar)).toContain('marks{required=1}');
    expect(printGrammar(grammar)).toContain('mark#2("\\":"');
  });

  it("refuses what marks cannot follow, naming the rule", () => {
    // A mark through a recursive rule: it would be used on another rule level.
    const g = new GrammarBuilder();
    g.define("root", seq(lit("{"), marks(g.ruleRef("list")), lit("}")));
    g.define("list", choice(seq(mark(0, lit("a")), optional(seq(lit(","), g.ruleRef("list")))), lit("b")));
    expect(() => compileGrammar(vocab, g.build("root"))).toThrow(GrammarError);
    expect(() => compileGrammar(vocab, g.build("root"))).toThrow(/marks node reaches mark nodes through the recursive rule 'list'/);
    // A mark that matches the empty string.
    expect(() => compileGrammar(vocab, rootOf(() => marks(mark(0, optional(lit("a"))))))).toThrow(/a mark node matches the empty string/);
    // Two marks on one byte: the byte cannot tell which is used.
    expect(() => compileGrammar(vocab, rootOf(() => marks(star(choice(mark(0, lit("a")), mark(1, lit("ab")))))))).toThrow(/cannot be told apart/);
  });
});

describe("any-order objects on Llama 3", () => {
  const vocab = loadTestVocabulary("llama3");
  const names = ["appId", "platform", "eventId", "userId", "domainUserid", "networkUserid", "pageUrl", "pageTitle", "referrer", "useragent", "geoCountry"];
  const snowplow: JsonSchema = {
    type: "object",
    properties: Object.fromEntries(names.map((n, i) => [n, i % 3 === 0 ? { type: "integer" } : { type: "string", maxLength: 64 }])),
    additionalProperties: false,
  };

  it("11 optional members: documents in several orders, masks exact at every step", () => {
    const grammar = schema(snowplow, false);
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const value = (n: string, i: number) => (i % 3 === 0 ? i * 7 : `${n}-v`);
    const docs = [
      Object.fromEntries([...names].reverse().map((n) => [n, value(n, names.indexOf(n))])),
      Object.fromEntries(names.filter((_, i) => i % 2 === 1).map((n) => [n, value(n, names.indexOf(n))])),
    ];
    for (const doc of docs) walkTokens(grammar, compiled, vocab.data, encodeForTest("llama3", JSON.stringify(doc, null, 1)), 2);
    // A repeated name and an unknown one are refused; a used name closes the prefix only it had.
    const m = new GrammarMatcher(compiled);
    expect(m.acceptString('{"pageTitle": "x", ')).toBe(true);
    expect(m.fork().acceptString('"pageTitle"')).toBe(false);
    expect(m.fork().acceptString('"pageT')).toBe(false);
    expect(m.fork().acceptString('"pageU')).toBe(true);
    expect(m.fork().acceptString('"other"')).toBe(false);
  });

  it("required members, additional members and minProperties", () => {
    const grammar = schema({
      type: "object",
      properties: { id: { type: "integer" }, name: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
      required: ["id", "name"], additionalProperties: { type: "boolean" }, minProperties: 3,
    });
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    for (const [doc, ok] of [
      [{ name: "n", id: 1, tags: [] }, true], [{ x: true, name: "n", id: 2 }, true], [{ name: "n", id: 2 }, false], [{ id: 1, tags: ["a"], extra: false }, false],
    ] as const) {
      const text = JSON.stringify(doc);
      const m = new GrammarMatcher(compiled);
      expect(m.acceptString(text) && m.canTerminate(), text).toBe(ok);
      if (ok) walkTokens(grammar, compiled, vocab.data, encodeForTest("llama3", text), 1);
    }
  });

  it("30 optional members: automaton linear in the members", () => {
    const sizes = [10, 20, 30].map((n) => {
      const s: JsonSchema = { type: "object", properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`field${i}`, { type: "integer" }])), additionalProperties: false };
      const c = compileGrammar(vocab, schema(s), { threads: 1 });
      return c.stateCount;
    });
    // Each name adds a few states (its bytes), never a doubling.
    expect(sizes[2]! - sizes[1]!).toBeLessThan(2 * (sizes[1]! - sizes[0]!) + 40);
    expect(sizes[2]!).toBeLessThan(2000);
  });

  it("at the bound of one marks word: 32 names are marks, 33 take the subset automaton and are refused", () => {
    const flat = (n: number): JsonSchema => ({
      type: "object", properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, { type: "integer" }])), additionalProperties: false,
    });
    const grammar = schema(flat(32));
    expect(printGrammar(grammar)).toContain("mark#31(");
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    const all = Array.from({ length: 32 }, (_, i) => `"k${31 - i}":${i}`);
    walkTokens(grammar, compiled, vocab.data, encodeForTest("llama3", `{${all.join(",")}}`), 1);
    const m = new GrammarMatcher(compiled);
    expect(m.acceptString(`{${all.join(",")}`)).toBe(true);
    expect(m.canTerminate()).toBe(false);
    expect(m.fork().acceptString(',"k')).toBe(false); // every name is used: no member can follow
    expect(m.acceptString("}")).toBe(true);
    expect(m.canTerminate()).toBe(true);
    expect(() => schema(flat(33))).toThrow(SchemaError);
    expect(() => schema(flat(33))).toThrow(/any property order over 33 properties needs more than 4096 grammar rules; use declared order/);
  });

  it("declared order is unchanged; witnesses and required members under maxProperties keep the automaton", () => {
    const ordered = compileJsonSchema({ type: "object", properties: { a: { type: "integer" } } }).grammar;
    expect(printGrammar(ordered)).not.toContain("marks");
    const capped = schema({ type: "object", properties: { a: { type: "integer" }, b: { type: "integer" }, c: { type: "integer" } }, required: ["a", "b"], maxProperties: 2 });
    expect(printGrammar(capped)).not.toContain("marks");
    expect(isMatch(capped, '{"b":1,"a":2}')).toBe(true);
    expect(isMatch(capped, '{"b":1,"a":2,"c":3}')).toBe(false);
  });
});
