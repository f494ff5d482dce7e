/**
 * GBNF export: golden files of the output for the IR cases, and the grammars GBNF cannot express
 * refused with a GrammarError that says why.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { irToGbnf } from "../../../lib/compile/gbnf.js";
import { GrammarBuilder, lit, ref, seq, text, type IrExpr, type IrGrammar } from "../../../lib/compile/ir.js";
import { GrammarError } from "../../../lib/errors.js";
import { IR_CASES } from "./cases.js";

/** The golden file name of a case. */
export function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

const single = (body: IrExpr): IrGrammar => ({ rules: [{ name: "root", body }], root: 0 });

describe("irToGbnf goldens", () => {
  it.each(IR_CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const golden = readFileSync(new URL(`./golden/${slug(c.name)}.gbnf`, import.meta.url), "utf8");
    expect(irToGbnf(c.grammar, c.options)).toBe(golden);
  });
});

describe("irToGbnf refuses what GBNF cannot express", () => {
  const leftRecursive = (): IrGrammar => {
    const b = new GrammarBuilder();
    b.define("root", b.ruleRef("list"));
    b.define("list", seq(b.ruleRef("list"), lit(",")));
    return b.build("root");
  };
  const BAD: Array<[string, () => IrGrammar, RegExp]> = [
    ["bytes that are not UTF-8", () => single(seq(lit("a"), { kind: "bytes", bytes: new Uint8Array([0xff, 0x41]) })), /rule .root.: the bytes \[61 ff 41\] are not valid UTF-8/],
    ["a truncated character", () => single({ kind: "bytes", bytes: new Uint8Array([0xe2, 0x82]) }), /the bytes \[e2 82\] are not valid UTF-8/],
    ["an excluded string that is not UTF-8", () => single(text([new Uint8Array([0xc3])])), /excluded string \[c3\] is not valid UTF-8/],
    ["max_tokens", () => single(seq(lit("<a>"), text(["</a>"], { maxTokens: 5 }))), /max_tokens=5 cannot be expressed in GBNF.*ignoreTokenLimits/],
    ["left recursion", leftRecursive, /left recursion: list -> list/],
    ["a length bound needing too many rules", () => single(text(["</end>"], { maxChars: 100000 })), /needs more than 20000 GBNF rules/],
    ["an invalid IR", () => single(ref(3)), /reference to rule 3/],
  ];
  it.each(BAD)("%s", (_name, make, message) => {
    expect(() => irToGbnf(make())).toThrow(GrammarError);
    expect(() => irToGbnf(make())).toThrow(message);
  });

  it("drops max_tokens only when asked, writing the same grammar as without it", () => {
    const limited = single(seq(lit("<a>"), text(["</a>"], { maxTokens: 5, maxChars: 4 }), lit("</a>")));
    const unlimited = single(seq(lit("<a>"), text(["</a>"], { maxChars: 4 }), lit("</a>")));
    expect(irToGbnf(limited, { ignoreTokenLimits: true })).toBe(irToGbnf(unlimited));
  });
});
