/**
 * serializeGrammar checks a grammar it has not seen checked while it writes it (one walk): the
 * same errors, word for word and in the same order, as validateGrammar.
 */
import { describe, expect, it } from "vitest";
import { GrammarError } from "../../lib/errors.js";
import { choice, empty, lit, MAX_IR_NESTING, ref, repeat, seq, serializeGrammar, validateGrammar, type IrExpr, type IrGrammar } from "../../lib/compile/ir.js";

const g = (...bodies: unknown[]): IrGrammar => ({ rules: bodies.map((body, i) => ({ name: `r${i}`, body: body as IrExpr })), root: 0 });

function nested(depth: number, leaf: IrExpr = lit("x")): IrExpr {
  let e = leaf;
  for (let i = 0; i < depth; i++) e = seq(e, lit("y"));
  return e;
}

const cyclic = (): IrExpr => {
  const items: IrExpr[] = [lit("a")];
  const c = choice(...items);
  items.push(c);
  (c as { items: IrExpr[] }).items = items;
  return c;
};

const shared = nested(MAX_IR_NESTING - 10);

const cases: Array<[string, () => unknown]> = [
  ["not an object", () => null],
  ["no rules", () => ({ rules: [], root: 0 })],
  ["root out of range", () => ({ rules: [{ name: "a", body: empty() }], root: 3 })],
  ["a rule that is not an object", () => ({ rules: [{ name: "a", body: empty() }, 7], root: 0 })],
  ["a duplicate name", () => ({ rules: [{ name: "a", body: empty() }, { name: "a", body: empty() }], root: 0 })],
  ["an unknown kind deep inside", () => g(seq(lit("a"), choice(lit("b"), { kind: "nope" } as unknown as IrExpr)))],
  ["a missing child", () => g(seq(lit("a"), undefined as unknown as IrExpr))],
  ["empty bytes in the second rule", () => g(lit("a"), seq(lit("b"), { kind: "bytes", bytes: new Uint8Array(0) } as IrExpr))],
  ["a reference out of range", () => g(seq(ref(0), ref(5)))],
  ["a repeat whose max is below its min", () => g(repeat(lit("a"), 3, 2))],
  ["an expression containing itself", () => g(cyclic())],
  ["nesting past the limit", () => g(nested(MAX_IR_NESTING + 1))],
  ["a shared node nesting past the limit where it is met again", () => g(seq(shared, lit("a")), nested(20, shared))],
  ["an error in a later rule after a valid shared node", () => g(shared, seq(shared, { kind: "class", ranges: [] } as unknown as IrExpr))],
];

describe("serializeGrammar's checks are validateGrammar's", () => {
  it.each(cases)("%s", (_, make) => {
    let expected: unknown;
    try {
      validateGrammar(make() as IrGrammar);
    } catch (err) {
      expected = err;
    }
    expect(expected).toBeInstanceOf(GrammarError);
    expect(() => serializeGrammar(make() as IrGrammar)).toThrow((expected as Error).message);
  });

  it("a valid grammar with deep shared nodes is written, and written the same when checked before", () => {
    const grammar = g(seq(shared, nested(5, shared)), choice(shared, empty()));
    const first = serializeGrammar(grammar);
    validateGrammar(grammar);
    expect(serializeGrammar(grammar)).toEqual(first);
    expect(serializeGrammar(g(seq(shared, nested(5, shared)), choice(shared, empty())))).toEqual(first);
  });
});
