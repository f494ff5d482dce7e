/**
 * The reference recognizer's view of a grammar: the IR rewritten as plain productions over
 * byte, code-point-class and text terminals, plus counted-repeat productions and the productions
 * of `counted` and `unit` nodes (which count units along a derivation) and of `marks` and `mark`
 * nodes (which use marks along a derivation). Written apart from
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
  /**
   * For the production of a `counted` node: [min, max]; it completes only when the units counted
   * in its derivation lie in the range, and passes none up. Otherwise null.
   */
  prodCounted: Array<readonly [number, number | null] | null>;
  /** Whether the production is a `unit` node's: completing it counts one more unit. */
  prodUnit: boolean[];
  /** 1 + the largest bound of any counted node: unit counts saturate there. */
  unitCap: number;
  /** Whether the grammar has counted or unit nodes (items then track units). */
  counting: boolean;
  /** For the production of a `marks` node: the required marks (a bit mask); otherwise null. */
  prodMarks: Array<number | null>;
  /** For the production of a `mark` node: its index; otherwise -1. */
  prodMark: number[];
  /** Whether the grammar has marks or mark nodes (items then track marks). */
  marking: boolean;
  /**
   * Remainders (`residue` / `rdigit` / `rlive` nodes): per production, what completing it does —
   * for a `residue` node's its modulus (it completes only with remainder 0 and hands none up), for
   * an `rdigit` node's [digit, budget (-1: none), modulus] (it folds the digit and checks
   * liveness); otherwise null. Per nonterminal, for an `rlive` node's: [budget, modulus] (it is
   * never predicted: the item before it moves on when the remainder is alive); otherwise null.
   */
  prodResidue: Array<number | null>;
  prodDigit: Array<readonly [number, number, number] | null>;
  ntLive: Array<readonly [number, number] | null>;
  /** Whether the grammar has remainder nodes (items then track remainders). */
  residuing: boolean;
  /**
   * Per nonterminal: the marks every one of its matches uses (on its own level: not those of
   * nested `marks` nodes). Positions use {@link restMust}.
   */
  ntMust: number[];
  /** Per position: the marks every match of the rest of its production (from the dot on) uses. */
  restMust: number[];
  /**
   * Per position: the fewest and most units the rest of its production (from the dot on) can
   * count (the most saturates at unitCap). Repeat productions use `ntUnits` of their item instead.
   */
  restMin: number[];
  restMax: number[];
  /** Per nonterminal: the fewest and most units one of its matches counts. */
  ntMinUnits: number[];
  ntMaxUnits: number[];
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
  type Bounds = readonly [number, number | null];
  type Mark = { counted?: Bounds; unit?: boolean; marks?: number; mark?: number; residue?: number; digit?: readonly [number, number, number] };
  /** What completing the nonterminal of a counted, unit, marks or mark node checks or does. */
  const levelTag = (e: Extract<IrExpr, { kind: "counted" | "unit" | "marks" | "mark" }>): Mark => {
    switch (e.kind) {
      case "counted":
        return { counted: [e.min, e.max] };
      case "unit":
        return { unit: true };
      case "marks":
        return { marks: e.required.reduce((m, i) => (m | (1 << i)) >>> 0, 0) };
      case "mark":
        return { mark: e.index };
    }
  };
  const prods: Array<{ lhs: number; rhs: number[]; repeat: Bounds | null } & Mark> = [];
  let unitCap = 1;
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
  const addProd = (lhs: number, rhs: number[], repeat: Bounds | null = null, mark: Mark = {}): void => {
    symbols += rhs.length + 1;
    if (symbols > MAX_SYMBOLS) {
      throw new GrammarError(`the grammar is too large for the reference recognizer (over ${MAX_SYMBOLS} symbols)`);
    }
    prods.push({ lhs, rhs, repeat, ...mark });
  };
  // A nonterminal with no productions: matches nothing, removed by the reduction below.
  const neverNt = newNt("<never>");
  // Helper nonterminals of shared IR nodes are made once per node.
  const helpers = new Map<IrExpr, number>();
  const singles = new Map<IrExpr, number>();
  const liveOf = new Map<number, readonly [number, number]>();

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
      case "residue":
      case "rdigit": {
        // A nonterminal of its own, whose completion checks the remainder, or folds a digit.
        let nt = helpers.get(e);
        if (nt === undefined) {
          nt = newNt(`<${e.kind} ${helpers.size}>`);
          helpers.set(e, nt);
          const rhs: number[] = [];
          if (e.kind === "residue") {
            emit(e.item, rhs);
            addProd(nt, rhs, null, { residue: e.modulus });
          } else {
            const byte = 0x30 + e.digit;
            rhs.push(terminal(`b${byte}`, () => ({ kind: "byte", byte })));
            addProd(nt, rhs, null, { digit: [e.digit, e.budget ?? -1, e.modulus] });
          }
        }
        out.push(nt);
        return;
      }
      case "rlive": {
        // Never predicted (see Bnf.ntLive); its empty production only keeps it productive.
        let nt = helpers.get(e);
        if (nt === undefined) {
          nt = newNt(`<rlive ${helpers.size}>`);
          helpers.set(e, nt);
          addProd(nt, []);
          liveOf.set(nt, [e.budget, e.modulus]);
        }
        out.push(nt);
        return;
      }
      case "counted":
      case "unit":
      case "marks":
      case "mark": {
        // A nonterminal of its own, whose completion checks or counts units, or checks or uses marks.
        let nt = helpers.get(e);
        if (nt === undefined) {
          nt = newNt(`<${e.kind} ${helpers.size}>`);
          helpers.set(e, nt);
          const rhs: number[] = [];
          emit(e.item, rhs);
          if (e.kind === "counted") unitCap = Math.max(unitCap, (e.max ?? e.min) + 1);
          addProd(nt, rhs, null, levelTag(e));
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
      // An rlive node's empty match holds only for some remainders: not nullable here (the
      // recognizer moves past it when the remainder allows, Bnf.ntLive), so a rule that matches
      // the empty string only through one does not match it here.
      if (nullable[p.lhs] || liveOf.has(p.lhs)) continue;
      // An empty match counts no unit.
      const ok = p.repeat
        ? p.repeat[0] === 0 || symNullable(p.rhs[0]!)
        : p.rhs.every(symNullable) && (!p.counted || p.counted[0] === 0) && (p.marks === undefined || p.marks === 0);
      if (ok) {
        nullable[p.lhs] = true;
        changed = true;
      }
    }
  }
  for (const p of kept) {
    if (p.unit && p.rhs.every(symNullable)) {
      throw new GrammarError(`${ntNames[p.lhs]}: a unit node must not match the empty string`);
    }
    if (p.mark !== undefined && p.rhs.every(symNullable)) {
      throw new GrammarError(`${ntNames[p.lhs]}: a mark node must not match the empty string`);
    }
  }

  // Units a nonterminal's matches count, as [fewest, most]: least and greatest fixed points
  // (most saturates at unitCap, which a cycle that counts reaches).
  const cap = unitCap;
  const symMin = (sym: number, mins: number[]) => (sym < 0 ? 0 : mins[sym]!);
  const ntMin = new Array<number>(ntCount).fill(Infinity);
  const ntMax = new Array<number>(ntCount).fill(-Infinity);
  const prodUnits = (p: (typeof kept)[number], get: (sym: number) => number, most: boolean): number => {
    if (p.counted) return 0;
    let total: number;
    if (p.repeat) {
      const item = get(p.rhs[0]!);
      const times = most ? (p.repeat[1] ?? (item > 0 ? Infinity : 0)) : p.repeat[0];
      total = item === 0 ? 0 : item * times;
    } else {
      total = p.rhs.reduce((sum, sym) => sum + get(sym), 0);
    }
    return Math.min(total + (p.unit ? 1 : 0), cap);
  };
  const symMinOf = (sym: number) => symMin(sym, ntMin);
  const symMaxOf = (sym: number) => (sym < 0 ? 0 : ntMax[sym]!);
  for (let changed = true; changed; ) {
    changed = false;
    for (const p of kept) {
      const v = prodUnits(p, symMinOf, false);
      if (v < ntMin[p.lhs]!) (ntMin[p.lhs] = v), (changed = true);
    }
  }
  // A cycle that counts raises its nonterminals by one unit a round, up to unitCap (2^31 for
  // `minProperties: 2147483647`): a value still rising after ntCount + 1 rounds is on or past such
  // a cycle, so it saturates at once.
  for (let changed = true, round = 0; changed; round++) {
    changed = false;
    for (const p of kept) {
      const v = prodUnits(p, (sym) => Math.max(0, symMaxOf(sym)), true);
      if (v > ntMax[p.lhs]!) (ntMax[p.lhs] = round > ntCount + 1 ? cap : v), (changed = true);
    }
  }

  // Marks every match uses: a greatest fixed point (a nested marks node uses none of ours).
  const ntMust = new Array<number>(ntCount).fill(-1);
  const prodMust = (p: (typeof kept)[number]): number => {
    if (p.marks !== undefined) return 0;
    let m = 0;
    if (p.repeat) m = p.repeat[0] > 0 && p.rhs[0]! >= 0 ? ntMust[p.rhs[0]!]! : 0;
    else for (const sym of p.rhs) if (sym >= 0) m |= ntMust[sym]!;
    return p.mark !== undefined ? m | (1 << p.mark) : m;
  };
  const marking = kept.some((p) => p.marks !== undefined || p.mark !== undefined);
  if (marking) {
    for (let changed = true; changed; ) {
      changed = false;
      const next = new Array<number>(ntCount).fill(-1);
      for (const p of kept) next[p.lhs] = next[p.lhs]! & prodMust(p);
      for (let nt = 0; nt < ntCount; nt++) {
        if (next[nt] !== ntMust[nt]) (ntMust[nt] = next[nt]!), (changed = true);
      }
    }
  } else {
    ntMust.fill(0);
  }

  const bnf: Bnf = {
    terminals, ntNames, ntProds: Array.from({ length: ntCount }, () => []), nullable,
    prodLhs: [], prodStart: [], prodRepeat: [], prodCounted: [], prodUnit: [], unitCap, posSym: [], posProd: [], start,
    counting: kept.some((p) => p.counted !== undefined || p.unit === true),
    prodMarks: [], prodMark: [], marking,
    prodResidue: [], prodDigit: [], ntLive: Array.from({ length: ntCount }, (_, nt) => liveOf.get(nt) ?? null),
    residuing: kept.some((p) => p.residue !== undefined || p.digit !== undefined), ntMust: ntMust.map((m) => (m === -1 ? 0 : m)), restMust: [],
    restMin: [], restMax: [], ntMinUnits: ntMin.map((x) => (x === Infinity ? 0 : x)), ntMaxUnits: ntMax.map((x) => Math.max(0, x)),
  };
  kept.forEach((p, i) => {
    bnf.prodLhs.push(p.lhs);
    bnf.prodStart.push(bnf.posSym.length);
    bnf.prodRepeat.push(p.repeat);
    bnf.prodCounted.push(p.counted ?? null);
    bnf.prodUnit.push(p.unit === true);
    bnf.prodMarks.push(p.marks ?? null);
    bnf.prodMark.push(p.mark ?? -1);
    bnf.prodResidue.push(p.residue ?? null);
    bnf.prodDigit.push(p.digit ?? null);
    bnf.ntProds[p.lhs]!.push(i);
    const start = bnf.posSym.length;
    for (const s of p.rhs) {
      bnf.posSym.push(s);
      bnf.posProd.push(i);
    }
    bnf.posSym.push(DONE);
    bnf.posProd.push(i);
    // The rest of the production from each position, back to front (counted productions pass
    // no units up, but their own rest counts for their items).
    let lo = 0;
    let hi = 0;
    const rest: Array<[number, number]> = [[0, 0]];
    for (let k = p.rhs.length - 1; k >= 0; k--) {
      const sym = p.rhs[k]!;
      lo += sym < 0 ? 0 : bnf.ntMinUnits[sym]!;
      hi = Math.min(cap, hi + (sym < 0 ? 0 : bnf.ntMaxUnits[sym]!));
      rest.unshift([lo, hi]);
    }
    rest.forEach(([a, b], k) => {
      bnf.restMin[start + k] = a;
      bnf.restMax[start + k] = b;
    });
    let must = 0;
    bnf.restMust[start + p.rhs.length] = 0;
    for (let k = p.rhs.length - 1; k >= 0; k--) {
      const sym = p.rhs[k]!;
      if (sym >= 0) must |= bnf.ntMust[sym]!;
      bnf.restMust[start + k] = must;
    }
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
