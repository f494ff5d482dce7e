import { describe, expect, it } from "vitest";
import {
  GrammarBuilder, charClass, choice, empty, lit, never, optional, plus, repeat, seq, star, text, type IrExpr, type IrGrammar,
} from "../../lib/compile/ir.js";
import { Recognizer, isMatch, isViablePrefix, viablePrefixLength } from "../../lib/compile/recognizer.js";
import { GrammarError, InvalidArgumentError } from "../../lib/errors.js";

/** A grammar from named rules; `root` is the start. */
function grammar(define: (b: GrammarBuilder) => void): IrGrammar {
  const b = new GrammarBuilder();
  define(b);
  return b.build("root");
}
const one = (body: IrExpr): IrGrammar => grammar((b) => b.define("root", body));
const bytes = (...xs: number[]): Uint8Array => Uint8Array.from(xs);

type Case = [input: string | Uint8Array, match: boolean, viable: boolean];

function check(g: IrGrammar, cases: Case[]): void {
  for (const [input, match, viable] of cases) {
    const shown = typeof input === "string" ? JSON.stringify(input) : `bytes ${Array.from(input, (x) => x.toString(16)).join(" ")}`;
    expect(isMatch(g, input), `match ${shown}`).toBe(match);
    expect(isViablePrefix(g, input), `viable ${shown}`).toBe(viable);
  }
}

describe("recognizer: context-free structure", () => {
  it("handles direct left recursion", () => {
    const g = grammar((b) => b.define("root", choice(seq(b.ruleRef("root"), lit("+a")), lit("a"))));
    check(g, [["a", true, true], ["a+a", true, true], ["a+a+a+a", true, true], ["a+", false, true], ["", false, true], ["+a", false, false], ["aa", false, false]]);
  });

  it("handles indirect left recursion", () => {
    const g = grammar((b) => {
      b.define("root", choice(seq(b.ruleRef("list"), lit(";")), lit("x")));
      b.define("list", choice(seq(b.ruleRef("root"), lit(",")), lit("y")));
    });
    check(g, [["x", true, true], ["y;", true, true], ["x,;", true, true], ["x,;,;", true, true], ["x,", false, true], ["y", false, true], [";", false, false], ["x;", false, false]]);
  });

  it("handles right recursion and deep nesting", () => {
    const g = grammar((b) => b.define("root", choice(seq(lit("("), b.ruleRef("root"), lit(")")), empty())));
    const deep = "(".repeat(200) + ")".repeat(200);
    check(g, [["", true, true], ["()", true, true], [deep, true, true], ["((()", false, true], ["())", false, false], [deep + ")", false, false]]);
  });

  it("handles nullable rules in every position", () => {
    const g = grammar((b) => {
      const e = b.ruleRef("e");
      b.define("e", choice(empty(), lit("b"), seq(b.ruleRef("e2"), b.ruleRef("e2"))));
      b.define("e2", optional(lit("c")));
      b.define("root", seq(e, lit("a"), e, e, lit("d"), e));
    });
    check(g, [["ad", true, true], ["bad", true, true], ["abbd", true, true], ["accd", true, true], ["acccd", true, true], ["adcc", true, true],
      ["abbbd", false, false], ["a", false, true], ["d", false, false], ["adccc", false, false]]);
  });

  it("handles cyclic and highly ambiguous grammars", () => {
    const g = grammar((b) => {
      const r = b.ruleRef("root");
      b.define("root", choice(r, seq(r, r), lit("a"), empty()));
    });
    check(g, [["", true, true], ["a", true, true], ["a".repeat(40), true, true], ["b", false, false]]);
    const h = grammar((b) => {
      const r = b.ruleRef("root");
      b.define("root", choice(seq(r, lit("+"), r), seq(r, lit("*"), r), lit("n")));
    });
    check(h, [["n+n*n+n", true, true], ["n+n*", false, true], ["n++n", false, false]]);
  });

  it("handles counted repeats, including empty and unbounded ones", () => {
    const g = one(seq(repeat(lit("ab"), 2, 4), repeat(lit("x"), 0, 0), repeat(lit("c"), 1, null), repeat(optional(lit("d")), 2, 3)));
    check(g, [["ababc", true, true], ["abababcccd", true, true], ["ababababcdd", true, true], ["ababcddd", true, true],
      ["ababcdddd", false, false], ["abc", false, false], ["abababababc", false, false], ["ababx", false, false], ["abab", false, true]]);
  });

  it("treats never and empty correctly", () => {
    check(one(never()), [["", false, false], ["a", false, false]]);
    check(one(choice(never(), lit("a"))), [["a", true, true], ["", false, true]]);
    check(one(seq(lit("a"), never())), [["", false, false], ["a", false, false]]);
    check(one(seq(lit("a"), star(never()))), [["a", true, true]]);
    check(one(empty()), [["", true, true], ["a", false, false]]);
    // A rule that can never finish makes its whole branch dead from the first byte.
    const g = grammar((b) => {
      b.define("loop", seq(lit("x"), b.ruleRef("loop")));
      b.define("root", choice(b.ruleRef("loop"), lit("y")));
    });
    check(g, [["x", false, false], ["y", true, true]]);
  });
});

describe("recognizer: UTF-8 and classes", () => {
  const cls = one(plus(charClass([[0x41, 0x5a], 0xe9, [0x3b1, 0x3c9], [0x4e00, 0x4e01], [0x1f600, 0x1f601]])));
  it("matches whole code points of a class", () => {
    check(cls, [["AZ", true, true], ["é", true, true], ["αω", true, true], ["丁一", true, true], ["😀😁", true, true],
      ["è", false, false], ["a", false, false], ["😂", false, false], ["", false, true]]);
  });
  it("judges partial characters by what they can still become", () => {
    check(cls, [
      [bytes(0xc3), false, true], // é starts with C3
      [bytes(0xc3, 0xa8), false, false], // è
      [bytes(0xce), false, true], // α..ω start with CE or CF
      [bytes(0xd0), false, false],
      [bytes(0xe4, 0xb8), false, true],
      [bytes(0xe4, 0xb9), false, false],
      [bytes(0xf0, 0x9f, 0x98), false, true],
      [bytes(0xf0, 0x9f, 0x98, 0x82), false, false],
      [bytes(0x41, 0xc3), false, true],
    ]);
  });
  it("never matches surrogates, overlong or invalid encodings", () => {
    const any = one(plus(charClass([[0, 0x10ffff]])));
    check(any, [
      [bytes(0xed, 0x9f, 0xbf), true, true], // U+D7FF
      [bytes(0xed, 0xa0), false, false], // would be a surrogate
      [bytes(0xee, 0x80, 0x80), true, true], // U+E000
      [bytes(0xc0, 0x80), false, false],
      [bytes(0xc1), false, false],
      [bytes(0xe0, 0x80), false, false], // overlong 3-byte form
      [bytes(0xe0, 0xa0, 0x80), true, true], // U+0800
      [bytes(0xf0, 0x8f), false, false], // overlong 4-byte form
      [bytes(0xf4, 0x8f, 0xbf, 0xbf), true, true], // U+10FFFF
      [bytes(0xf4, 0x90), false, false], // past U+10FFFF
      [bytes(0xf5), false, false],
      [bytes(0xff), false, false],
      [bytes(0x80), false, false],
      [bytes(0xc3, 0x41), false, false],
      [bytes(0xe2, 0x82), false, true],
    ]);
    const surrogates = one(charClass([[0xd000, 0xdfff]]));
    check(surrogates, [[bytes(0xed, 0x80, 0x80), true, true], [bytes(0xed, 0xa0, 0x80), false, false], [bytes(0xed, 0xa0), false, false]]);
  });
  it("reads negated classes over all code points but surrogates", () => {
    const g = one(plus(charClass([[0x61, 0x7a], 0xe9], true)));
    check(g, [["ABC", true, true], ["è", true, true], ["😀", true, true], ["a", false, false], ["é", false, false], [bytes(0xc3), false, true], [bytes(0xed, 0xa0), false, false]]);
    // A negated class that leaves only surrogates matches nothing.
    check(one(charClass([[0, 0xd7ff], [0xe000, 0x10ffff]], true)), [["", false, false], [bytes(0xed, 0xa0, 0x80), false, false]]);
  });
});

describe("recognizer: text", () => {
  it("ends before an excluded string, also when it straddles bytes", () => {
    const g = one(seq(lit("<"), text(["</a>"]), lit("</a>")));
    check(g, [["<</a>", true, true], ["<hello</a>", true, true], ["<a</</a>", true, true], ["<he</a</a>", true, true],
      ["<x</a>y", false, false], ["<x</a></a>", false, false], ["<x</", false, true], ["<é</a>", true, true]]);
  });
  it("finds overlapping and nested excluded strings", () => {
    const g = one(text(["aab", "ba", "cdc"]));
    check(g, [["aaac", true, true], ["aaab", false, false], ["abb", true, true], ["abba", false, false], ["cdcd", false, false], ["cddc", true, true], ["ccdc", false, false]]);
  });
  it("matches excluded strings on bytes, inside multi-byte characters too", () => {
    const g = one(text(["é", bytes(0xbf, 0x41)]));
    check(g, [["e", true, true], ["é", false, false], [bytes(0xc3), false, true], [bytes(0xc3, 0xa9), false, false], ["ÿ", true, true], ["ÿA", false, false], ["ÿB", true, true]]);
  });
  it("dies mid-character when every completion would be excluded", () => {
    const all = Array.from({ length: 64 }, (_, i) => bytes(0xc3, 0x80 + i));
    const g = one(text(all));
    check(g, [[bytes(0xc3), false, false], [bytes(0xc4), false, true], ["a", true, true]]);
    const some = one(text(all.slice(0, 63)));
    check(some, [[bytes(0xc3), false, true], [bytes(0xc3, 0xbf), true, true], [bytes(0xc3, 0xbe), false, false]]);
  });
  it("counts code points for maxChars and never ends mid-character", () => {
    const g = one(seq(text([], { maxChars: 3 }), lit("!")));
    check(g, [["!", true, true], ["abc!", true, true], ["éé😀!", true, true], ["abcd", false, false], ["ab", false, true], [bytes(0xc3, 0x21), false, false]]);
    const open = one(text([], { maxChars: 2, maxTokens: 1 }));
    check(open, [["", true, true], ["ab", true, true], ["abc", false, false], [bytes(0x61, 0xe2, 0x82), false, true], [bytes(0x61, 0x62, 0xe2), false, false]]);
  });
});

describe("recognizer: text agrees with a direct check on random inputs", () => {
  it("text(excludes) followed by an end string", () => {
    let seed = 4242;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = ["a", "b", "<", "/", "é", "\u00e8"];
    const word = (max: number): string => {
      let w = "";
      for (let i = 1 + rand(max); i > 0; i--) w += pieces[rand(pieces.length)]!;
      return w;
    };
    for (let n = 0; n < 80; n++) {
      const excludes = Array.from({ length: 1 + rand(3) }, () => word(3));
      const end = word(2);
      const g = one(seq(text(excludes), lit(end)));
      for (let m = 0; m < 50; m++) {
        const s = word(8) + (rand(3) ? end : "");
        const body = s.endsWith(end) ? s.slice(0, s.length - end.length) : null;
        const expected = body !== null && !excludes.some((x) => body.includes(x));
        expect(isMatch(g, s), `${JSON.stringify(excludes)} then ${JSON.stringify(end)} on ${JSON.stringify(s)}`).toBe(expected);
      }
    }
  });
});

describe("Recognizer states", () => {
  const g = one(seq(lit("["), star(choice(lit("a"), lit("bc"))), lit("]")));
  it("are canonical, immutable and reusable", () => {
    const r = new Recognizer(g);
    const s1 = r.stepBytes(r.initial(), new TextEncoder().encode("[a"))!;
    const s2 = r.stepBytes(r.initial(), new TextEncoder().encode("[abcaa"))!;
    expect(s1).toBe(s2);
    expect(Object.isFrozen(s1)).toBe(true);
    const end = r.step(s1, 0x5d)!;
    expect(r.accepts(end)).toBe(true);
    expect(r.accepts(s1)).toBe(false);
    expect(r.step(s1, 0x63)).toBeNull();
    expect(r.step(r.step(s1, 0x62)!, 0x63)).toBe(s1);
    r.stepBytes(r.initial(), new TextEncoder().encode("[bcbcbca]"));
    const before = r.stateCount;
    // Longer inputs of the same shape reach no new state: the state space is finite here.
    r.stepBytes(r.initial(), new TextEncoder().encode("[bcbcbcbcbcaaaaabcbca]"));
    expect(r.stateCount).toBe(before);
  });
  it("rejects foreign states and bad bytes with typed errors", () => {
    const r = new Recognizer(g);
    const other = new Recognizer(g);
    expect(() => r.step(other.step(other.initial(), 0x5b)!, 0x61)).toThrow(InvalidArgumentError);
    expect(() => r.step(r.initial(), 256)).toThrow(InvalidArgumentError);
    expect(() => r.step(r.initial(), -1)).toThrow(/byte must be an integer/);
  });
  it("refuses an invalid grammar with a GrammarError", () => {
    expect(() => new Recognizer({ rules: [{ name: "root", body: { kind: "ref", rule: 3 } }], root: 0 })).toThrow(GrammarError);
    expect(() => isMatch({ rules: [], root: 0 }, "")).toThrow(/at least one rule/);
  });
  it("reports where the input stops being viable", () => {
    expect(viablePrefixLength(g, "[abx]")).toBe(3);
    expect(viablePrefixLength(g, "[ab")).toBe(3);
    expect(viablePrefixLength(g, "x")).toBe(0);
    expect(viablePrefixLength(one(never()), "")).toBe(-1);
  });
});

// Differential check: random expressions over a small alphabet, compiled both to IR and to a JS
// regular expression; full matches must agree, and every prefix of a match must be viable.
describe("recognizer agrees with RegExp on random expressions", () => {
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const alphabet = ["a", "b", "é", "😀"];
  const gen = (depth: number): [IrExpr, string] => {
    const k = depth <= 0 ? rand(2) : rand(7);
    switch (k) {
      case 0: {
        const c = alphabet[rand(alphabet.length)]!;
        return [lit(c), c];
      }
      case 1: {
        const cs = alphabet.filter(() => rand(2) === 0);
        if (cs.length === 0) return [empty(), "(?:)"];
        const neg = rand(3) === 0;
        return [charClass(cs.map((c) => c.codePointAt(0)!), neg), `[${neg ? "^" : ""}${cs.join("")}]`];
      }
      case 2: {
        const [x, rx] = gen(depth - 1);
        const [y, ry] = gen(depth - 1);
        return [seq(x, y), `(?:${rx})(?:${ry})`];
      }
      case 3: {
        const [x, rx] = gen(depth - 1);
        const [y, ry] = gen(depth - 1);
        return [choice(x, y), `(?:${rx}|${ry})`];
      }
      case 4: {
        const [x, rx] = gen(depth - 1);
        return [star(x), `(?:${rx})*`];
      }
      case 5: {
        const [x, rx] = gen(depth - 1);
        const min = rand(3);
        const max = min + rand(3);
        return [repeat(x, min, max), `(?:${rx}){${min},${max}}`];
      }
      default: {
        const [x, rx] = gen(depth - 1);
        return [optional(x), `(?:${rx})?`];
      }
    }
  };
  it("on 120 expressions × 60 strings", () => {
    const encoder = new TextEncoder();
    let matches = 0;
    for (let n = 0; n < 120; n++) {
      const [expr, src] = gen(4);
      const g = one(expr);
      const re = new RegExp(`^(?:${src})$`, "u");
      for (let m = 0; m < 60; m++) {
        let s = "";
        const len = rand(7);
        for (let i = 0; i < len; i++) s += ["a", "b", "é", "😀", "c"][rand(5)]!;
        const expected = re.test(s);
        expect(isMatch(g, s), `${src} on ${JSON.stringify(s)}`).toBe(expected);
        if (expected) {
          matches++;
          const b = encoder.encode(s);
          for (let i = 0; i <= b.length; i++) expect(isViablePrefix(g, b.subarray(0, i))).toBe(true);
        }
      }
    }
    expect(matches).toBeGreaterThan(300);
  });
});

describe("recognizer: scale", () => {
  it("handles long right-recursive chains without deep recursion", () => {
    const g = grammar((b) => b.define("root", choice(seq(lit("a"), b.ruleRef("root")), lit("a"))));
    const long = "a".repeat(1500);
    expect(isMatch(g, long)).toBe(true);
    expect(isMatch(g, long + "b")).toBe(false);
  });
  it("counts large repeat bounds without unrolling them", () => {
    const g = one(seq(repeat(lit("x"), 2000, 100000), lit("!")));
    expect(isMatch(g, "x".repeat(2000) + "!")).toBe(true);
    expect(isMatch(g, "x".repeat(1999) + "!")).toBe(false);
    expect(isViablePrefix(g, "x".repeat(5000))).toBe(true);
    const exact = one(repeat(charClass([[0x61, 0x7a]]), 3, 3));
    check(exact, [["abc", true, true], ["ab", false, true], ["abcd", false, false]]);
  });
});
