/**
 * ECMAScript regular expressions (as JSON Schema's `pattern` and `patternProperties` use them:
 * Unicode mode, unanchored search) compiled to code-point DFAs, so they can be intersected with
 * lengths, formats and key sets and complemented. The grammar IR cannot do those operations, which
 * is why the schema compiler parses patterns itself rather than lowering them straight to IR.
 *
 * Supported: alternation, groups (capturing, non-capturing, named), quantifiers (`* + ? {m}
 * {m,} {m,n}` and their lazy forms, which match the same language), classes with ranges and
 * negation, `.`, escapes (`\d \D \w \W \s \S \t \n \v \f \r \0 \xHH \uHHHH \u{H…} \cX`, escaped
 * syntax characters, `\p{…}` / `\P{…}` with the JavaScript engine's property tables), and the
 * anchors `^` and `$` anywhere. Refused with the offset: look-around, back-references, word
 * boundaries.
 */
import { propertyRanges } from "../regex/unicode.js";
import { ALPHABET, AutomatonTooLarge, DfaBuilder, MAX_STATES, cleanRanges, minimize, negateRanges, type Dfa } from "./automaton.js";

/** A pattern that cannot be compiled exactly; `offset` is the 0-based position in the pattern. */
export class RegexUnsupported extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`${reason} at offset ${offset}`);
  }
}

type Ranges = Array<[number, number]>;

type Node =
  | { t: "chars"; ranges: Ranges }
  | { t: "seq"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; item: Node; min: number; max: number | null }
  | { t: "bol" }
  | { t: "eol" };

const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Ranges = cleanRanges([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
const DOT: Ranges = negateRanges(LINE_TERMINATORS);

/** The most copies a counted repeat may unroll into. */
const MAX_UNROLL = 1000;

class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.src.length) {
      throw new RegexUnsupported(this.i, this.src[this.i] === ")" ? "unbalanced ')'" : `unexpected '${this.src[this.i]}'`);
    }
    return node;
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.peek() === "|") {
      this.i++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.peek() !== "|" && this.peek() !== ")") {
      const atomAt = this.i;
      let atom = this.atom();
      for (;;) {
        const q = this.quantifier();
        if (!q) break;
        if (atom.t === "bol" || atom.t === "eol") throw new RegexUnsupported(atomAt, "quantified anchor");
        if (q.max !== null && q.max < q.min) throw new RegexUnsupported(atomAt, "quantifier range out of order");
        atom = { t: "rep", item: atom, min: q.min, max: q.max };
      }
      items.push(atom);
    }
    return items.length === 1 ? items[0]! : { t: "seq", items };
  }

  private quantifier(): { min: number; max: number | null } | null {
    const c = this.peek();
    let q: { min: number; max: number | null } | null = null;
    if (c === "*") q = { min: 0, max: null };
    else if (c === "+") q = { min: 1, max: null };
    else if (c === "?") q = { min: 0, max: 1 };
    if (q) this.i++;
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return null;
      this.i += m[0].length;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === "" ? null : Number(m[3]);
      q = { min, max };
    }
    if (q && this.peek() === "?") this.i++; // lazy: the same language
    return q;
  }

  private atom(): Node {
    const at = this.i;
    const c = this.src[this.i++]!;
    switch (c) {
      case "^":
        return { t: "bol" };
      case "$":
        return { t: "eol" };
      case ".":
        return { t: "chars", ranges: DOT };
      case "(": {
        if (this.src.startsWith("?:", this.i)) this.i += 2;
        else if (this.src.startsWith("?<", this.i) && this.src[this.i + 2] !== "=" && this.src[this.i + 2] !== "!") {
          const end = this.src.indexOf(">", this.i);
          if (end < 0) throw new RegexUnsupported(at, "unterminated group name");
          this.i = end + 1;
        } else if (this.peek() === "?") throw new RegexUnsupported(at, "look-around assertions are not supported");
        const inner = this.alternation();
        if (this.peek() !== ")") throw new RegexUnsupported(at, "unterminated group");
        this.i++;
        return inner;
      }
      case "[":
        return { t: "chars", ranges: this.charClass(at) };
      case "\\":
        return { t: "chars", ranges: this.escape(at, false) };
      case "*":
      case "+":
      case "?":
        throw new RegexUnsupported(at, "nothing to repeat");
      case "{":
        // Outside Unicode mode (Annex B) a brace that does not start a quantifier is itself.
        if (/^\{\d+(,\d*)?\}/.test(this.src.slice(at))) throw new RegexUnsupported(at, "nothing to repeat");
        return { t: "chars", ranges: [[0x7b, 0x7b]] };
      case "}":
      case "]":
        return { t: "chars", ranges: [[c.charCodeAt(0), c.charCodeAt(0)]] };
      default: {
        const cp = this.src.codePointAt(at)!;
        this.i = at + String.fromCodePoint(cp).length;
        return { t: "chars", ranges: [[cp, cp]] };
      }
    }
  }

  private charClass(at: number): Ranges {
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.i++;
    }
    const ranges: Ranges = [];
    for (;;) {
      if (this.i >= this.src.length) throw new RegexUnsupported(at, "unterminated character class");
      if (this.peek() === "]") {
        this.i++;
        break;
      }
      const lo = this.classAtom();
      if (this.peek() === "-" && this.src[this.i + 1] !== "]" && this.i + 1 < this.src.length) {
        this.i++;
        const hi = this.classAtom();
        if (lo.length !== 1 || hi.length !== 1 || lo[0]![0] !== lo[0]![1] || hi[0]![0] !== hi[0]![1]) {
          throw new RegexUnsupported(this.i, "class escape used as a range bound");
        }
        if (hi[0]![0] < lo[0]![0]) throw new RegexUnsupported(this.i, "character class range out of order");
        ranges.push([lo[0]![0], hi[0]![0]]);
      } else ranges.push(...lo);
    }
    const clean = cleanRanges(ranges);
    return negated ? negateRanges(clean) : clean;
  }

  private classAtom(): Ranges {
    const start = this.i;
    const c = this.src[this.i++]!;
    if (c === "\\") return this.escape(start, true);
    const cp = this.src.codePointAt(start)!;
    this.i = start + String.fromCodePoint(cp).length;
    return [[cp, cp]];
  }

  private hex(len: number, at: number): number {
    const s = this.src.slice(this.i, this.i + len);
    if (s.length !== len || !/^[0-9a-fA-F]+$/.test(s)) throw new RegexUnsupported(at, "bad hexadecimal escape");
    this.i += len;
    return parseInt(s, 16);
  }

  /** After a backslash; `inClass` allows `\b` (backspace) and `\-`. */
  private escape(at: number, inClass: boolean): Ranges {
    const c = this.src[this.i++];
    if (c === undefined) throw new RegexUnsupported(at, "trailing backslash");
    const one = (cp: number): Ranges => [[cp, cp]];
    switch (c) {
      case "d":
        return DIGIT;
      case "D":
        return negateRanges(DIGIT);
      case "w":
        return WORD;
      case "W":
        return negateRanges(WORD);
      case "s":
        return SPACE;
      case "S":
        return negateRanges(SPACE);
      case "t":
        return one(9);
      case "n":
        return one(10);
      case "v":
        return one(11);
      case "f":
        return one(12);
      case "r":
        return one(13);
      case "0":
        if (/[0-9]/.test(this.peek() ?? "")) throw new RegexUnsupported(at, "octal escapes are not allowed");
        return one(0);
      case "x":
        return one(this.hex(2, at));
      case "u": {
        if (this.peek() === "{") {
          const end = this.src.indexOf("}", this.i);
          const body = end < 0 ? "" : this.src.slice(this.i + 1, end);
          if (!/^[0-9a-fA-F]{1,6}$/.test(body) || parseInt(body, 16) > 0x10ffff) throw new RegexUnsupported(at, "bad \\u{…} escape");
          this.i = end + 1;
          return one(parseInt(body, 16));
        }
        const hi = this.hex(4, at);
        if (hi >= 0xd800 && hi <= 0xdbff && this.src.startsWith("\\u", this.i)) {
          const save = this.i;
          this.i += 2;
          const lo = this.hex(4, at);
          if (lo >= 0xdc00 && lo <= 0xdfff) return one(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00));
          this.i = save;
        }
        if (hi >= 0xd800 && hi <= 0xdfff) throw new RegexUnsupported(at, "lone surrogate escapes are not supported");
        return one(hi);
      }
      case "c": {
        const l = this.peek();
        if (l === undefined || !/[A-Za-z]/.test(l)) throw new RegexUnsupported(at, "bad \\c escape");
        this.i++;
        return one(l.charCodeAt(0) % 32);
      }
      case "b":
        if (inClass) return one(8);
        throw new RegexUnsupported(at, "word boundaries (\\b) are not supported");
      case "B":
        throw new RegexUnsupported(at, "word boundaries (\\B) are not supported");
      case "p":
      case "P": {
        const end = this.peek() === "{" ? this.src.indexOf("}", this.i) : -1;
        const ranges = end < 0 ? undefined : propertyRanges(this.src.slice(this.i + 1, end));
        if (ranges === undefined) throw new RegexUnsupported(at, "unknown Unicode property escape");
        this.i = end + 1;
        const clean = cleanRanges(ranges);
        return c === "P" ? negateRanges(clean) : clean;
      }
      case "k":
        throw new RegexUnsupported(at, "back-references are not supported");
      default:
        if (/[1-9]/.test(c)) throw new RegexUnsupported(at, "back-references are not supported");
        if ("^$\\.*+?()[]{}|/".includes(c) || (inClass && c === "-")) return one(c.charCodeAt(0));
        // Outside Unicode mode (Annex B) an escaped character that is not a letter or digit is
        // itself; schemas written for other engines use these (\', \", \-, \ ), meaning the same.
        if (/^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e ]$/.test(c)) return one(c.charCodeAt(0));
        throw new RegexUnsupported(at, `unknown escape '\\${c}'`);
    }
  }
}

/** Parses a pattern into the private syntax tree (exported for tests of the parser only). */
function parsePattern(pattern: string): Node {
  return new Parser(pattern).parse();
}

// ---- search ----------------------------------------------------------------------------------

// A search matches Σ* R Σ*, and most of R can often go: Σ* R = Σ* R' when R' is R without a
// leading part that can be empty (`(https?|ftp)://(-\.)?x` keeps `(https?|ftp)://`), and a
// leading X{m,n} may be X{m}, since a longer run contains it. The same holds at the end. Real
// patterns written for search (a URI pattern whose every part after the scheme is optional)
// otherwise build tens of thousands of subset states only to minimize to three.

function hasAnchor(n: Node): boolean {
  switch (n.t) {
    case "bol":
    case "eol":
      return true;
    case "chars":
      return false;
    case "rep":
      return hasAnchor(n.item);
    default:
      return n.items.some(hasAnchor);
  }
}

function nullable(n: Node): boolean {
  switch (n.t) {
    case "chars":
      return false;
    case "bol":
    case "eol":
      return true;
    case "seq":
      return n.items.every(nullable);
    case "alt":
      return n.items.some(nullable);
    case "rep":
      return n.min === 0 || nullable(n.item);
  }
}

/** R' with Σ* R = Σ* R' (`fromEnd`: with R Σ* = R' Σ*). */
function trimEdge(n: Node, fromEnd: boolean): Node {
  if (hasAnchor(n)) {
    // Only a sequence's anchor-free edge items can go.
    if (n.t !== "seq") return n;
  }
  switch (n.t) {
    case "alt":
      return { t: "alt", items: n.items.map((x) => trimEdge(x, fromEnd)) };
    case "rep":
      return n.min >= 1 && n.max !== n.min ? { t: "rep", item: n.item, min: n.min, max: n.min } : n;
    case "seq": {
      const items = [...n.items];
      const edge = (): Node | undefined => (fromEnd ? items[items.length - 1] : items[0]);
      for (let e = edge(); e !== undefined && !hasAnchor(e) && nullable(e); e = edge()) {
        if (fromEnd) items.pop();
        else items.shift();
      }
      const e = edge();
      if (e !== undefined && !hasAnchor(e)) items[fromEnd ? items.length - 1 : 0] = trimEdge(e, fromEnd);
      return { t: "seq", items };
    }
    default:
      return n;
  }
}

const trimLeading = (n: Node): Node => trimEdge(n, false);
const trimTrailing = (n: Node): Node => trimEdge(n, true);

// ---- NFA -------------------------------------------------------------------------------------

interface Nfa {
  /** Per state: epsilon targets. */
  eps: number[][];
  /** Per state: `^` assertion targets (passable only before any character). */
  bol: number[][];
  /** Per state: `$` assertion targets (passable only at the end). */
  eol: number[][];
  /** Per state: character edges. */
  chars: Array<Array<[Ranges, number]>>;
}

class NfaBuilder {
  readonly nfa: Nfa = { eps: [], bol: [], eol: [], chars: [] };
  count = 0;
  state(): number {
    if (this.count > MAX_STATES * 4) throw new AutomatonTooLarge(MAX_STATES);
    this.nfa.eps.push([]);
    this.nfa.bol.push([]);
    this.nfa.eol.push([]);
    this.nfa.chars.push([]);
    return this.count++;
  }
  /** Builds `node` between fresh states; returns [in, out]. */
  build(node: Node): [number, number] {
    const a = this.state();
    const z = this.state();
    this.into(node, a, z);
    return [a, z];
  }
  private into(node: Node, a: number, z: number): void {
    const n = this.nfa;
    switch (node.t) {
      case "chars":
        if (node.ranges.length > 0) n.chars[a]!.push([node.ranges, z]);
        return;
      case "bol":
        n.bol[a]!.push(z);
        return;
      case "eol":
        n.eol[a]!.push(z);
        return;
      case "alt":
        for (const item of node.items) this.into(item, a, z);
        return;
      case "seq": {
        let cur = a;
        node.items.forEach((item, k) => {
          const next = k === node.items.length - 1 ? z : this.state();
          this.into(item, cur, next);
          cur = next;
        });
        if (node.items.length === 0) n.eps[a]!.push(z);
        return;
      }
      case "rep": {
        const { item, min, max } = node;
        if (min > MAX_UNROLL || (max !== null && max > MAX_UNROLL)) throw new AutomatonTooLarge(MAX_STATES);
        let cur = a;
        for (let k = 0; k < min; k++) {
          const next = this.state();
          this.into(item, cur, next);
          cur = next;
        }
        if (max === null) {
          // cur --item--> cur (through a fresh state to keep loops separate), then exit.
          const loopIn = this.state();
          const loopOut = this.state();
          n.eps[cur]!.push(loopIn);
          this.into(item, loopIn, loopOut);
          n.eps[loopOut]!.push(loopIn);
          n.eps[loopOut]!.push(z);
          n.eps[cur]!.push(z);
        } else {
          for (let k = min; k < max; k++) {
            n.eps[cur]!.push(z);
            const next = this.state();
            this.into(item, cur, next);
            cur = next;
          }
          n.eps[cur]!.push(z);
        }
        return;
      }
    }
  }
}

/**
 * The DFA of the strings the pattern matches in full (`anchored`), or that contain a match
 * (JSON Schema's unanchored search, the default). `^` and `$` may appear anywhere.
 */
export function regexToDfa(pattern: string, anchored = false): Dfa {
  const ast = anchored ? parsePattern(pattern) : trimTrailing(trimLeading(parsePattern(pattern)));
  const nb = new NfaBuilder();
  const [pin, pout] = nb.build(ast);
  let start = pin;
  let final = pout;
  if (!anchored) {
    // Σ* before and after the match.
    start = nb.state();
    final = nb.state();
    nb.nfa.chars[start]!.push([ALPHABET as Ranges, start]);
    nb.nfa.eps[start]!.push(pin);
    nb.nfa.eps[pout]!.push(final);
    nb.nfa.chars[final]!.push([ALPHABET as Ranges, final]);
  }
  return subsetConstruction(nb.nfa, start, final);
}

/**
 * The most steps (NFA states closed over, NFA edges collected per DFA state) one pattern's subset
 * construction may take. The state bound alone let patterns whose DFA states each hold hundreds
 * of NFA states run for seconds before refusal (`^(\w+\s?){1,1000}$`). The scan of the edges per
 * elementary interval is not counted: Unicode classes (`\p{L}`) have hundreds of intervals at a
 * small cost each, and counting them refused patterns that compile in milliseconds.
 */
const SUBSET_STEPS = 4_000_000;

/** The steps a subset construction has taken; throws past SUBSET_STEPS. */
class StepBudget {
  used = 0;
  spend(n: number): void {
    this.used += n;
    if (this.used > SUBSET_STEPS) throw new AutomatonTooLarge(MAX_STATES, `its subset construction passed ${SUBSET_STEPS} steps`);
  }
}

function closure(nfa: Nfa, states: Iterable<number>, atStart: boolean, atEnd: boolean, budget: StepBudget): Set<number> {
  const out = new Set<number>(states);
  const stack = [...out];
  while (stack.length > 0) {
    const s = stack.pop()!;
    const next = [...nfa.eps[s]!, ...(atStart ? nfa.bol[s]! : []), ...(atEnd ? nfa.eol[s]! : [])];
    for (const t of next) {
      if (!out.has(t)) {
        out.add(t);
        stack.push(t);
      }
    }
  }
  budget.spend(out.size);
  return out;
}

function subsetConstruction(nfa: Nfa, start: number, final: number): Dfa {
  const budget = new StepBudget();
  const b = new DfaBuilder();
  const ids = new Map<string, number>();
  const sets: number[][] = [];
  // A DFA state is the set of NFA states reachable without `$`; acceptance also follows `$`.
  const idOf = (set: Set<number>, atStart: boolean): number => {
    const list = [...set].sort((x, y) => x - y);
    const key = (atStart ? "^" : "") + list.join(",");
    let id = ids.get(key);
    if (id === undefined) {
      const accepting = closure(nfa, list, atStart, true, budget).has(final);
      id = b.addState(accepting);
      ids.set(key, id);
      sets.push(list);
    }
    return id;
  };
  // The DFA state a set of NFA targets leads to, before its closure: the elementary intervals of
  // one state (the ranges of \w, \s) mostly move to the same targets, and across states the same
  // targets recur; closing them again was most of the construction's work.
  const moves = new Map<string, number>();
  const s0 = idOf(closure(nfa, [start], true, false, budget), true);
  for (let i = 0; i < sets.length; i++) {
    const set = sets[i]!;
    const cuts = new Set<number>();
    const edges: Array<[number, number, number]> = [];
    for (const s of set) {
      for (const [ranges, to] of nfa.chars[s]!) {
        for (const [lo, hi] of ranges) {
          cuts.add(lo).add(hi + 1);
          edges.push([lo, hi, to]);
        }
      }
    }
    budget.spend(edges.length);
    const points = [...cuts].sort((x, y) => x - y);
    edges.sort((x, y) => x[0] - y[0]);
    const out = b.edges[i]!;
    for (let k = 0; k + 1 < points.length; k++) {
      const lo = points[k]!;
      const hi = points[k + 1]! - 1;
      const targets = new Set<number>();
      for (const e of edges) {
        if (e[0] > lo) break;
        if (e[1] >= lo) targets.add(e[2]);
      }
      if (targets.size === 0) continue;
      const moveKey = [...targets].sort((x, y) => x - y).join(",");
      let to = moves.get(moveKey);
      if (to === undefined) {
        to = idOf(closure(nfa, targets, false, false, budget), false);
        moves.set(moveKey, to);
      }
      const last = out[out.length - 1];
      if (last && last[2] === to && last[1] + 1 === lo) out[out.length - 1] = [last[0], hi, to];
      else out.push([lo, hi, to]);
    }
  }
  return minimize(b.build(s0));
}

export { parsePattern as _parsePatternForTests };
