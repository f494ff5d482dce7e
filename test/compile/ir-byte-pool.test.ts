/**
 * The serialized IR's byte pool (lib/compile/ir-byte-pool.ts): each distinct content once,
 * found again by content however many are added.
 */
import { describe, expect, it } from "vitest";
import { BytePool } from "../../lib/compile/ir-byte-pool.js";
import { choice, deserializeGrammar, lit, seq, serializeGrammar, text } from "../../lib/compile/ir.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe("BytePool", () => {
  it("gives equal contents one offset and distinct ones their own, across table growth", () => {
    const pool = new BytePool();
    const offsets = new Map<string, number>();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5000; i++) {
        const s = `w${(i * 7919) % 5000}`;
        const off = pool.add(enc(s));
        if (round === 0 && !offsets.has(s)) offsets.set(s, off);
        expect(off).toBe(offsets.get(s));
        expect(new TextDecoder().decode(pool.bytes.subarray(off, off + enc(s).length))).toBe(s);
      }
    }
    expect(new Set(offsets.values()).size).toBe(offsets.size);
  });

  it("appended bytes are not found as contents", () => {
    const pool = new BytePool();
    const named = pool.append(enc("root"));
    expect(pool.add(enc("root"))).not.toBe(named);
  });
});

describe("serializeGrammar writes each literal's bytes once", () => {
  it("equal literals share one node; an excluded string equal to a literal shares its bytes", () => {
    const grammar = { rules: [{ name: "root", body: choice(seq(lit("ab"), lit("cd")), seq(lit("cd"), lit("ab")), text(["ab"])) }], root: 0 };
    const bytes = serializeGrammar(grammar);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // Header: nodes count at word 4, byte pool length at word 6 ("ab", "cd", "root").
    expect(view.getUint32(6 * 4, true)).toBe(8);
    // Nodes: "ab", "cd", two seqs, the text, the choice.
    expect(view.getUint32(4 * 4, true)).toBe(6);
    expect(serializeGrammar(deserializeGrammar(bytes))).toEqual(bytes);
  });
});
