/**
 * The reference recognizer's view of a grammar: the IR rewritten as plain productions over
 * byte, code-point-class and text terminals, plus counted-repeat productions. Written apart from
 * the engine on purpose (it is the engine's oracle): no automata, no shared code.
 *
 * Also the UTF-8 helpers the recognizer uses to decide, byte by byte, whether a partial character
 * can still become a code point of a class.
 */
import { GrammarError } from "../errors.js";
import type { IrExpr, IrGrammar, IrTokenRef } from "./ir.js";

/**
 * A terminal symbol: one byte, one code point of a set, a run of text, or one whole token (one
 * of `tokens`, or with `negated` one free token that is none of them).
 */
export type Terminal =
  | { kind: "byte"; byte: number }
  | { kind: "class"; ranges: Array<[number, number]> }
  | { kind: "text"; excludes: string[]; prefixes: Set<string>; longest: number; maxChars: number | null }
  | { kind: "token"; tokens: IrTokenRef[]; negated: boolean };

/** Marks a position whose dot is at the end of its production. */
export const DONE = 0x7fffffff;

/**
 * The productions. Symbols are integers: a nonterminal is its index (≥ 0), terminal `t` is
 * `-(t + 1)`. A production occupies `length + 1` consecutive positions (dot before each symbol,
 * then DONE). A repeat production has exactly one symbol, a nonterminal, and is walked with a
 * counter instead of a dot (see recognizer.ts): it matches between min and max items.
 */
export interface Bnf {
  terminals: Terminal[];
  ntNames: string[];
  /** Productions of each nonterminal (reduced: unproductive ones removed). */
  ntProds: number[][];
  nullable: boolean[];
  prodLhs: number[];
  prodStart: number[];
  /** For a repeat production: [min, max] (max null: unbounded); otherwise null. */
  prodRepeat: Array<readonly [number, number | null] | null>;
  posSym: number[];
  posProd: number[];
  /** The start nonterminal: one production, the root rule. */
  start: number;
}

/** Above this many symbols the reference recognizer refuses the grammar. */
const MAX_SYMBOLS = 4_000_000;
const SURROGATES: [number, number] = [0xd800, 0xdfff];

function bytesKey(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += String.fromCharCode(x);
  return s;
}

/** The code points a class node matches, as sorted ranges without surrogates. */
function effectiveRanges(ranges: ReadonlyArray<readonly [number, number]>, negated: boolean): Array<[number, number]> {
  let set: Array<[number, number]> = ranges.map(([lo, hi]) => [lo, hi]);
  if (negated) {
    const out: Array<[number, number]> = [];
    let next = 0;
    for (const [lo, hi] of set) {
      if (lo > next) out.push([next, lo - 1]);
      next = Math.max(next, hi + 1);
    }
    if (next <= 0x10ffff) out.push([next, 0x10ffff]);
    set = out;
  }
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of set) {
    if (hi < SURROGATES[0] || lo > SURROGATES[1]) out.push([lo, hi]);
    else {
      if (lo < SURROGATES[0]) out.push([lo, SURROGATES[0] - 1]);
      if (hi > SURROGATES[1]) out.push([SURROGATES[1] + 1, hi]);
    }
  }
  return out;
}

/** Rewrites an IR grammar as reduced productions (every kept symbol derives some byte string). */
export function toBnf(grammar: IrGrammar): Bnf {
  const terminals: Terminal[] = [];
  const terminalIndex = new Map<string, number>();
  const ntNames: string[] = grammar.rules.map((r) => r.name);
  const prods: Array<{ lhs: number; rhs: number[]; repeat: readonly [number, number | null] | null }> = [];
  let symbols = 0;

  const terminal = (key: string, make: () => Terminal): number => {
    let t = terminalIndex.get(key);
    if (t === undefined) {
      t = terminals.length;
      terminals.push(make());
      terminalIndex.set(key, t);
    }
    return -(t + 1);
  };
  const newNt = (name: string): number => {
    ntNames.push(name);
    return ntNames.length - 1;
  };
  const addProd = (lhs: number, rhs: number[], repeat: readonly [number, number | null] | null = null): void => {
    symbols += rhs.length + 1;
    if (symbols > MAX_SYMBOLS) {
      throw new GrammarError(`the grammar is too large for the reference recognizer (over ${MAX_SYMBOLS} symbols)`);
    }
    prods.push({ lhs, rhs, repeat });
  };
  // A nonterminal with no productions: matches nothing, removed by the reduction below.
  const neverNt = newNt("<never>");
  // Helper nonterminals of shared IR nodes are made once per node.
  const helpers = new Map<IrExpr, number>();
  const singles = new Map<IrExpr, number>();

  const emit = (e: IrExpr, out: number[]): void => {
    switch (e.kind) {
      case "empty":
        return;
      case "never":
        out.push(neverNt);
        return;
      case "bytes":
        for (const x of e.bytes) out.push(terminal(`b${x}`, () => ({ kind: "byte", byte: x })));
        return;
      case "class": {
        const ranges = effectiveRanges(e.ranges, e.negated);
        if (ranges.length === 0) {
          out.push(neverNt);
          return;
        }
        out.push(terminal(`c${JSON.stringify(ranges)}`, () => ({ kind: "class", ranges })));
        return;
      }
      case "text": {
        const excludes = e.excludes.map(bytesKey);
        out.push(terminal(`t${JSON.stringify([excludes, e.maxChars])}`, () => {
          const prefixes = new Set<string>();
          for (const x of excludes) for (let n = 1; n < x.length; n++) prefixes.add(x.slice(0, n));
          return { kind: "text", excludes, prefixes, longest: Math.max(0, ...excludes.map((x) => x.length)), maxChars: e.maxChars };
        }));
        return;
      }
      case "ref":
        out.push(e.rule);
        return;
      case "token":
      case "excludeToken": {
        const tokens = e.kind === "token" ? e.tokens : e.excludes;
        const negated = e.kind === "excludeToken";
        out.push(terminal(`k${JSON.stringify([negated, tokens])}`, () => ({ kind: "token", tokens, negated })));
        return;
      }
      case "anyTokens": {
        // Counted like a repeat of one free token.
        let nt = helpers.get(e);
        if (nt === undefined) {
          nt = newNt(`<tokens ${helpers.size}>`);
          helpers.set(e, nt);
          const one = newNt(`<token ${helpers.size}>`);
          addProd(one, [terminal(`k${JSON.stringify([true, e.excludes])}`, () => ({ kind: "token", tokens: e.excludes, negated: true }))]);
          addProd(nt, [one], [0, e.maxTokens]);
        }
        out.push(nt);
        return;
      }
      case "seq":
        for (const it of e.items) emit(it, out);
        return;
      case "choice": {
        if (e.items.length === 1) {
          emit(e.items[0]!, out);
          return;
        }
        let nt = helpers.get(e);
        if (nt === undefined) {
          nt = newNt(`<choice ${helpers.size}>`);
          helpers.set(e, nt);
          for (const it of e.items) {
            const rhs: number[] = [];
            emit(it, rhs);
            addProd(nt, rhs);
          }
        }
        out.push(nt);
        return;
      }
      case "repeat": {
        if (e.max === 0) return;
        if (e.min === 1 && e.max === 1) {
          emit(e.item, out);
          return;
        }
        // Counted, not unrolled: large bounds cost nothing here.
        let nt = helpers.get(e);
        if (nt === undefined) {
          nt = newNt(`<repeat ${helpers.size}>`);
          helpers.set(e, nt);
          addProd(nt, [single(e.item)], [e.min, e.max]);
        }
        out.push(nt);
        return;
      }
    }
  };
  // The item of a repeat as one nonterminal.
  const single = (e: IrExpr): number => {
    if (e.kind === "ref") return e.rule;
    let nt = singles.get(e);
    if (nt === undefined) {
      nt = newNt(`<item ${singles.size}>`);
      singles.set(e, nt);
      const rhs: number[] = [];
      emit(e, rhs);
      addProd(nt, rhs);
    }
    return nt;
  };

  grammar.rules.forEach((rule, r) => {
    const rhs: number[] = [];
    emit(rule.body, rhs);
    addProd(r, rhs);
  });
  const start = newNt("<start>");
  addProd(start, [grammar.root]);

  // Reduce: keep only productions whose symbols all derive some string.
  const ntCount = ntNames.length;
  const productive = new Array<boolean>(ntCount).fill(false);
  const symProductive = (s: number): boolean => s < 0 || productive[s]!;
  for (let changed = true; changed; ) {
    changed = false;
    for (const p of prods) {
      if (productive[p.lhs]) continue;
      const ok = p.repeat ? p.repeat[0] === 0 || symProductive(p.rhs[0]!) : p.rhs.every(symProductive);
      if (ok) {
        productive[p.lhs] = true;
        changed = true;
      }
    }
  }
  // A repeat whose item is unproductive can still match zero items.
  const kept = prods.filter((p) => productive[p.lhs] && (p.repeat ? symProductive(p.rhs[0]!) : p.rhs.every(symProductive)));
  const repeatOnlyEmpty = prods.filter((p) => p.repeat && productive[p.lhs] && !symProductive(p.rhs[0]!));

  const nullable = new Array<boolean>(ntCount).fill(false);
  for (const p of repeatOnlyEmpty) nullable[p.lhs] = true;
  const symNullable = (s: number): boolean => {
    if (s >= 0) return nullable[s]!;
    return terminals[-s - 1]!.kind === "text";
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const p of kept) {
      if (nullable[p.lhs]) continue;
      const ok = p.repeat ? p.repeat[0] === 0 || symNullable(p.rhs[0]!) : p.rhs.every(symNullable);
      if (ok) {
        nullable[p.lhs] = true;
        changed = true;
      }
    }
  }

  const bnf: Bnf = {
    terminals, ntNames, ntProds: Array.from({ length: ntCount }, () => []), nullable,
    prodLhs: [], prodStart: [], prodRepeat: [], posSym: [], posProd: [], start,
  };
  kept.forEach((p, i) => {
    bnf.prodLhs.push(p.lhs);
    bnf.prodStart.push(bnf.posSym.length);
    bnf.prodRepeat.push(p.repeat);
    bnf.ntProds[p.lhs]!.push(i);
    for (const s of p.rhs) {
      bnf.posSym.push(s);
      bnf.posProd.push(i);
    }
    bnf.posSym.push(DONE);
    bnf.posProd.push(i);
  });
  return bnf;
}

// ---- UTF-8 ------------------------------------------------------------------------------------

/** Length of the UTF-8 sequence a lead byte starts (0: not a valid lead byte). */
export function utf8Length(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

const MIN_CP = [0, 0, 0x80, 0x800, 0x10000];
const MAX_CP = [0, 0x7f, 0x7ff, 0xffff, 0x10ffff];

/**
 * The code points whose shortest UTF-8 encoding starts with `bytes` (1 to 4 bytes), as an
 * inclusive interval, or null when no valid encoding starts so. Surrogates inside the interval
 * are not removed; an interval made only of surrogates is null.
 */
export function utf8PrefixInterval(bytes: readonly number[]): [number, number] | null {
  const n = utf8Length(bytes[0]!);
  if (n === 0 || bytes.length > n) return null;
  let v = n === 1 ? bytes[0]! : bytes[0]! & (0x7f >> n);
  for (let i = 1; i < bytes.length; i++) {
    const b = bytes[i]!;
    if ((b & 0xc0) !== 0x80) return null;
    v = v * 64 + (b & 0x3f);
  }
  const scale = 64 ** (n - bytes.length);
  const lo = Math.max(v * scale, MIN_CP[n]!);
  const hi = Math.min(v * scale + scale - 1, MAX_CP[n]!);
  if (lo > hi) return null;
  if (lo >= SURROGATES[0] && hi <= SURROGATES[1]) return null;
  return [lo, hi];
}

/** Whether some code point of the sorted, surrogate-free `ranges` lies in [lo, hi]. */
export function rangesMeet(ranges: ReadonlyArray<readonly [number, number]>, lo: number, hi: number): boolean {
  let a = 0;
  let b = ranges.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if (ranges[m]![1] < lo) a = m + 1;
    else b = m;
  }
  return a < ranges.length && ranges[a]![0] <= hi;
}
