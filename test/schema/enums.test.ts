/**
 * String enums: finite sets kept as their sorted strings, emitted as a trie (lib/compile/json-schema/enums.ts),
 * and turned into the minimal acyclic automaton directly when an operation needs one. Checked
 * against the sets themselves: every value accepted, near misses rejected, and the automaton equal
 * to the minimization of a plain trie.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { dfaKey, dfaMatches, dfaOfStrings, DfaBuilder, type Dfa } from "../../lib/compile/json-schema/automaton.js";
import { minimize } from "../../lib/compile/json-schema/minimize.js";
import { sortByCodeUnits } from "../../lib/compile/json-schema/strings.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { rng } from "../helpers/random.js";

/** A trie built the obvious way (one state per prefix), for comparison after minimization. */
function plainTrie(words: string[]): Dfa {
  const b = new DfaBuilder(Infinity);
  const start = b.addState();
  const kids: Array<Map<number, number>> = [new Map()];
  for (const w of words) {
    let s = start;
    for (const ch of w) {
      const cp = ch.codePointAt(0)!;
      let t = kids[s]!.get(cp);
      if (t === undefined) {
        t = b.addState();
        kids.push(new Map());
        kids[s]!.set(cp, t);
      }
      s = t;
    }
    b.accept[s] = true;
  }
  kids.forEach((m, s) => {
    for (const [cp, t] of m) b.edges[s]!.push([cp, cp, t]);
  });
  return b.build(start);
}

const tricky: string[][] = [
  ["a", "ab", "abc", "abd", "b", ""],
  ["x", "xx", "xxx", "xxxx"],
  ['quote"', "back\\slash", "tab\t", "nul\u0000", "é", "😀", "😁", "a😀b", "a😁b"],
  ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
  ["\uffff", "\ue000", "\u{10000}", "\u{10ffff}", "z"],
];

describe("dfaOfStrings: the minimal acyclic automaton, built directly", () => {
  it.each(tricky.map((w) => [w]))("%j", (words) => {
    const dfa = dfaOfStrings(words);
    expect(dfaKey(dfa)).toBe(dfaKey(minimize(plainTrie(words))));
    for (const w of words) expect(dfaMatches(dfa, w)).toBe(true);
    for (const w of words) expect(dfaMatches(dfa, `${w}?`)).toBe(false);
  });
  it("agrees with a minimized trie on random sets with shared suffixes", () => {
    const rnd = rng(7);
    for (let round = 0; round < 30; round++) {
      const words = Array.from({ length: 1 + Math.floor(rnd() * 60) }, () => {
        const n = Math.floor(rnd() * 6);
        let s = "";
        for (let i = 0; i < n; i++) s += ["a", "b", "😀", "c"][Math.floor(rnd() * 4)]!;
        return s + ["", "ing", "ed"][Math.floor(rnd() * 3)]!;
      });
      expect(dfaKey(dfaOfStrings(words))).toBe(dfaKey(minimize(plainTrie(words))));
    }
  });
});

describe("string enums compile to tries", () => {
  it.each(tricky.map((w) => [w]))("%j: every value and nothing else", (words) => {
    const { grammar } = compileJsonSchema({ enum: words });
    for (const w of words) expect([w, isMatch(grammar, JSON.stringify(w))]).toEqual([w, true]);
    for (const w of words) {
      for (const miss of [`${w}x`, w.slice(0, -1), `x${w}`]) {
        if (!words.includes(miss)) expect([miss, isMatch(grammar, JSON.stringify(miss))]).toEqual([miss, false]);
      }
    }
    // Canonical encoding only: an escape of a literal character is not the same text.
    expect(isMatch(grammar, '"\\u0061"')).toBe(false);
  });
  it("mixed enums keep their other values; const and enum intersect by filtering", () => {
    const { grammar } = compileJsonSchema({ enum: ["a", 1, null, "b", ["a"]], not: { const: "b" } });
    for (const t of ['"a"', "1", "null", '["a"]']) expect([t, isMatch(grammar, t)]).toEqual([t, true]);
    for (const t of ['"b"', "2", '["b"]']) expect([t, isMatch(grammar, t)]).toEqual([t, false]);
  });
  it("enum crossed with pattern, length and format keeps exactly the values that pass", () => {
    const words = ["2020-01-01", "2020-13-01", "abc", "abcd", "x"];
    const { grammar } = compileJsonSchema({ type: "string", enum: words, format: "date", maxLength: 10 });
    expect(words.filter((w) => isMatch(grammar, JSON.stringify(w)))).toEqual(["2020-01-01"]);
    const g2 = compileJsonSchema({ enum: words, pattern: "^[a-z]+$", minLength: 2, maxLength: 3 }).grammar;
    expect(words.filter((w) => isMatch(g2, JSON.stringify(w)))).toEqual(["abc"]);
  });
  it("anyOf of many consts unites into one set; allOf of two enums is their intersection", () => {
    const consts = Array.from({ length: 300 }, (_, i) => `v${i}`);
    const { grammar } = compileJsonSchema({ anyOf: consts.map((c) => ({ const: c })) });
    for (const c of ["v0", "v150", "v299"]) expect(isMatch(grammar, JSON.stringify(c))).toBe(true);
    expect(isMatch(grammar, '"v300"')).toBe(false);
    const both = compileJsonSchema({ allOf: [{ enum: ["a", "b", "c"] }, { enum: ["b", "c", "d"] }] }).grammar;
    expect(["a", "b", "c", "d"].filter((w) => isMatch(both, JSON.stringify(w)))).toEqual(["b", "c"]);
  });
  it("a large enum compiles without a state budget (20,000 values) and stays exact", () => {
    const rnd = rng(11);
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_-";
    const words = new Set<string>();
    while (words.size < 20000) {
      let s = "";
      const n = 8 + Math.floor(rnd() * 16);
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)]!;
      words.add(s);
    }
    const list = [...words];
    const { grammar } = compileJsonSchema({ type: "string", enum: list });
    for (let i = 0; i < list.length; i += 997) {
      expect(isMatch(grammar, JSON.stringify(list[i]))).toBe(true);
      expect(isMatch(grammar, JSON.stringify(`${list[i]}_`))).toBe(words.has(`${list[i]}_`));
    }
  });
});

describe("sortByCodeUnits: large lists sorted by packed keys", () => {
  // Short strings over a few units, surrogate halves and pairs included, so that lists share
  // their first two units often and strings end within them.
  const unit = fc.constantFrom(0x00, 0x22, 0x41, 0x42, 0x5c, 0xe9, 0xd83d, 0xde00, 0xde01, 0xe000, 0xffff);
  const word = fc.array(unit, { maxLength: 5 }).map((units) => String.fromCharCode(...units));
  it("agrees with Array.prototype.sort on lists of 0 to 400 strings, repeats included", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 400 }), (list) => {
        expect(sortByCodeUnits([...list])).toEqual([...list].sort());
      }),
      { numRuns: 200, seed: 7 },
    );
  });
  it("agrees on long shared prefixes, past the levels it sorts by keys", () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 40, maxLength: 200 }), fc.integer({ min: 0, max: 90 }), (list, shared) => {
        const long = list.map((w, i) => `${"p".repeat(i % 3 === 0 ? shared : shared + 1)}${w}`);
        expect(sortByCodeUnits([...long])).toEqual([...long].sort());
      }),
      { numRuns: 60, seed: 3 },
    );
  });
});

describe("large enums of awkward strings", () => {
  it("escapes, non-ASCII, surrogate pairs, prefixes and repeats: every value and nothing else", () => {
    const rnd = rng(5);
    const pieces = ["a", "b", 'q"', "\\", "\t", "\u0001", "é", "日", "😀", "😁", "\u{10ffff}", "z"];
    const list: string[] = [];
    for (let k = 0; k < 3000; k++) {
      let s = "";
      const n = Math.floor(rnd() * 6);
      for (let i = 0; i < n; i++) s += pieces[Math.floor(rnd() * pieces.length)]!;
      list.push(s);
    }
    const words = new Set(list);
    const { grammar } = compileJsonSchema({ enum: list });
    for (const w of [...words].slice(0, 400)) {
      expect(isMatch(grammar, JSON.stringify(w))).toBe(true);
      for (const miss of [`${w}a`, `${w}😀`, w.slice(0, -1)]) expect(isMatch(grammar, JSON.stringify(miss))).toBe(words.has(miss));
    }
  });
});
