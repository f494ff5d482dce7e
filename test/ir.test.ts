import { describe, expect, it } from "vitest";
import {
  GrammarBuilder, charClass, choice, counted, deserializeGrammar, lit, optional, plus, printGrammar, repeat, seq,
  serializeGrammar, star, text, unit, validateGrammar, type IrExpr, type IrGrammar,
} from "../lib/compile/ir.js";
import { GrammarError } from "../lib/errors.js";

function sample(): IrGrammar {
  const b = new GrammarBuilder();
  const item = b.ruleRef("item");
  b.define("root", seq(lit("["), optional(seq(item, repeat(seq(lit(","), item), 0, null))), lit("]")));
  b.define("item", choice(plus(charClass([[0x61, 0x7a], 0x5f])), text(["]", ","], { maxChars: 5, maxTokens: 3 }), lit("é\n\"")));
  return b.build("root");
}

describe("grammar IR", () => {
  it("round-trips through the binary form", () => {
    const g = sample();
    const bin = serializeGrammar(g);
    expect(bin.length % 4).toBe(0);
    const back = deserializeGrammar(bin);
    expect(printGrammar(back)).toBe(printGrammar(g));
    expect(serializeGrammar(back)).toEqual(bin);
  });

  it("prints rules in an EBNF-like notation", () => {
    expect(printGrammar(sample())).toBe(
      'root ::= "[" (item ("," item)*)? "]"\n' +
        'item ::= [_a-z]+ | text(excluding "]", ","; max_chars=5; max_tokens=3) | "é\\n\\""\n',
    );
  });

  it("rejects corrupt buffers with GrammarError", () => {
    const bin = serializeGrammar(sample());
    const bad = (mutate: (b: Uint8Array) => Uint8Array): void => {
      expect(() => deserializeGrammar(mutate(bin.slice()))).toThrow(GrammarError);
    };
    bad((b) => b.subarray(0, 16));
    bad((b) => { b[0] = 0; return b; });
    bad((b) => { b[4] = 9; return b; });
    bad((b) => b.subarray(0, b.length - 4));
    bad((b) => { new DataView(b.buffer).setUint32(12, 99, true); return b; }); // root out of range
  });

  it("round-trips and prints counted and unit nodes (kinds 9 and 10)", () => {
    const b = new GrammarBuilder();
    b.define("root", seq(lit('"'), counted(star(unit(charClass([[0x61, 0x7a]]))), 3, 65535), counted(unit(lit("x")), 0, null), lit('"')));
    const g = b.build("root");
    const bin = serializeGrammar(g);
    expect(printGrammar(deserializeGrammar(bin))).toBe(printGrammar(g));
    expect(printGrammar(g)).toBe('root ::= "\\"" counted{3,65535}(unit([a-z])*) counted{0,}(unit("x")) "\\""\n');
    const view = new DataView(bin.buffer);
    const kinds = Array.from({ length: view.getUint32(16, true) }, (_, i) => view.getUint32((8 + 3 + 4 * i) * 4, true));
    expect(kinds.filter((k) => k === 9).length).toBe(2);
    expect(kinds.filter((k) => k === 10).length).toBe(2);
  });

  it("validates structure", () => {
    expect(() => validateGrammar({ rules: [], root: 0 })).toThrow(/at least one rule/);
    expect(() => validateGrammar({ rules: [{ name: "r", body: counted(unit(lit("a")), 3, 2) }], root: 0 })).toThrow(/counted max 2 is below min 3/);
    expect(() => validateGrammar({ rules: [{ name: "r", body: repeat(lit("a"), 3, 2) }], root: 0 })).toThrow(/below min/);
    expect(() => validateGrammar({ rules: [{ name: "r", body: { kind: "ref", rule: 4 } }], root: 0 })).toThrow(/does not exist/);
    const b = new GrammarBuilder();
    b.ruleRef("missing");
    b.define("root", lit("x"));
    expect(() => b.build("root")).toThrow(/'missing' is referenced but not defined/);
  });
});

describe("grammar IR sharing", () => {
  it("validates and serializes a heavily shared DAG in linear time", () => {
    // Each level refers to the previous one twice: 2^60 paths as a tree, 60 nodes as a DAG.
    let e: IrExpr = lit("x");
    for (let i = 0; i < 60; i++) e = choice(seq(e, lit("a")), seq(e, lit("b")));
    const g: IrGrammar = { rules: [{ name: "root", body: e }], root: 0 };
    validateGrammar(g);
    const bin = serializeGrammar(g);
    expect(bin.length).toBeLessThan(20_000);
    const back = deserializeGrammar(bin);
    expect(back.rules[0]!.body.kind).toBe("choice");
  });
});
