/**
 * Bounded work per call (issue 11, "Bounded work per call"): a grammar whose parses multiply with
 * every byte must not stall the process. The matcher keeps at most maxStacks parses alive and
 * then enters its error state with a typed error; the mask cache refuses such a grammar with a
 * GrammarError once one token prefix has too many parses or its work budget is spent. Each
 * reproduction also runs 5 times in a child process on the raw addon, which must end by itself
 * (no signal) with the typed error or the right result.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ebnfToIr } from "../../lib/compile/ebnf/index.js";
import { GrammarBuilder, serializeGrammar, type IrGrammar } from "../../lib/compile/ir.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { GrammarError, MatcherStateError } from "../../lib/errors.js";
import { addonCandidates } from "../../lib/native.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { randomWalk } from "./walk.js";

function ebnf(source: string): IrGrammar {
  const g = new GrammarBuilder();
  ebnfToIr(source, g);
  return g.build("root");
}

/** Parses double with every `x`: the stacks below hold every sequence of b/c/d/e to come. */
const doubling = (x: string): IrGrammar =>
  ebnf(`root ::= s\ns ::= "${x}" s "b" | "${x}" t "c" | ""\nt ::= "${x}" s "d" | "${x}" t "e" | ""`);

const vocab = TokenizerInfo.fromTokens(["<eos>", "a", "aa", "b", "c", "d", "e", " ", "  ", " ".repeat(8), " ".repeat(32), "bc", "x"], {
  vocabType: "raw",
  specialTokens: ["<eos>"],
  stopTokens: ["<eos>"],
});

describe("parses that multiply with the input", () => {
  it("the matcher follows them exactly up to maxStacks, then enters its error state", () => {
    const grammar = doubling("a");
    const compiled = compileGrammar(vocab, grammar, { threads: 1 });
    // Exact while the parses are few.
    for (let seed = 1; seed <= 4; seed++) randomWalk(grammar, compiled, vocab.data, { steps: 8, seed, checkAllAccepts: true });
    const m = new GrammarMatcher(compiled);
    let accepted = 0;
    let error: unknown;
    try {
      for (; accepted < 40; accepted++) m.acceptString("a");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MatcherStateError);
    expect(String((error as Error).message)).toMatch(/more than maxStacks = 1024 parses/);
    expect(accepted).toBe(11); // 2^10 = 1024 parses after the 11th "a"
    expect(() => m.nextTokenBitmask()).toThrow(MatcherStateError);
    m.reset();
    expect(m.acceptString("aac")).toBe(true);
    expect(m.canTerminate()).toBe(false);
    expect(m.acceptString("b")).toBe(true);
    expect(m.canTerminate()).toBe(true);
  });

  it("a grammar whose token masks would need exponentially many parses is refused", () => {
    expect(() => compileGrammar(vocab, doubling(" "), { threads: 1 })).toThrow(GrammarError);
    expect(() => compileGrammar(vocab, doubling(" "), { threads: 1 })).toThrow(/too ambiguous to compile: one token prefix has more than 65536 parses/);
    // The same shape over a byte no token repeats compiles (and has its stats).
    const stats = compileGrammar(vocab, doubling("x"), { threads: 1 }).stats();
    expect(stats.maskWork).toBeGreaterThan(stats.trieNodesVisited - 1);
  });
});

describe("the reproductions in a child process, 5 times each", () => {
  const dir = mkdtempSync(join(tmpdir(), "tagmask-bounded-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const addon = addonCandidates().find((c) => existsSync(c))!;
  const encode = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");

  function run(name: string, grammar: IrGrammar, ending: string): string {
    const file = join(dir, `${name}.json`);
    const v = vocab.data;
    writeFileSync(file, JSON.stringify({
      vocabSize: v.vocabSize, bytes: encode(v.bytes), offsets: encode(v.offsets), kinds: encode(v.kinds),
      stopTokenIds: encode(v.stopTokenIds), ir: encode(serializeGrammar(grammar)),
    }));
    const script = `
      const raw = JSON.parse(require("node:fs").readFileSync(${JSON.stringify(file)}, "utf8"));
      const buf = (s) => { const b = Buffer.from(s, "base64"); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength); };
      const vocab = { vocabSize: raw.vocabSize, bytes: new Uint8Array(buf(raw.bytes)), offsets: new Uint32Array(buf(raw.offsets)),
                      kinds: new Uint8Array(buf(raw.kinds)), stopTokenIds: new Uint32Array(buf(raw.stopTokenIds)) };
      const addon = require(${JSON.stringify(addon)});
      const tok = addon.createTokenizerInfo(vocab);
      const ir = new Uint8Array(buf(raw.ir));
      try { ${ending} } catch (e) { console.log("error " + e.code + ": " + e.message); }`;
    const outputs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 10_000 });
      expect(r.signal, `${name}, run ${i + 1}: ${r.stderr}`).toBeNull();
      expect(r.status, `${name}, run ${i + 1}: ${r.stderr}`).toBe(0);
      outputs.push(r.stdout.trim());
    }
    expect(new Set(outputs).size).toBe(1);
    return outputs[0]!;
  }

  it("acceptToken along 24 a's of the doubling grammar", () => {
    const out = run("matcher", doubling("a"), `
      const m = addon.createMatcher(addon.compileGrammar(tok, ir));
      let n = 0;
      for (; n < 24; n++) m.acceptToken(1);
      console.log("accepted " + n);`);
    expect(out).toMatch(/^error TAGMASK_\w+: .*more than maxStacks = 1024 parses/);
  });

  it("compiling the doubling grammar over spaces", () => {
    const out = run("compile", doubling(" "), `addon.compileGrammar(tok, ir); console.log("compiled");`);
    expect(out).toMatch(/^error TAGMASK_\w+: the grammar is too ambiguous to compile/);
  });
});
