/**
 * `excludes` of a `json_schema` format: strings that the text of no JSON string of the document
 * — value or key, at any depth — may contain. The text is the one written between the quotes,
 * escapes as written (xgrammar's reading): excluding `ab` rejects `"ab"` but not `"\u0061b"`,
 * and excluding `"` rejects the escape `\"` (it holds a `"`) but not `\u0022`. Quotes, keys'
 * colons, numbers and literals are outside the strings, so they are never filtered.
 *
 * Two automata enforce it, both an Aho–Corasick matcher of the excluded strings run over the
 * written text (a state that completes one has no way on):
 *
 * - over the code points of a string whose text is canonical (every constrained string, see
 *   json-text.ts: one code point, one fixed spelling), each code point feeding its canonical
 *   spelling — intersected with the string's own automaton (pattern, format, enum, lengths);
 * - over the characters of the text of an unconstrained string, where any escape may be written:
 *   the matcher crossed with the lexer of the inside of a JSON string.
 *
 * Both have at most (total length of the excluded strings + 1) × 6 states.
 */
import { cleanRanges, DfaBuilder, MAX_STATES, minimize, type Dfa } from "./automaton.js";
import { canonicalChar, canonicalText } from "./json-text.js";

/** The most code points the excluded strings may hold together (keeps both automata small). */
export const MAX_EXCLUDED_CODE_POINTS = 2000;

/** The Aho–Corasick matcher of a set of strings over code points. */
class Matcher {
  private readonly children: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  /** Whether reaching the state completes an excluded string (it or a suffix of it is one). */
  readonly hit: boolean[] = [false];
  /** Every code point some excluded string holds. */
  readonly codePoints = new Set<number>();

  constructor(strings: readonly string[]) {
    for (const s of strings) {
      let node = 0;
      for (const ch of s) {
        const cp = ch.codePointAt(0)!;
        this.codePoints.add(cp);
        let next = this.children[node]!.get(cp);
        if (next === undefined) {
          next = this.children.length;
          this.children.push(new Map());
          this.fail.push(0);
          this.hit.push(false);
          this.children[node]!.set(cp, next);
        }
        node = next;
      }
      this.hit[node] = true;
    }
    // Failure links breadth-first: a node's longest proper suffix that is also a prefix.
    const queue = [...this.children[0]!.values()];
    for (let i = 0; i < queue.length; i++) {
      const node = queue[i]!;
      for (const [cp, child] of this.children[node]!) {
        this.fail[child] = node === 0 ? 0 : this.next(this.fail[node]!, cp);
        if (this.hit[this.fail[child]!]) this.hit[child] = true;
        queue.push(child);
      }
    }
  }

  /** The state after reading `cp` in `state`. */
  next(state: number, cp: number): number {
    for (let s = state; ; s = this.fail[s]!) {
      const t = this.children[s]!.get(cp);
      if (t !== undefined) return t;
      if (s === 0) return 0;
    }
  }

  /** The state after reading `text` in `state`, or -1 when an excluded string completes on the way. */
  feed(state: number, text: string): number {
    let s = state;
    for (const ch of text) {
      s = this.next(s, ch.codePointAt(0)!);
      if (this.hit[s]) return -1;
    }
    return s;
  }
}

/** Where the lexer of a string's inside is: in text, after `\`, or after `\u` and k hex digits (Hex0 + k). */
const Lex = { Text: 0, Escape: 1, Hex0: 2, Hex3: 5 } as const;

const SHORT_ESCAPE_LETTERS = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const isHex = (cp: number): boolean => (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x46) || (cp >= 0x61 && cp <= 0x66);

/** Code points with a lexer role inside a JSON string: controls, `"`, `\`, escape letters, hex digits. */
const LEXICAL: readonly number[] = (() => {
  const out = new Set<number>();
  for (let cp = 0; cp <= 0x7f; cp++) if (cp < 0x20 || SHORT_ESCAPE_LETTERS.has(cp) || cp === 0x75 || isHex(cp)) out.add(cp);
  return [...out];
})();

/** Every code point that needs an escape in canonical text. */
const ESCAPED: readonly number[] = [...Array.from({ length: 0x20 }, (_, i) => i), 0x22, 0x5c];

/** The excluded strings of one JSON Schema lowering, with the automata that keep them out. */
export class Exclusions {
  private readonly matcher: Matcher;
  private canonical: Dfa | null = null;
  private text: Dfa | null = null;
  private readonly disjoint = new WeakMap<Dfa, boolean>();

  /** `strings`: non-empty, well-formed (checked by the caller). */
  constructor(readonly strings: readonly string[]) {
    this.matcher = new Matcher(strings);
  }

  /** Whether the canonical text of the string `s` (a declared key, an enum or const string) holds an excluded string. */
  blocks(s: string): boolean {
    const written = canonicalText(s);
    return this.strings.some((x) => written.includes(x));
  }

  /**
   * Whether no string of `dfa` (code points, written canonically) can hold an excluded string
   * because each excluded string has a character no such text uses: then the automaton needs no
   * product (a format such as `date-time` stays as compact as without excludes).
   */
  cannotOccurIn(dfa: Dfa): boolean {
    let known = this.disjoint.get(dfa);
    if (known === undefined) {
      const ranges = cleanRanges(dfa.edges.flatMap((list) => list.map(([lo, hi]) => [lo, hi] as const)));
      const inRanges = (c: number): boolean => ranges.some(([lo, hi]) => c >= lo && c <= hi);
      // An escaped code point writes its escape's characters instead of itself.
      const written = new Set<number>();
      for (const e of ESCAPED) if (inRanges(e)) for (const ch of canonicalChar(e)) written.add(ch.codePointAt(0)!);
      const used = (c: number): boolean => written.has(c) || (!ESCAPED.includes(c) && inRanges(c));
      known = this.strings.every((x) => [...x].some((ch) => !used(ch.codePointAt(0)!)));
      this.disjoint.set(dfa, known);
    }
    return known;
  }

  /** Strings (as code points) whose canonical text holds none of the excluded strings. */
  canonicalDfa(): Dfa {
    if (this.canonical === null) {
      const special = [...new Set([...this.matcher.codePoints, ...ESCAPED])].sort((a, b) => a - b);
      this.canonical = this.build((state) => {
        const out: Array<[number, number, number]> = [];
        let from = 0;
        for (const cp of special) {
          // A code point no excluded string holds, written as itself, matches nothing anew.
          if (cp > from) out.push([from, cp - 1, 0]);
          out.push([cp, cp, this.matcher.feed(state, canonicalChar(cp))]);
          from = cp + 1;
        }
        out.push([from, 0x10ffff, 0]);
        return out;
      });
    }
    return this.canonical;
  }

  /**
   * The inside of a JSON string written with any escapes, as an automaton over its characters,
   * holding none of the excluded strings.
   */
  textDfa(): Dfa {
    if (this.text === null) {
      const special = [...new Set([...this.matcher.codePoints, ...LEXICAL])].sort((a, b) => a - b);
      const lexStates = Lex.Hex3 + 1;
      this.text = this.build((state) => {
        const m = Math.floor(state / lexStates);
        const lex = state % lexStates;
        const to = (cp: number, nextLex: number): number => {
          const t = this.matcher.feed(m, String.fromCodePoint(cp));
          return t < 0 ? -1 : t * lexStates + nextLex;
        };
        const out: Array<[number, number, number]> = [];
        let from = 0;
        for (const cp of special) {
          // Outside an escape, a character without a role that no excluded string holds goes back to the start.
          if (cp > from && lex === Lex.Text) out.push([from, cp - 1, 0]);
          let t = -1;
          if (lex === Lex.Text) {
            if (cp === 0x5c) t = to(cp, Lex.Escape);
            else if (cp >= 0x20 && cp !== 0x22) t = to(cp, Lex.Text);
          } else if (lex === Lex.Escape) {
            if (SHORT_ESCAPE_LETTERS.has(cp)) t = to(cp, Lex.Text);
            else if (cp === 0x75) t = to(cp, Lex.Hex0);
          } else if (isHex(cp)) {
            t = to(cp, lex === Lex.Hex3 ? Lex.Text : lex + 1);
          }
          out.push([cp, cp, t]);
          from = cp + 1;
        }
        if (lex === Lex.Text) out.push([from, 0x10ffff, 0]);
        return out;
      }, (state) => state % lexStates === Lex.Text);
    }
    return this.text;
  }

  /**
   * A DFA over the states `edgesOf` reaches from state 0 (targets -1: no edge), minimized;
   * `accepting` defaults to every state.
   */
  private build(edgesOf: (state: number) => Array<[number, number, number]>, accepting: (state: number) => boolean = () => true): Dfa {
    const b = new DfaBuilder(MAX_STATES);
    const ids = new Map<number, number>();
    const order: number[] = [];
    const idOf = (state: number): number => {
      let id = ids.get(state);
      if (id === undefined) {
        id = b.addState(accepting(state));
        ids.set(state, id);
        order.push(state);
      }
      return id;
    };
    idOf(0);
    for (let i = 0; i < order.length; i++) {
      const state = order[i]!;
      for (const [lo, hi, to] of edgesOf(state)) if (to >= 0) b.addEdge(i, [[lo, hi]], idOf(to));
    }
    return minimize(b.build(0));
  }
}

/** Checks excluded strings given to the JSON Schema compiler; returns a message, or null when they are fine. */
export function excludesProblem(excludes: unknown): string | null {
  if (!Array.isArray(excludes)) return `expected a list of non-empty strings, got ${typeof excludes}`;
  let total = 0;
  for (let i = 0; i < excludes.length; i++) {
    const s: unknown = excludes[i];
    if (typeof s !== "string" || s === "") return `[${i}]: expected a non-empty string, got ${JSON.stringify(s)}`;
    if (!(s as unknown as { isWellFormed(): boolean }).isWellFormed()) return `[${i}]: expected well-formed Unicode, found a lone surrogate`;
    total += [...s].length;
  }
  if (total > MAX_EXCLUDED_CODE_POINTS) return `the excluded strings hold ${total} code points in all, more than the ${MAX_EXCLUDED_CODE_POINTS} supported`;
  return null;
}
