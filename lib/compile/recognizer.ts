/**
 * The reference recognizer: decides, byte by byte, whether input matches a grammar IR or is a
 * viable prefix of a match. It is the oracle the engine's masks are checked against, so it is
 * deliberately simple and shares no code with the engine: an Earley parser over bytes
 * (Aycock–Horspool handling of nullable symbols; left recursion and ambiguity need nothing
 * special), where `text` and `class` terminals carry a small state of their own (the bytes of
 * the character read so far; for text also the tail that may begin an excluded string and the
 * character count).
 *
 * States are immutable and canonical: an Earley set is stored without its completed items, its
 * items point at earlier sets by id, and equal sets get the same id (hash-consing). So states
 * reached by different inputs that behave the same are the same object, and `step` is memoized
 * per (state, byte): walking a whole vocabulary from one state costs little more than a trie walk.
 *
 * Cost: counted repeats and left recursion keep sets small; right recursion (`a ::= "x" a | "x"`)
 * costs time linear in the nesting depth per byte (no Leo optimization), which is fine for the
 * grammars lowered here, whose repetitions are counted repeats.
 *
 * Units (`counted` / `unit` nodes): each item also carries the units its production has counted
 * so far (saturating above every bound), its room (the most it may count before the innermost
 * `counted` around it overflows) and its need (the fewest it must count for that node to reach
 * its min); completing a nonterminal hands its count to the items waiting on it, a `unit`
 * production adds one, and a `counted` production completes only within its bounds and hands up
 * nothing (its units are its own). Predicted items get the room and need their predictor leaves
 * them, given what the rest of its production can count; an item that can no longer end within
 * them is dropped, so a prefix is viable only if its counts can still work out (exact when the
 * counts a rest can take form a range, which the engine requires of counted nodes too).
 *
 * Marks (`marks` / `mark` nodes): each item also carries the marks its production has used so
 * far and the marks it must not use (those its predictor had used, or that the predictor's rest
 * will certainly use); completing a nonterminal hands its marks to the items waiting on it, a
 * `mark` production adds its own (refused when already used), and a `marks` production completes
 * only when its required marks are used and hands up nothing. An item is dropped when its rest
 * must use a forbidden mark or cannot be matched at all without one (a productivity analysis per
 * set of forbidden marks), so a prefix is viable only if its marks can still work out (exact when
 * no rest needs the same mark twice and required marks can always still be added, as in the
 * member loops the JSON Schema compiler writes).
 *
 * Remainders (`residue` / `rdigit` / `rlive` nodes): each item also carries the remainder its
 * level has folded so far (r) and the one it was predicted with (rin; ANY for a `residue`
 * production, whose level starts over at 0). Predicted items take the predictor's r, an `rdigit`
 * production folds its digit when it completes and checks liveness, an `rlive` symbol is passed
 * when the remainder is alive (it is never predicted), and a `residue` production completes
 * only with r = 0 and hands none up. A completed item advances only the waiting items whose r is
 * its rin, and hands them its r. Exact for the numerals the JSON Schema compiler writes, where an
 * `rlive` node always comes before a byte (a rule matching the empty string only through an
 * `rlive` node does not match it here).
 *
 * `maxTokens` of text nodes is not a property of bytes and is ignored here.
 *
 * Token nodes match whole tokens, not bytes: {@link Recognizer.stepToken} takes one token as a
 * unit (given a {@link TokenUniverse} that resolves token texts and says which tokens are free),
 * while byte steps never enter them. So the recognizer decides over sequences of tokens what
 * the engine decides: a token either advances through its bytes or through a token node.
 */
import { InvalidArgumentError } from "../errors.js";
import { residueAlive, validateGrammar, type IrGrammar } from "./ir.js";
import { DONE, rangesMeet, toBnf, utf8Length, utf8PrefixInterval, type Bnf, type Terminal } from "./recognizer-bnf.js";
import type { IrTokenRef } from "./ir-tokens.js";

/** What token nodes need from a vocabulary. */
export interface TokenUniverse {
  /** The id a token reference names; throws when a text is not exactly one token. */
  resolve(ref: IrTokenRef): number;
  /** Whether a token is free: one that `exclude_token` and `any_tokens` may match (a text token, not a stop token). */
  isFree(id: number): boolean;
}

/** Options of a {@link Recognizer}. */
export interface RecognizerOptions {
  /** The vocabulary token nodes are decided against ({@link Recognizer.stepToken}). */
  tokens?: TokenUniverse;
}

/** An item's origin meaning "the set this item is stored in". */
const SELF = -1;
/** Unknown entry of a state's step table. */
const UNKNOWN = -2;
/** Dead entry of a state's step table. */
const DEAD = -1;

/**
 * A recognizer state: the parse of some byte prefix. Immutable and canonical within its
 * recognizer (equal states are the same object), so it can be kept, compared with `===`, used
 * as a map key, and stepped again any number of times.
 */
export class RecognizerState {
  /** Dense id within the recognizer (0 is the initial state). */
  readonly id: number;
  /** Whether the bytes read so far form a complete match. */
  readonly accepting: boolean;
  /** @internal */
  constructor(id: number, accepting: boolean) {
    this.id = id;
    this.accepting = accepting;
    Object.freeze(this);
  }
}

/** Numbers per item: position, origin, sub, units, room, need, used, forbid, rin, r. */
const W = 10;
type Seed = [number, number, number, number, number, number, number, number, number, number];
/** The rin of an item a `residue` production starts: it advances whatever waits on it. */
const ANY = -1;

interface SetData {
  state: RecognizerState;
  /**
   * Items of W numbers (position, origin, sub, units, room, need, used, forbid): origin is SELF or
   * an earlier state id; sub is a terminal sub-state id or a repeat count; units, room, need,
   * used, forbid: see above.
   */
  items: Float64Array;
  /** Item indices waiting on each nonterminal, built when first needed. */
  waiting: Map<number, number[]> | null;
  /** Step results by byte: a state id, DEAD or UNKNOWN; built when first needed. */
  next: Int32Array | null;
  /** Next states of token steps, by the token terminals that take the token; built when first needed. */
  nextToken: Map<string, number> | null;
  /** The token terminals after the dots of the items, built when first needed. */
  tokenTerms: number[] | null;
}

/** The sub-state of a class or text terminal: see the module comment. */
interface Sub {
  /** For text: the longest tail of the text so far that is a proper prefix of an excluded string. */
  window: string;
  /** Bytes of the current, incomplete character. */
  partial: number[];
  /** For text with maxChars: characters completed. */
  count: number;
}

/**
 * An Earley recognizer for one grammar. States and step results are cached inside; the cache
 * grows with the number of distinct states visited.
 */
export class Recognizer {
  private readonly bnf: Bnf;
  private readonly sets: SetData[] = [];
  private readonly setIndex = new Map<string, number>();
  private readonly subs: Sub[] = [{ window: "", partial: [], count: 0 }];
  private readonly subIndex = new Map<string, number>([["||0", 0]]);
  /** Per terminal: memo of sub-state steps, key sub * 256 + byte → sub id or DEAD. */
  private readonly subSteps: Array<Map<number, number>>;
  private readonly canFinish: Array<Map<number, boolean>>;
  private readonly tokens: TokenUniverse | undefined;
  private readonly tokenNodes: boolean;
  /** Per token terminal: its resolved ids. */
  private readonly tokenIds: Array<Set<number> | null>;
  /** Per set of forbidden marks: which nonterminals can match without using one of them. */
  private readonly avoiding = new Map<number, Uint8Array>();

  /** Prepares the grammar; an invalid one throws a GrammarError naming the bad node. */
  constructor(grammar: IrGrammar, options: RecognizerOptions = {}) {
    validateGrammar(grammar);
    this.bnf = toBnf(grammar);
    this.tokens = options.tokens;
    this.tokenIds = this.bnf.terminals.map(() => null);
    this.tokenNodes = this.bnf.terminals.some((t) => t.kind === "token");
    this.subSteps = this.bnf.terminals.map(() => new Map());
    this.canFinish = this.bnf.terminals.map(() => new Map());
    // The start symbol has one production (the root rule) unless the grammar matches nothing.
    const seeds: Seed[] = this.bnf.ntProds[this.bnf.start]!.map((p) => [this.bnf.prodStart[p]!, SELF, 0, 0, this.bnf.unitCap, 0, 0, 0, 0, 0]);
    this.build(seeds);
  }

  /** The state before any byte. */
  initial(): RecognizerState {
    return this.sets[0]!.state;
  }

  /** How many distinct states have been built so far. */
  get stateCount(): number {
    return this.sets.length;
  }

  /** The state after one more byte, or null when no match can start with the bytes read. */
  step(state: RecognizerState, byte: number): RecognizerState | null {
    const set = this.own(state);
    if (!Number.isInteger(byte) || byte < 0 || byte > 255) throw new InvalidArgumentError(`byte must be an integer 0..255, got ${byte}`);
    let next = set.next;
    if (next === null) {
      next = new Int32Array(256).fill(UNKNOWN);
      set.next = next;
    }
    let id = next[byte]!;
    if (id === UNKNOWN) {
      id = this.advance(set, byte);
      next[byte] = id;
    }
    return id === DEAD ? null : this.sets[id]!.state;
  }

  /** The state after all of `bytes`, or null as soon as the input cannot lead to a match. */
  stepBytes(state: RecognizerState, bytes: Uint8Array): RecognizerState | null {
    let s: RecognizerState | null = state;
    for (let i = 0; i < bytes.length && s !== null; i++) s = this.step(s, bytes[i]!);
    return s;
  }

  /** Whether the grammar has token nodes (then {@link stepToken} can advance where bytes cannot). */
  get hasTokenNodes(): boolean {
    return this.tokenNodes;
  }

  /**
   * The state after one whole token taken by a token node, or null when no token node here
   * takes it. Bytes of the token are not stepped: {@link stepBytes} does that.
   */
  stepToken(state: RecognizerState, id: number): RecognizerState | null {
    const set = this.own(state);
    if (!Number.isInteger(id) || id < 0) throw new InvalidArgumentError(`token id must be a non-negative integer, got ${id}`);
    // Tokens that the same token terminals of this set take lead to the same set: memoize by them.
    const { posSym, terminals } = this.bnf;
    if (set.tokenTerms === null) {
      const terms = new Set<number>();
      for (let i = 0; i < set.items.length; i += W) {
        const sym = posSym[set.items[i]!]!;
        if (sym < 0 && sym !== DONE && terminals[-sym - 1]!.kind === "token") terms.add(-sym - 1);
      }
      set.tokenTerms = [...terms].sort((a, b) => a - b);
    }
    let key = "";
    for (const t of set.tokenTerms) {
      if (this.tokenMatches(t, terminals[t] as Extract<Terminal, { kind: "token" }>, id)) key += `${t},`;
    }
    if (key === "") return null;
    set.nextToken ??= new Map();
    let next = set.nextToken.get(key);
    if (next === undefined) {
      next = this.advanceToken(set, id);
      set.nextToken.set(key, next);
    }
    return next === DEAD ? null : this.sets[next]!.state;
  }

  /** Whether the bytes read to reach `state` form a complete match. */
  accepts(state: RecognizerState): boolean {
    return this.own(state).state.accepting;
  }

  /** Whether some continuation from `state` is a match (false only for the initial state of an empty language). */
  viable(state: RecognizerState): boolean {
    const set = this.own(state);
    return set.items.length > 0 || state.accepting;
  }

  private own(state: RecognizerState): SetData {
    const set = this.sets[state.id];
    if (set === undefined || set.state !== state) throw new InvalidArgumentError("this state belongs to another Recognizer");
    return set;
  }

  /** Whether token terminal `t` takes token `id`. */
  private tokenMatches(t: number, term: Extract<Terminal, { kind: "token" }>, id: number): boolean {
    const universe = this.tokens;
    if (universe === undefined) throw new InvalidArgumentError("this grammar has token nodes: give the Recognizer a token universe (options.tokens) to step tokens");
    let ids = this.tokenIds[t];
    if (!ids) {
      ids = new Set(term.tokens.map((r) => universe.resolve(r)));
      this.tokenIds[t] = ids;
    }
    return term.negated ? universe.isFree(id) && !ids.has(id) : ids.has(id);
  }

  /** Takes token `id` through the token terminals of `from`, then closes the new set. */
  private advanceToken(from: SetData, id: number): number {
    const { posSym } = this.bnf;
    const seeds: Seed[] = [];
    const items = from.items;
    for (let i = 0; i < items.length; i += W) {
      const pos = items[i]!;
      const sym = posSym[pos]!;
      if (sym >= 0 || sym === DONE) continue;
      const term = this.bnf.terminals[-sym - 1]!;
      if (term.kind !== "token" || !this.tokenMatches(-sym - 1, term, id)) continue;
      seeds.push([pos, items[i + 1] === SELF ? from.state.id : items[i + 1]!, -1, items[i + 3]!, items[i + 4]!, items[i + 5]!, items[i + 6]!, items[i + 7]!,
        items[i + 8]!, items[i + 9]!]);
    }
    return seeds.length === 0 ? DEAD : this.build(seeds);
  }

  /** Scans `byte` from `from`, then closes the new set. */
  private advance(from: SetData, byte: number): number {
    const { posSym } = this.bnf;
    const seeds: Seed[] = [];
    const fromId = from.state.id;
    const items = from.items;
    for (let i = 0; i < items.length; i += W) {
      const pos = items[i]!;
      const sym = posSym[pos]!;
      if (sym >= 0 || sym === DONE) continue;
      const origin = items[i + 1] === SELF ? fromId : items[i + 1]!;
      const t = -sym - 1;
      const term = this.bnf.terminals[t]!;
      const units = items[i + 3]!;
      const room = items[i + 4]!;
      const need = items[i + 5]!;
      const used = items[i + 6]!;
      const forbid = items[i + 7]!;
      const rin = items[i + 8]!;
      const r = items[i + 9]!;
      if (term.kind === "byte") {
        if (term.byte === byte) seeds.push([pos, origin, -1, units, room, need, used, forbid, rin, r]);
        continue;
      }
      if (term.kind === "token") continue;
      const sub = this.stepSub(t, term, items[i + 2]!, byte);
      if (sub === DEAD) continue;
      if (term.kind === "class" && this.subs[sub]!.partial.length === 0) seeds.push([pos, origin, -1, units, room, need, used, forbid, rin, r]);
      else seeds.push([pos, origin, sub, units, room, need, used, forbid, rin, r]);
    }
    if (seeds.length === 0) return DEAD;
    return this.build(seeds);
  }

  /**
   * Closes a set from its seeds and interns it. A seed with sub -1 is an item whose terminal was
   * just completed: it is advanced past it.
   */
  private build(seeds: Seed[]): number {
    const { posSym, posProd, prodLhs, prodRepeat, prodCounted, prodUnit, prodStart, ntProds, nullable, start, unitCap, restMin, restMax, ntMinUnits, ntMaxUnits } = this.bnf;
    const { prodMarks, prodMark, marking, restMust, ntMust, prodResidue, prodDigit, ntLive, residuing } = this.bnf;
    // The marks every match of an item's rest uses, and whether the rest can match avoiding `forbid`.
    const mustOf = (pos: number, sub: number): number => {
      const rep = prodRepeat[posProd[pos]!];
      if (!rep) return restMust[pos]!;
      return sub < rep[0] ? ntMust[posSym[pos]!]! : 0;
    };
    const canFinish = (pos: number, sub: number, forbid: number): boolean => {
      const rep = prodRepeat[posProd[pos]!];
      if (rep) return sub >= rep[0] || this.avoids(posSym[pos]!, forbid);
      for (let k = pos; posSym[k] !== DONE; k++) if (!this.avoids(posSym[k]!, forbid)) return false;
      return true;
    };
    // What the rest of an item's production can still count: [fewest, most].
    const rest = (pos: number, sub: number): [number, number] => {
      const rep = prodRepeat[posProd[pos]!];
      if (!rep) return [restMin[pos]!, restMax[pos]!];
      const item = posSym[pos]!;
      const lo = Math.max(0, rep[0] - sub) * ntMinUnits[item]!;
      const most = ntMaxUnits[item]!;
      const hi = most === 0 ? 0 : rep[1] === null ? unitCap : Math.min(unitCap, (rep[1] - sub) * most);
      return [lo, hi];
    };
    const keys = new Set<string>();
    const list: number[] = [];
    const predicted = new Set<string>();
    const completed = new Set<string>();
    let accepting = false;

    // Grammars without counted nodes keep units, room and need constant (0, unitCap, 0); those
    // without marks keep used and forbid 0.
    const counting = this.bnf.counting;
    const add = (pos: number, origin: number, sub: number, units: number, room: number, need: number, used: number, forbid: number,
                 rin: number, r: number): void => {
      let key: string;
      if (counting) {
        // Dropped when the counted node around it can no longer end within its bounds.
        const [lo, hi] = rest(pos, sub);
        if (units + lo > room || Math.min(unitCap, units + hi) < need) return;
        key = `${pos},${origin},${sub},${units},${room},${need}`;
      } else {
        key = `${pos},${origin},${sub}`;
      }
      if (marking) {
        // Dropped when its rest cannot match without a mark already used or forbidden.
        const closed = used | forbid;
        if ((mustOf(pos, sub) & closed) !== 0 || !canFinish(pos, sub, closed)) return;
        key += `,${used},${forbid}`;
      }
      if (residuing) key += `,${rin},${r}`;
      if (keys.has(key)) return;
      keys.add(key);
      list.push(pos, origin, sub, units, room, need, used, forbid, rin, r);
    };
    // Completions wait in a queue rather than recursing, so long chains of rules ending at
    // once (right recursion) cannot overflow the stack.
    const pending: number[] = [];
    // The production p (at `origin`, predicted with remainder rin) ends having counted `units`,
    // used `used` and folded its remainder to r.
    const complete = (p: number, origin: number, units: number, used: number, rin: number, r: number): void => {
      const bounds = prodCounted[p];
      if (bounds) {
        if (units < bounds[0] || (bounds[1] !== null && units > bounds[1])) return;
        units = 0;
      } else if (prodUnit[p]) {
        units = Math.min(units + 1, unitCap);
      }
      const required = prodMarks[p];
      if (required !== null && required !== undefined) {
        if ((used & required) !== required) return;
        used = 0;
      } else if (prodMark[p]! >= 0) {
        const bit = 1 << prodMark[p]!;
        if (used & bit) return;
        used |= bit;
      }
      const modulus = prodResidue[p];
      const digit = prodDigit[p];
      if (modulus !== null && modulus !== undefined) {
        if (r !== 0) return;
        r = ANY;  // the waiting items keep theirs
      } else if (digit) {
        const [d, budget, m] = digit;
        r = Number((BigInt(r) * 10n + BigInt(d)) % BigInt(m));
        if (budget >= 0 && !residueAlive(r, m, budget)) return;
      }
      const nt = prodLhs[p]!;
      if (nt === start) accepting = true;
      // Completions of nullable symbols at this very position are handled when predicting
      // (an empty match counts no unit).
      if (origin === SELF) return;
      const key = `${nt},${origin},${units},${used},${rin},${r}`;
      if (completed.has(key)) return;
      completed.add(key);
      pending.push(nt, origin, units, used, rin, r);
    };
    // Moves an item past the symbol after its dot, which counted `more` units and used the
    // marks `moreUsed` (for a repeat: counts one more item).
    const moveOn = (pos: number, origin: number, sub: number, units: number, room: number, need: number, more: number,
                    used: number, forbid: number, moreUsed: number, rin: number, r: number): void => {
      const p = posProd[pos]!;
      const total = Math.min(units + more, unitCap);
      if (total > room) return;
      if ((moreUsed & (used | forbid)) !== 0) return;
      used |= moreUsed;
      const rep = prodRepeat[p];
      if (rep) {
        const [min, max] = rep;
        // Past `min`, an unbounded repeat behaves the same whatever the count: saturate it.
        const count = max === null ? Math.min(sub + 1, min) : sub + 1;
        if (max === null || count < max) add(pos, origin, count, total, room, need, used, forbid, rin, r);
        if (count >= min && total >= need) complete(p, origin, total, used, rin, r);
        return;
      }
      if (posSym[pos + 1] === DONE) {
        if (total >= need) complete(p, origin, total, used, rin, r);
      } else {
        add(pos + 1, origin, 0, total, room, need, used, forbid, rin, r);
      }
    };
    // The room and need of production p, predicted by an item at `pos` (repeat count `sub`) that
    // has counted `units` of its `room` and `need`: what is left once the rest after the
    // predicted symbol is accounted for.
    const boundsFor = (p: number, pos: number, sub: number, units: number, room: number, need: number): [number, number] => {
      const counted = prodCounted[p];
      if (counted) return [counted[1] ?? unitCap, counted[0]];
      const rep = prodRepeat[posProd[pos]!];
      const [lo, hi] = rep ? rest(pos, sub + 1) : rest(pos + 1, 0);
      const own = prodUnit[p] ? 1 : 0;
      // A room of unitCap or more is no bound at all (an unbounded counted node).
      return [room >= unitCap ? unitCap : room - units - lo - own, Math.max(0, need - units - hi - own)];
    };

    for (const [pos, origin, sub, units, room, need, used, forbid, rin, r] of seeds) {
      if (sub === -1) moveOn(pos, origin, 0, units, room, need, 0, used, forbid, 0, rin, r);
      else add(pos, origin, sub, units, room, need, used, forbid, rin, r);
    }
    let i = 0;
    while (i < list.length || pending.length > 0) {
      if (pending.length > 0) {
        const r = pending.pop()!;
        const rin = pending.pop()!;
        const used = pending.pop()!;
        const units = pending.pop()!;
        const origin = pending.pop()!;
        const nt = pending.pop()!;
        const set = this.sets[origin]!;
        for (const w of this.waitingOn(set, nt)) {
          const it = set.items;
          if (rin !== ANY && it[w + 9] !== rin) continue;
          const o = it[w + 1] === SELF ? origin : it[w + 1]!;
          moveOn(it[w]!, o, it[w + 2]!, it[w + 3]!, it[w + 4]!, it[w + 5]!, units, it[w + 6]!, it[w + 7]!, used, it[w + 8]!, r === ANY ? it[w + 9]! : r);
        }
        continue;
      }
      const pos = list[i]!;
      const origin = list[i + 1]!;
      const sub = list[i + 2]!;
      const units = list[i + 3]!;
      const room = list[i + 4]!;
      const need = list[i + 5]!;
      const used = list[i + 6]!;
      const forbid = list[i + 7]!;
      const rin = list[i + 8]!;
      const r = list[i + 9]!;
      i += W;
      const sym = posSym[pos]!;
      const live = sym >= 0 ? ntLive[sym] : null;
      if (live) {
        if (residueAlive(r, live[1], live[0])) moveOn(pos, origin, sub, units, room, need, 0, used, forbid, 0, rin, r);
      } else if (sym >= 0) {
        // What the predicted production must not use: what this item used or may not, and what
        // the rest after the predicted symbol must use.
        let closed = 0;
        if (marking) {
          const rep = prodRepeat[posProd[pos]!];
          closed = used | forbid | (rep ? (sub + 1 < rep[0] ? ntMust[sym]! : 0) : restMust[pos + 1]!);
        }
        for (const p of ntProds[sym]!) {
          if (posSym[prodStart[p]!] === DONE) continue;
          const [rm, n] = boundsFor(p, pos, sub, units, room, need);
          let f = 0;
          if (marking) {
            const own = prodMark[p]!;
            if (own >= 0 && (closed & (1 << own)) !== 0) continue;
            // A marks node's own marks start over; a mark's item must not use the mark again.
            f = prodMarks[p] !== null ? 0 : own >= 0 ? closed | (1 << own) : closed;
          }
          // A residue production's level starts over; others thread the predictor's remainder.
          const own = prodResidue[p] !== null;
          const key = `${p},${rm},${n},${f},${own ? ANY : r}`;
          if (predicted.has(key)) continue;
          predicted.add(key);
          add(prodStart[p]!, SELF, 0, 0, rm, n, 0, f, own ? ANY : r, own ? 0 : r);
        }
        if (nullable[sym]) moveOn(pos, origin, sub, units, room, need, 0, used, forbid, 0, rin, r);
      } else if (sym !== DONE) {
        const term = this.bnf.terminals[-sym - 1]!;
        // Text may end at any character boundary.
        if (term.kind === "text" && this.subs[sub]!.partial.length === 0) moveOn(pos, origin, sub, units, room, need, 0, used, forbid, 0, rin, r);
      }
    }
    // Every item dropped (their counts or marks cannot work out): no match continues here. The
    // initial set is kept, empty or not.
    if (list.length === 0 && !accepting && this.sets.length > 0) return DEAD;
    return this.intern(list, accepting);
  }

  private intern(list: number[], accepting: boolean): number {
    const at: number[] = [];
    for (let i = 0; i < list.length; i += W) at.push(i);
    const l = list;
    at.sort((x, y) => l[x]! - l[y]! || l[x + 1]! - l[y + 1]! || l[x + 2]! - l[y + 2]! || l[x + 3]! - l[y + 3]! || l[x + 4]! - l[y + 4]! ||
      l[x + 5]! - l[y + 5]! || l[x + 6]! - l[y + 6]! || l[x + 7]! - l[y + 7]! || l[x + 8]! - l[y + 8]! || l[x + 9]! - l[y + 9]!);
    // Only the numbers that can differ go into the key (units: counted grammars; marks: marked
    // ones; remainders: grammars with residue nodes).
    const fields = this.bnf.residuing ? W : this.bnf.marking ? 8 : this.bnf.counting ? 6 : 3;
    let key = accepting ? "1|" : "0|";
    for (const x of at) {
      for (let k = 0; k < fields; k++) key += `${l[x + k]},`;
      key += ";";
    }
    const known = this.setIndex.get(key);
    if (known !== undefined) return known;
    const id = this.sets.length;
    // Float64: room and units reach unitCap, 2^31 for a count bound of 2^31 - 1.
    const items = new Float64Array(list.length);
    at.forEach((x, i) => {
      for (let k = 0; k < W; k++) items[i * W + k] = l[x + k]!;
    });
    this.sets.push({ state: new RecognizerState(id, accepting), items, waiting: null, next: null, nextToken: null, tokenTerms: null });
    this.setIndex.set(key, id);
    return id;
  }

  /** Whether symbol `sym` can match without using a mark of `forbid` (on its own level). */
  private avoids(sym: number, forbid: number): boolean {
    if (sym < 0 || forbid === 0) return true;
    let ok = this.avoiding.get(forbid);
    if (ok === undefined) {
      ok = this.avoidingAll(forbid);
      this.avoiding.set(forbid, ok);
    }
    return ok[sym] === 1;
  }

  /** Per nonterminal: whether it can match without a mark of `forbid` (a least fixed point). */
  private avoidingAll(forbid: number): Uint8Array {
    const { ntProds, prodMark, prodMarks, prodRepeat, prodStart, posSym, ntNames } = this.bnf;
    const ok = new Uint8Array(ntNames.length);
    const symOk = (s: number): boolean => s < 0 || ok[s] === 1;
    const prodOk = (p: number): boolean => {
      if (prodMarks[p] !== null) return true;  // its marks are its own (every kept production matches something)
      const own = prodMark[p]!;
      if (own >= 0 && (forbid & (1 << own)) !== 0) return false;
      const rep = prodRepeat[p];
      if (rep) return rep[0] === 0 || symOk(posSym[prodStart[p]!]!);
      for (let k = prodStart[p]!; posSym[k] !== DONE; k++) if (!symOk(posSym[k]!)) return false;
      return true;
    };
    for (let changed = true; changed; ) {
      changed = false;
      for (let nt = 0; nt < ntNames.length; nt++) {
        if (ok[nt] === 1) continue;
        if (ntProds[nt]!.some(prodOk)) {
          ok[nt] = 1;
          changed = true;
        }
      }
    }
    return ok;
  }

  private waitingOn(set: SetData, nt: number): number[] {
    if (set.waiting === null) {
      set.waiting = new Map();
      for (let i = 0; i < set.items.length; i += W) {
        const sym = this.bnf.posSym[set.items[i]!]!;
        if (sym < 0 || sym === DONE) continue;
        let l = set.waiting.get(sym);
        if (!l) set.waiting.set(sym, (l = []));
        l.push(i);
      }
    }
    return set.waiting.get(nt) ?? [];
  }

  private sub(window: string, partial: number[], count: number): number {
    const key = `${window}|${partial.join(",")}|${count}`;
    let id = this.subIndex.get(key);
    if (id === undefined) {
      id = this.subs.length;
      this.subs.push({ window, partial, count });
      this.subIndex.set(key, id);
    }
    return id;
  }

  /** One byte through a class or text terminal's sub-state: the new sub-state, or DEAD. */
  private stepSub(t: number, term: Terminal, subId: number, byte: number): number {
    const memo = this.subSteps[t]!;
    const key = subId * 256 + byte;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result = DEAD;
    if (term.kind === "text") result = this.stepText(t, term, subId, byte);
    else if (term.kind === "class") result = this.stepClass(term, subId, byte);
    memo.set(key, result);
    return result;
  }

  private stepClass(term: Extract<Terminal, { kind: "class" }>, subId: number, byte: number): number {
    const partial = [...this.subs[subId]!.partial, byte];
    const range = utf8PrefixInterval(partial);
    if (range === null || !rangesMeet(term.ranges, range[0], range[1])) return DEAD;
    return partial.length === utf8Length(partial[0]!) ? 0 : this.sub("", partial, 0);
  }

  private stepText(t: number, term: Extract<Terminal, { kind: "text" }>, subId: number, byte: number): number {
    const sub = this.subs[subId]!;
    let count = sub.count;
    if (sub.partial.length === 0 && term.maxChars !== null && count >= term.maxChars) return DEAD;
    const partial = [...sub.partial, byte];
    const range = utf8PrefixInterval(partial);
    // A character of text is any valid code point but a surrogate.
    if (range === null) return DEAD;
    const whole = partial.length === utf8Length(partial[0]!);
    if (whole && term.maxChars !== null) count++;
    const tail = sub.window + String.fromCharCode(byte);
    for (const x of term.excludes) if (tail.endsWith(x)) return DEAD;
    let window = "";
    for (let n = Math.min(tail.length, term.longest - 1); n > 0; n--) {
      const s = tail.slice(tail.length - n);
      if (term.prefixes.has(s)) {
        window = s;
        break;
      }
    }
    const id = this.sub(window, whole ? [] : partial, count);
    if (!whole && !this.textCanFinishChar(t, term, id)) return DEAD;
    return id;
  }

  /** Whether a text sub-state in the middle of a character can complete it without hitting an excluded string. */
  private textCanFinishChar(t: number, term: Terminal, subId: number): boolean {
    const memo = this.canFinish[t]!;
    const known = memo.get(subId);
    if (known !== undefined) return known;
    let ok = false;
    for (let b = 0x80; b <= 0xbf && !ok; b++) ok = this.stepSub(t, term, subId, b) !== DEAD;
    memo.set(subId, ok);
    return ok;
  }
}

const cache = new WeakMap<IrGrammar, Recognizer>();

function recognizerFor(grammar: IrGrammar): Recognizer {
  let r = cache.get(grammar);
  if (!r) {
    r = new Recognizer(grammar);
    cache.set(grammar, r);
  }
  return r;
}

function toBytes(input: Uint8Array | string): Uint8Array {
  return typeof input === "string" ? new TextEncoder().encode(input) : input;
}

/** Whether the whole input (bytes, or a string taken as UTF-8) matches the grammar. */
export function isMatch(grammar: IrGrammar, input: Uint8Array | string): boolean {
  const r = recognizerFor(grammar);
  const s = r.stepBytes(r.initial(), toBytes(input));
  return s !== null && r.accepts(s);
}

/** Whether some extension of the input (possibly the input itself) matches the grammar. */
export function isViablePrefix(grammar: IrGrammar, input: Uint8Array | string): boolean {
  const r = recognizerFor(grammar);
  const s = r.stepBytes(r.initial(), toBytes(input));
  return s !== null && r.viable(s);
}

/**
 * The length of the longest prefix of the input that is a viable prefix of the grammar: the input
 * length when the whole input is viable, otherwise the offset of the first byte no match can
 * continue with (-1 when the grammar matches nothing at all).
 */
export function viablePrefixLength(grammar: IrGrammar, input: Uint8Array | string): number {
  const r = recognizerFor(grammar);
  const bytes = toBytes(input);
  let s: RecognizerState | null = r.initial();
  if (!r.viable(s)) return -1;
  for (let i = 0; i < bytes.length; i++) {
    s = r.step(s, bytes[i]!);
    if (s === null) return i;
  }
  return bytes.length;
}
