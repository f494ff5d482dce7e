/**
 * The continuous-batching mask batcher on a tiny vocabulary: members that join and leave between
 * steps, one fill per step once every member has asked, masks equal to each matcher's own, and a
 * member leaving while others wait releases them.
 */
import { describe, expect, it } from "vitest";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { MaskBatcher, type MaskFill } from "../../lib/server/mask-batcher.js";
import { tinyVocabulary } from "../engine/tiny-vocab.js";

const tokenizer = tinyVocabulary();
const words = Math.ceil(tokenizer.vocabSize / 32);

function matcher(pattern: string): GrammarMatcher {
  return new GrammarMatcher(compileGrammar(tokenizer, lowerFormat({ type: "structural_tag", format: { type: "regex", pattern } })));
}

function ownMask(m: GrammarMatcher): Int32Array {
  const out = new Int32Array(words);
  m.fillNextTokenBitmask(out);
  return out;
}

describe("MaskBatcher", () => {
  it("fills all members' masks in one call once each has asked; joins and leaves between steps", async () => {
    const fills: MaskFill[] = [];
    const batcher = new MaskBatcher(3, tokenizer.vocabSize, (f) => fills.push(f));
    const a = matcher("ab+");
    const b = matcher("[0-9]+");
    const ma = batcher.join(a);
    const mb = batcher.join(b);
    const ra = ma.next() as Promise<Int32Array>;
    expect(fills.length, "b has not asked yet").toBe(0);
    const rb = mb.next() as Promise<Int32Array>;
    expect(fills.length).toBe(1);
    expect(Array.from(await ra)).toEqual(Array.from(ownMask(a)));
    expect(Array.from(await rb)).toEqual(Array.from(ownMask(b)));
    expect(fills[0]).toMatchObject({ rows: 2 });
    expect(fills[0]!.sinceLastMicros).toBeUndefined();

    // c joins while a and b are "decoding"; the next step fills all three.
    a.acceptToken(10); // "a"
    const c = matcher("x(y)?");
    const mc = batcher.join(c);
    const rc = mc.next() as Promise<Int32Array>;
    const ra2 = ma.next() as Promise<Int32Array>;
    expect(fills.length).toBe(1);
    const rb2 = mb.next() as Promise<Int32Array>;
    expect(fills.length).toBe(2);
    expect(fills[1]).toMatchObject({ rows: 3 });
    expect(fills[1]!.sinceLastMicros).toBeGreaterThanOrEqual(0);
    for (const [m, r] of [[a, ra2], [b, rb2], [c, rc]] as const) expect(Array.from(await r)).toEqual(Array.from(ownMask(m)));

    // b leaves while a waits: a is served without it.
    const ra3 = ma.next() as Promise<Int32Array>;
    const rc3 = mc.next() as Promise<Int32Array>;
    expect(fills.length).toBe(2);
    mb.leave();
    expect(fills.length).toBe(3);
    expect(fills[2]).toMatchObject({ rows: 2 });
    await Promise.all([ra3, rc3]);
    expect(batcher.size).toBe(2);
  });

  it("refuses misuse: a second request for one step, a request after leaving, too many members", async () => {
    const batcher = new MaskBatcher(1, tokenizer.vocabSize);
    const m = batcher.join(matcher("a"));
    expect(() => batcher.join(matcher("b"))).toThrow(/more than 1 members/);
    const first = m.next() as Promise<Int32Array>;
    await first;
    m.leave();
    await expect(m.next() as Promise<Int32Array>).rejects.toThrow(/after leaving/);
    expect(() => new MaskBatcher(0, 10)).toThrow(/positive integer/);
  });

  it("tells a member that leaves while waiting", async () => {
    const batcher = new MaskBatcher(2, tokenizer.vocabSize);
    const a = batcher.join(matcher("a"));
    batcher.join(matcher("b"));
    const waiting = a.next() as Promise<Int32Array>;
    a.leave();
    await expect(waiting).rejects.toThrow(/left while waiting/);
  });
});
