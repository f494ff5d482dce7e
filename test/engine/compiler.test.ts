/**
 * Compiling: sync and async give the same masks, bad input is a typed error (also through the
 * Promise), compile statistics, and the GrammarCompiler cache (hits, byte bound, shared in-flight
 * compilations).
 */
import { describe, expect, it } from "vitest";
import { charClass, choice, GrammarBuilder, lit, plus, seq, serializeGrammar, text, type IrGrammar } from "../../lib/compile/ir.js";
import { compileGrammar, compileGrammarAsync, CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarCompiler } from "../../lib/engine/grammar-compiler.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { GrammarError, InvalidArgumentError } from "../../lib/errors.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { popcount32 } from "../../lib/mask/types.js";
import { tinyVocabulary } from "./tiny-vocab.js";

const vocab = tinyVocabulary();

function grammar(word: string): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", seq(lit(word), plus(charClass([[0x61, 0x7a]])), text(["x"])));
  return g.build("root");
}

function leftRecursive(): IrGrammar {
  const g = new GrammarBuilder();
  g.define("root", g.ruleRef("list"));
  g.define("list", choice(seq(g.ruleRef("list"), lit(","), lit("a")), lit("a")));
  return g.build("root");
}

describe("compileGrammar", () => {
  it("compiles IR objects and bytes alike, synchronously and asynchronously", async () => {
    const ir = grammar("ab");
    const a = compileGrammar(vocab, ir);
    const b = compileGrammar(vocab, serializeGrammar(ir), { threads: 1 });
    const c = await compileGrammarAsync(vocab, ir);
    expect(c).toBeInstanceOf(CompiledGrammar);
    const masks = [a, b, c].map((g) => new GrammarMatcher(g).nextTokenBitmask());
    expect(masks[1]).toEqual(masks[0]);
    expect(masks[2]).toEqual(masks[0]);
    const stats = a.stats();
    expect(stats.states).toBe(a.stateCount);
    expect(stats.keptRules).toEqual(["root"]);
    expect(a.memoryBytes).toBeGreaterThan(0);
    expect(a.vocabSize).toBe(vocab.vocabSize);
  });

  it("refuses left recursion naming the rules, synchronously and through the Promise", async () => {
    expect(() => compileGrammar(vocab, leftRecursive())).toThrow(GrammarError);
    expect(() => compileGrammar(vocab, leftRecursive())).toThrow(/left recursion: rule 'list'/);
    await expect(compileGrammarAsync(vocab, leftRecursive())).rejects.toThrow(/left recursion/);
    await expect(compileGrammarAsync(vocab, Uint8Array.of(1, 2, 3))).rejects.toBeInstanceOf(GrammarError);
  });

  it("refuses grammars that match nothing and oversized repeats", () => {
    const g = new GrammarBuilder();
    g.define("root", seq(lit("a"), g.ruleRef("loop")));
    g.define("loop", seq(lit("b"), g.ruleRef("loop")));
    expect(() => compileGrammar(vocab, g.build("root"))).toThrow(/matches no string/);
    const big = new GrammarBuilder();
    // Large repeats are counted (counted-repeat.test.ts); one whose loop is ambiguous is unrolled.
    big.define("root", { kind: "repeat", item: { kind: "repeat", item: lit("ab"), min: 1, max: null }, min: 3_000_000, max: null });
    expect(() => compileGrammar(vocab, big.build("root"))).toThrow(/rule 'root': a repeat \{3000000,\}/);
  });

  it("builds a large rule referenced twice once, as a call; a small one is inlined", () => {
    // 800 words of 8 letters: over 4,096 NFA states per inlined copy.
    const words = Array.from({ length: 800 }, (_, i) => `w${String(i).padStart(3, "0")}word`);
    const build = (refs: number, rule: "big" | "small"): CompiledGrammar => {
      const g = new GrammarBuilder();
      g.define("big", choice(...words.map((w) => lit(w))));
      g.define("small", choice(lit("ab"), lit("cd")));
      const items = Array.from({ length: refs }, (_, i) => (i === 0 ? [g.ruleRef(rule)] : [lit(","), g.ruleRef(rule)])).flat();
      g.define("root", seq(...items));
      return compileGrammar(vocab, g.build("root"), { threads: 1 });
    };
    expect(build(1, "big").stats().keptRules).toEqual(["root"]);
    expect(build(2, "small").stats().keptRules).toEqual(["root"]);
    const twice = build(2, "big");
    expect(twice.stats().keptRules.sort()).toEqual(["big", "root"]);
    const accepts = (text: string): boolean => {
      const m = new GrammarMatcher(twice);
      return m.acceptString(text) && m.canTerminate();
    };
    expect(accepts("w000word,w799word")).toBe(true);
    expect(accepts("w123word,w123word")).toBe(true);
    expect(accepts("w123word,w800word")).toBe(false);
    expect(accepts("w123word")).toBe(false);
  });

  it("walks the tries once per class of token-equivalent states (a string with a length limit)", () => {
    // A text with maxChars is a counter built into its automaton: 200 positions (length-limited
    // repeats are counted instead, counted-repeat.test.ts). The tiny vocabulary's tokens are a
    // few bytes long: only the last positions differ for them.
    const g = new GrammarBuilder();
    g.define("root", seq(lit("["), text(["]"], { maxChars: 200 }), lit("]")));
    const positions = compileGrammar(vocab, g.build("root"), { threads: 1 }).stats();
    expect(positions.walkedStates).toBeLessThan(positions.states / 4);
    const limited = compileGrammar(vocab, compileJsonSchema({ type: "string", maxLength: 200 }).grammar, { threads: 1 });
    const accepts = (text: string): boolean => {
      const m = new GrammarMatcher(limited);
      return m.acceptString(text) && m.canTerminate();
    };
    expect(accepts(`"${"a".repeat(200)}"`)).toBe(true);
    expect(accepts(`"${"a".repeat(201)}"`)).toBe(false);
    expect(accepts(`"${"é".repeat(199)}\\n"`)).toBe(true);
    const m = new GrammarMatcher(limited);
    expect(m.acceptString(`"${"a".repeat(199)}`)).toBe(true);
    const row = m.nextTokenBitmask();
    const early = new GrammarMatcher(limited);
    expect(early.acceptString(`"${"a".repeat(20)}`)).toBe(true);
    // One character left: fewer tokens than with 180 left.
    const count = (mask: Int32Array): number => mask.reduce((n, w) => n + popcount32(w), 0);
    expect(count(row)).toBeLessThan(count(early.nextTokenBitmask()));
  });

  it("checks its arguments", () => {
    expect(() => compileGrammar({} as never, grammar("a"))).toThrow(InvalidArgumentError);
    expect(() => compileGrammar(vocab, "root ::= x" as never)).toThrow(InvalidArgumentError);
    expect(() => compileGrammar(vocab, grammar("a"), { threads: -1 })).toThrow(/options.threads/);
  });
});

describe("GrammarCompiler", () => {
  it("returns the cached grammar for the same bytes and vocabulary", () => {
    const compiler = new GrammarCompiler();
    const a = compiler.compile(vocab, grammar("ab"));
    const b = compiler.compile(vocab, serializeGrammar(grammar("ab")));
    expect(b).toBe(a);
    const other = compiler.compile(tinyVocabulary(), grammar("ab"));
    expect(other).toBe(a); // an equal vocabulary has the same fingerprint
    expect(compiler.cacheStats).toMatchObject({ entries: 1, hits: 2, misses: 1 });
  });

  it("serves an entry only for the bytes it was compiled from, even when the caller's buffer changes", async () => {
    const compiler = new GrammarCompiler();
    const bytes = serializeGrammar(grammar("ab"));
    const original = bytes.slice();
    const a = compiler.compile(vocab, bytes);
    const other = serializeGrammar(grammar("cd"));
    expect(other.length).toBe(bytes.length);
    bytes.set(other); // the same buffer, now another grammar
    const b = compiler.compile(vocab, bytes);
    expect(b).not.toBe(a);
    expect(new GrammarMatcher(b).acceptString("cd")).toBe(true);
    expect(new GrammarMatcher(a).acceptString("cd")).toBe(false);
    expect(compiler.compile(vocab, original)).toBe(a);
    expect(await compiler.compileAsync(vocab, other)).toBe(b);
    expect(compiler.cacheStats).toMatchObject({ entries: 2, hits: 2, misses: 2 });
  });

  it("keeps the bytes an async compilation started from when the caller's buffer changes meanwhile", async () => {
    const compiler = new GrammarCompiler();
    const bytes = serializeGrammar(grammar("ab"));
    const original = bytes.slice();
    let changed = false;
    const a = await compiler.compileAsync(vocab, bytes, {
      onProgress: () => {
        if (!changed) bytes.set(serializeGrammar(grammar("cd")));
        changed = true;
      },
    });
    expect(changed).toBe(true);
    expect(new GrammarMatcher(a).acceptString("ab")).toBe(true);
    expect(compiler.compile(vocab, original)).toBe(a);
    const b = compiler.compile(vocab, bytes);
    expect(b).not.toBe(a);
    expect(new GrammarMatcher(b).acceptString("cd")).toBe(true);
  });

  it("keeps the cache within its byte bound, evicting the least recently used", () => {
    const one = compileGrammar(vocab, grammar("a")).memoryBytes;
    const compiler = new GrammarCompiler({ cacheBytes: Math.floor(one * 2.5) });
    const a = compiler.compile(vocab, grammar("a"));
    compiler.compile(vocab, grammar("b"));
    expect(compiler.compile(vocab, grammar("a"))).toBe(a); // a is now the most recent
    compiler.compile(vocab, grammar("xy"));
    const stats = compiler.cacheStats;
    expect(stats.bytes).toBeLessThanOrEqual(Math.floor(one * 2.5));
    expect(stats.evictions).toBeGreaterThan(0);
    expect(compiler.compile(vocab, grammar("a"))).toBe(a);
    expect(compiler.cacheStats.misses).toBe(3); // "a" stayed
    compiler.compile(vocab, grammar("b"));
    expect(compiler.cacheStats.misses).toBe(4); // "b" was evicted
  });

  it("shares one compilation between concurrent async requests", async () => {
    const compiler = new GrammarCompiler();
    const [a, b] = await Promise.all([compiler.compileAsync(vocab, grammar("q")), compiler.compileAsync(vocab, grammar("q"))]);
    expect(b).toBe(a);
    expect(compiler.cacheStats.misses).toBe(1);
    await expect(compiler.compileAsync(vocab, leftRecursive())).rejects.toBeInstanceOf(GrammarError);
    compiler.clearCache();
    expect(compiler.cacheStats.entries).toBe(0);
  });
});
