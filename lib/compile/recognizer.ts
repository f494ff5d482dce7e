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
 * `maxTokens` of text nodes is not a property of bytes and is ignored here.
 *
 * Token nodes match whole tokens, not bytes: {@link Recognizer.stepToken} takes one token as a
 * unit (given a {@link TokenUniverse} that resolves token texts and says which tokens are free),
 * while byte steps never enter them. So the recognizer decides over sequences of tokens what
 * the engine decides: a token either advances through its bytes or through a token node.
 */
import { InvalidArgumentError } from "../errors.js";
import { validateGrammar, type IrGrammar } from "./ir.js";
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

interface SetData {
  state: RecognizerState;
  /** Triples (position, origin, sub): origin is SELF or an earlier state id; sub is a terminal sub-state id or a repeat count. */
  items: Int32Array;
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
    const seeds: Array<[number, number, number]> = this.bnf.ntProds[this.bnf.start]!.map((p) => [this.bnf.prodStart[p]!, SELF, 0]);
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
      for (let i = 0; i < set.items.length; i += 3) {
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
    const seeds: Array<[number, number, number]> = [];
    const items = from.items;
    for (let i = 0; i < items.length; i += 3) {
      const pos = items[i]!;
      const sym = posSym[pos]!;
      if (sym >= 0 || sym === DONE) continue;
      const term = this.bnf.terminals[-sym - 1]!;
      if (term.kind !== "token" || !this.tokenMatches(-sym - 1, term, id)) continue;
      seeds.push([pos, items[i + 1] === SELF ? from.state.id : items[i + 1]!, -1]);
    }
    return seeds.length === 0 ? DEAD : this.build(seeds);
  }

  /** Scans `byte` from `from`, then closes the new set. */
  private advance(from: SetData, byte: number): number {
    const { posSym } = this.bnf;
    const seeds: Array<[number, number, number]> = [];
    const fromId = from.state.id;
    const items = from.items;
    for (let i = 0; i < items.length; i += 3) {
      const pos = items[i]!;
      const sym = posSym[pos]!;
      if (sym >= 0 || sym === DONE) continue;
      const origin = items[i + 1] === SELF ? fromId : items[i + 1]!;
      const t = -sym - 1;
      const term = this.bnf.terminals[t]!;
      if (term.kind === "byte") {
        if (term.byte === byte) seeds.push([pos, origin, -1]);
        continue;
      }
      if (term.kind === "token") continue;
      const sub = this.stepSub(t, term, items[i + 2]!, byte);
      if (sub === DEAD) continue;
      if (term.kind === "class" && this.subs[sub]!.partial.length === 0) seeds.push([pos, origin, -1]);
      else seeds.push([pos, origin, sub]);
    }
    if (seeds.length === 0) return DEAD;
    return this.build(seeds);
  }

  /**
   * Closes a set from its seeds and interns it. A seed with sub -1 is an item whose terminal was
   * just completed: it is advanced past it.
   */
  private build(seeds: Array<[number, number, number]>): number {
    const { posSym, posProd, prodLhs, prodRepeat, prodStart, ntProds, nullable, start } = this.bnf;
    const keys = new Set<string>();
    const list: number[] = [];
    const predicted = new Set<number>();
    const completed = new Set<string>();
    let accepting = false;

    const add = (pos: number, origin: number, sub: number): void => {
      const key = `${pos},${origin},${sub}`;
      if (keys.has(key)) return;
      keys.add(key);
      list.push(pos, origin, sub);
    };
    // Completions wait in a queue rather than recursing, so long chains of rules ending at
    // once (right recursion) cannot overflow the stack.
    const pending: number[] = [];
    const complete = (nt: number, origin: number): void => {
      if (nt === start) accepting = true;
      // Completions of nullable symbols at this very position are handled when predicting.
      if (origin === SELF) return;
      const key = `${nt},${origin}`;
      if (completed.has(key)) return;
      completed.add(key);
      pending.push(nt, origin);
    };
    // Moves an item past the symbol after its dot (for a repeat: counts one more item).
    const moveOn = (pos: number, origin: number, sub: number): void => {
      const p = posProd[pos]!;
      const rep = prodRepeat[p];
      if (rep) {
        const [min, max] = rep;
        // Past `min`, an unbounded repeat behaves the same whatever the count: saturate it.
        const count = max === null ? Math.min(sub + 1, min) : sub + 1;
        if (max === null || count < max) add(pos, origin, count);
        if (count >= min) complete(prodLhs[p]!, origin);
        return;
      }
      if (posSym[pos + 1] === DONE) complete(prodLhs[p]!, origin);
      else add(pos + 1, origin, 0);
    };

    for (const [pos, origin, sub] of seeds) {
      if (sub === -1) moveOn(pos, origin, 0);
      else add(pos, origin, sub);
    }
    let i = 0;
    while (i < list.length || pending.length > 0) {
      if (pending.length > 0) {
        const origin = pending.pop()!;
        const nt = pending.pop()!;
        const set = this.sets[origin]!;
        for (const w of this.waitingOn(set, nt)) {
          const o = set.items[w + 1] === SELF ? origin : set.items[w + 1]!;
          moveOn(set.items[w]!, o, set.items[w + 2]!);
        }
        continue;
      }
      const pos = list[i]!;
      const origin = list[i + 1]!;
      const sub = list[i + 2]!;
      i += 3;
      const sym = posSym[pos]!;
      if (sym >= 0) {
        if (!predicted.has(sym)) {
          predicted.add(sym);
          for (const p of ntProds[sym]!) if (posSym[prodStart[p]!] !== DONE) add(prodStart[p]!, SELF, 0);
        }
        if (nullable[sym]) moveOn(pos, origin, sub);
      } else if (sym !== DONE) {
        const term = this.bnf.terminals[-sym - 1]!;
        // Text may end at any character boundary.
        if (term.kind === "text" && this.subs[sub]!.partial.length === 0) moveOn(pos, origin, sub);
      }
    }
    return this.intern(list, accepting);
  }

  private intern(list: number[], accepting: boolean): number {
    const triples: Array<[number, number, number]> = [];
    for (let i = 0; i < list.length; i += 3) triples.push([list[i]!, list[i + 1]!, list[i + 2]!]);
    triples.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    const key = `${accepting ? 1 : 0}|${triples.join(";")}`;
    const known = this.setIndex.get(key);
    if (known !== undefined) return known;
    const id = this.sets.length;
    const items = new Int32Array(triples.length * 3);
    triples.forEach((t, i) => items.set(t, i * 3));
    this.sets.push({ state: new RecognizerState(id, accepting), items, waiting: null, next: null, nextToken: null, tokenTerms: null });
    this.setIndex.set(key, id);
    return id;
  }

  private waitingOn(set: SetData, nt: number): number[] {
    if (set.waiting === null) {
      set.waiting = new Map();
      for (let i = 0; i < set.items.length; i += 3) {
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
