/**
 * Simplification passes over the grammar IR. Each keeps the language exactly; together they
 * make lowered grammars smaller and their printed form readable:
 *
 * - flatten nested `seq`/`choice`, unwrap one-item ones, drop `empty` from sequences;
 * - merge adjacent literals in a sequence (`"<|open|>" "call"` → `"<|open|>call"`);
 * - fold `never` (a sequence with `never` is `never`; `never` alternatives disappear);
 * - merge single-character alternatives of a choice into one class, drop duplicate alternatives;
 * - fold trivial and nested repeats (`x{1,1}`, `x{0,0}`, `(x*)*`, `(x?)*`, `(x*)?`, `(x+)+`);
 * - inline tiny non-recursive rules (a literal, a class, another rule's name, ...);
 * - remove rules the root cannot reach.
 *
 * Shared nodes stay shared (each pass memoizes by node), so a DAG never grows into a tree.
 */
import {
  charClass, empty, latin1Key, never, validateGrammar, type IrChoice, type IrExpr, type IrGrammar, type IrRepeat, type IrRule, type IrSeq,
} from "./ir.js";
import { tokenNodeKey } from "./ir-tokens.js";

/** Options of {@link simplifyGrammar}. */
export interface SimplifyOptions {
  /** Inline non-recursive rules whose body has at most this many nodes; 0 disables. Default 3. */
  inlineMaxNodes?: number;
}

/** A simplified grammar with the same language; the root rule keeps its name. */
export function simplifyGrammar(grammar: IrGrammar, options: SimplifyOptions = {}): IrGrammar {
  validateGrammar(grammar);
  const out = simplifyValidGrammar(grammar, options);
  validateGrammar(out);
  return out;
}

/**
 * Rules {@link simplifyValidGrammar} leaves as they are (neither rewritten nor inlined): copies of
 * lowered fragments (fragments.ts), which are simplified already. They refer only to each other,
 * and their bodies are not read: `refs` says what each refers to.
 */
export interface FixedRules {
  /** 1 for each fixed rule. */
  readonly mask: Uint8Array;
  /** The rules each fixed rule refers to. */
  readonly refs: ReadonlyMap<number, ReadonlySet<number>>;
}

/** What {@link simplifyValidGrammar} reports besides the grammar. */
export interface SimplifyReport {
  /**
   * No rule is left that another round of inlining would inline (the rounds ended by finding
   * none): simplifying again inlines nothing.
   */
  settled: boolean;
  /** The rules each rule of the result refers to. */
  refs: ReadonlyArray<ReadonlySet<number>>;
}

/**
 * {@link simplifyGrammar} for a grammar known to be valid (built by the lowering), without the
 * checks of its input and output. `fixed` rules are left as they are (see {@link FixedRules}).
 * A number `n` fixes the first `n` rules and keeps them all in their places (a fragment's copies
 * of the fragments it depends on, whose bodies the caller may leave out); fixed rules given as a
 * {@link FixedRules} are kept only when reachable (a grammar of imported fragments), and keep
 * their bodies unless rules before them are dropped.
 */
export function simplifyValidGrammar(grammar: IrGrammar, options: SimplifyOptions = {}, fixed: number | FixedRules = 0, report?: SimplifyReport): IrGrammar {
  const inlineMax = options.inlineMaxNodes ?? 3;
  const keys = new StructureKeys();
  const fixedRules = typeof fixed === "number" ? prefixFixedRules(fixed) : { ...fixed, keepAll: false };
  const isFixed = (i: number): boolean => fixedRules.mask[i] === 1;
  const bodyRefs = new BodyRefs();
  const first = new Rewriter(keys);
  let rules = grammar.rules.map((r, i) => (isFixed(i) ? r : { name: r.name, body: first.expr(r.body) }));
  // Each round inlines the rules that became tiny, rewriting as it substitutes (the rewrites
  // reach their fixpoint in one pass); inlining can make new simplifications possible (literals
  // meeting literals), hence the rounds.
  const inlined = new Set<number>();
  let settled = inlineMax <= 0;
  for (let round = 0; round < 8 && inlineMax > 0; round++) {
    const inline = tinyRules(rules, grammar.root, inlineMax, fixedRules, bodyRefs);
    if (inline.size === 0) {
      settled = true;
      break;
    }
    // Only the rules that refer to an inlined one change. An inlined rule is referred to by no
    // rule the root reaches once this round is done, so it is not rewritten now or later (a chain
    // of tiny rules otherwise copied its growing literal into every dead link, round after round).
    const rewriter = new Rewriter(keys, inline);
    rules = rules.map((r, i) => {
      if (isFixed(i) || inline.has(i) || inlined.has(i)) return r;
      for (const j of bodyRefs.of(r.body)) if (inline.has(j)) return { name: r.name, body: rewriter.expr(r.body) };
      return r;
    });
    for (const i of inline.keys()) inlined.add(i);
  }
  // Eight rounds that each inlined something may have left tiny rules.
  if (!settled) settled = tinyRules(rules, grammar.root, inlineMax, fixedRules, bodyRefs).size === 0;
  return removeUnreachable({ rules, root: grammar.root }, fixedRules, bodyRefs, report, settled);
}

/**
 * The simplified form of `e` when a rule with body `e` is one {@link simplifyValidGrammar} would
 * inline wherever it is used (tiny, and without references, so on no cycle); otherwise null. A
 * lowering that writes such a part in place instead of as a rule gets the same grammar, without
 * the rule the simplification would drop (and renumber every rule after it for).
 */
export function inlinedForm(e: IrExpr, options: SimplifyOptions = {}): IrExpr | null {
  const inlineMax = options.inlineMaxNodes ?? 3;
  if (inlineMax <= 0) return null;
  const out = new Rewriter(new StructureKeys()).expr(e);
  return withoutRefs(out) && size(out, inlineMax) <= inlineMax ? out : null;
}

/** Fixed rules with what simplification needs to know of them, internally. */
interface FixedRuleSet extends FixedRules {
  /** Every fixed rule is kept where it is (the fixed rules are a prefix and refer to nothing outside it). */
  readonly keepAll: boolean;
}

const NO_FIXED_REFS: ReadonlyMap<number, ReadonlySet<number>> = new Map();

/** The first `n` rules fixed: their references are not read (they lead only among themselves, and all are kept). */
function prefixFixedRules(n: number): FixedRuleSet {
  const mask = new Uint8Array(n);
  mask.fill(1);
  return { mask, refs: NO_FIXED_REFS, keepAll: true };
}

/**
 * The composite nodes a {@link Rewriter} builds are instances of these classes: they are in normal
 * form (rewriting them again without substitution returns them unchanged), and each knows whether
 * it holds a rule reference. They are IR nodes like any other (`kind`, `items`… as own fields; a
 * class-private flag), and checking them costs no hash lookup, which matters: the lowering cache
 * copies and re-simplifies tens of thousands of them per request. IR nodes are never changed, so
 * what they say stays true. Leaves (literals, classes, texts, references) are normal forms as
 * they are.
 */
abstract class NormalNode {
  readonly #noRefs: boolean;

  protected constructor(noRefs: boolean) {
    this.#noRefs = noRefs;
  }

  static holdsNoRefs(e: IrExpr): boolean {
    return #noRefs in e && (e as unknown as NormalNode).#noRefs;
  }

  static is(e: IrExpr): boolean {
    return #noRefs in e;
  }
}

/** `noRefs`: given by a caller that knows it (a renumbered copy holds references as its original did). */
class NormalSeq extends NormalNode implements IrSeq {
  readonly kind = "seq";
  constructor(readonly items: IrExpr[], noRefs = items.every(withoutRefs)) {
    super(noRefs);
  }
}

class NormalChoice extends NormalNode implements IrChoice {
  readonly kind = "choice";
  constructor(readonly items: IrExpr[], noRefs = items.every(withoutRefs)) {
    super(noRefs);
  }
}

class NormalRepeat extends NormalNode implements IrRepeat {
  readonly kind = "repeat";
  constructor(readonly item: IrExpr, readonly min: number, readonly max: number | null) {
    super(withoutRefs(item));
  }
}

/** Whether a node is in normal form (see NormalNode). */
function isNormal(e: IrExpr): boolean {
  switch (e.kind) {
    case "seq":
    case "choice":
    case "repeat":
      return NormalNode.is(e);
    case "counted":
    case "unit":
    case "marks":
    case "mark":
    case "residue":
      return false; // rewritten through their item (Rewriter.rewrite)
    default:
      return true;
  }
}

/** Whether a node is known to hold no rule reference (a leaf other than a reference, or a normal form without one). */
function withoutRefs(e: IrExpr): boolean {
  switch (e.kind) {
    case "ref":
      return false;
    case "seq":
    case "choice":
    case "repeat":
      return NormalNode.holdsNoRefs(e);
    case "counted":
    case "unit":
    case "marks":
    case "mark":
    case "residue":
      return withoutRefs(e.item);
    default:
      return true;
  }
}

/** Structural identity of nodes: equal structure, equal number (memoized by node). */
class StructureKeys {
  private readonly ids = new Map<IrExpr, number>();
  private readonly byText = new Map<string, number>();

  of(e: IrExpr): number {
    const known = this.ids.get(e);
    if (known !== undefined) return known;
    let s: string;
    switch (e.kind) {
      case "empty":
      case "never":
        s = e.kind;
        break;
      case "bytes":
        s = `b${latin1Key(e.bytes)}`;
        break;
      case "class": {
        // Spelled out: Array.prototype.join over the [lo, hi] pairs converts each pair with a
        // nested join, and this was the hottest line of simplification (automata as rules are
        // choices of classes).
        s = e.negated ? "c^" : "c";
        for (const [lo, hi] of e.ranges) s += `${lo}-${hi},`;
        break;
      }
      case "text":
        s = `t${e.maxChars},${e.maxTokens},${e.excludes.map((x) => `${x.length}:${latin1Key(x)}`).join("")}`;
        break;
      case "ref":
        s = `r${e.rule}`;
        break;
      case "seq":
      case "choice": {
        let ids = "";
        for (const x of e.items) ids += `${this.of(x)},`;
        s = `${e.kind === "seq" ? "s" : "o"}${ids}`;
        break;
      }
      case "repeat":
        s = `x${this.of(e.item)},${e.min},${e.max}`;
        break;
      case "counted":
        s = `n${this.of(e.item)},${e.min},${e.max}`;
        break;
      case "unit":
        s = `u${this.of(e.item)}`;
        break;
      case "marks":
        s = `m${this.of(e.item)},${e.required.join(",")}`;
        break;
      case "mark":
        s = `k${this.of(e.item)},${e.index}`;
        break;
      case "residue":
        s = `q${this.of(e.item)},${e.modulus}`;
        break;
      case "rdigit":
        s = `d${e.digit},${e.budget},${e.modulus}`;
        break;
      case "rlive":
        s = `l${e.budget},${e.modulus}`;
        break;
      case "token":
      case "excludeToken":
      case "anyTokens":
        s = tokenNodeKey(e);
        break;
    }
    let id = this.byText.get(s);
    if (id === undefined) {
      id = this.byText.size;
      this.byText.set(s, id);
    }
    this.ids.set(e, id);
    return id;
  }
}

/** The structural rewrites, bottom-up and memoized by node; optionally substituting rule bodies for references. */
class Rewriter {
  private readonly memo = new Map<IrExpr, IrExpr>();

  constructor(private readonly keys: StructureKeys, private readonly substitutions: ReadonlyMap<number, IrExpr> = new Map()) {}

  expr(e: IrExpr): IrExpr {
    // Normal forms only change where a reference is substituted.
    if (isNormal(e) && (this.substitutions.size === 0 || withoutRefs(e))) return e;
    const known = this.memo.get(e);
    if (known) return known;
    const out = this.rewrite(e);
    this.memo.set(e, out);
    return out;
  }

  private rewrite(e: IrExpr): IrExpr {
    switch (e.kind) {
      case "seq":
        return this.seq(e.items.map((x) => this.expr(x)));
      case "choice":
        return this.choice(e.items.map((x) => this.expr(x)));
      case "repeat":
        return this.repeat(this.expr(e.item), e.min, e.max);
      case "counted":
      case "unit":
      case "marks":
      case "mark":
      case "residue": {
        const item = this.expr(e.item);
        if (item.kind === "never") return never();
        return item === e.item ? e : { ...e, item };
      }
      case "ref": {
        const body = this.substitutions.get(e.rule);
        return body ? this.expr(body) : e;
      }
      case "bytes":
      case "class":
      case "text":
      case "empty":
      case "never":
      case "token":
      case "excludeToken":
      case "anyTokens":
      case "rdigit":
      case "rlive":
        return e;
    }
  }

  private seq(items: IrExpr[]): IrExpr {
    // Flattened and literals merged in one pass (nested sequences are normal forms already).
    const merged: IrExpr[] = [];
    for (const it of items) {
      if (it.kind === "never") return never();
      if (it.kind === "seq") for (const x of it.items) pushMerged(merged, x);
      else if (it.kind !== "empty") pushMerged(merged, it);
    }
    if (merged.length === 0) return empty();
    if (merged.length === 1) return merged[0]!;
    return new NormalSeq(merged);
  }

  private choice(items: IrExpr[]): IrExpr {
    const flat: IrExpr[] = [];
    for (const it of items) {
      if (it.kind === "choice") flat.push(...it.items);
      else if (it.kind !== "never") flat.push(it);
    }
    // One class for all single-character alternatives, where the first of them stood.
    const chars: Array<readonly [number, number]> = [];
    let charAt = -1;
    let charCount = 0;
    const rest: IrExpr[] = [];
    for (const it of flat) {
      const ranges = singleCharRanges(it);
      if (ranges) {
        if (charAt < 0) {
          charAt = rest.length;
          rest.push(it);
        }
        chars.push(...ranges);
        charCount++;
      } else {
        rest.push(it);
      }
    }
    if (charCount > 1) rest[charAt] = charClass(chars);
    const unique = this.distinct(rest);
    if (unique.length === 0) return never();
    if (unique.length === 1) return unique[0]!;
    return new NormalChoice(unique);
  }

  /**
   * The alternatives without structural duplicates, first occurrences kept. Equal structures have
   * equal outlines (kind, size and first parts, two levels down), so only alternatives whose
   * outline another one shares need their structure key, a walk of the whole alternative; mostly
   * none does (an automaton's rules branch on distinct classes, an object's members on distinct
   * names).
   */
  private distinct(items: IrExpr[]): IrExpr[] {
    if (items.length < 2) return items;
    const outlines = items.map((it) => outline(it, 2));
    const count = new Map<number, number>();
    for (const o of outlines) count.set(o, (count.get(o) ?? 0) + 1);
    if (count.size === items.length) return items;
    const seen = new Set<number>();
    return items.filter((it, i) => {
      if (count.get(outlines[i]!) === 1) return true;
      const k = this.keys.of(it);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }

  private repeat(item: IrExpr, min: number, max: number | null): IrExpr {
    if (max === 0 || item.kind === "empty") return empty();
    if (item.kind === "never") return min === 0 ? empty() : never();
    if (min === 1 && max === 1) return item;
    if (item.kind === "repeat") {
      const inner = item;
      // (x{a,}){0,} and (x?){0,} are x*; (x*)? is x*; (x+)+ is x+.
      // Folded again, so that one pass reaches the fixpoint.
      if (min === 0 && max === null && inner.min <= 1 && (inner.max === null || inner.max >= 1)) return this.repeat(inner.item, 0, null);
      if (min === 0 && max === 1 && inner.min === 0 && inner.max === null) return inner;
      if (min === 1 && max === null && inner.min === 1 && inner.max === null) return inner;
    }
    return new NormalRepeat(item, min, max);
  }
}

/** Appends `it` to a sequence's items, joining it to a literal that ends them when both are literals. */
function pushMerged(merged: IrExpr[], it: IrExpr): void {
  const last = merged[merged.length - 1];
  if (last && last.kind === "bytes" && it.kind === "bytes") {
    const joined = new Uint8Array(last.bytes.length + it.bytes.length);
    joined.set(last.bytes);
    joined.set(it.bytes, last.bytes.length);
    merged[merged.length - 1] = { kind: "bytes", bytes: joined };
  } else {
    merged.push(it);
  }
}

/** Codes of the kinds an outline tells apart by kind alone. */
const KIND_CODES: Readonly<Record<IrExpr["kind"], number>> = {
  empty: 1, never: 2, bytes: 3, class: 4, seq: 5, choice: 6, repeat: 7, ref: 8, text: 9, counted: 10, unit: 11,
  marks: 12, mark: 13, residue: 14, rdigit: 15, rlive: 16, token: 17, excludeToken: 18, anyTokens: 19,
};

/** One step of the outline hash (multiplicative mixing, 32 bits). */
function mix(h: number, x: number): number {
  return Math.imul(h ^ x, 0x9e3779b1) ^ (h >>> 15);
}

/**
 * A structure's outline as a 32-bit hash: equal structures have equal outlines (see
 * Rewriter.distinct); two different ones may share one, which only costs their structure keys.
 * A number, not a string: every choice's alternatives get one, and the strings were a large part
 * of what simplification allocated.
 */
function outline(e: IrExpr, depth: number): number {
  let h = KIND_CODES[e.kind];
  switch (e.kind) {
    case "bytes":
      return mix(mix(mix(h, e.bytes.length), e.bytes[0]!), e.bytes[e.bytes.length - 1]!);
    case "class": {
      const first = e.ranges[0];
      h = mix(mix(h, e.negated ? 1 : 0), e.ranges.length);
      return first === undefined ? h : mix(mix(h, first[0]), first[1]);
    }
    case "ref":
      return mix(h, e.rule);
    case "seq":
    case "choice": {
      // The first items and the last (an automaton's alternatives are a class, then a reference).
      const n = e.items.length;
      h = mix(h, n);
      if (depth === 0) return h;
      for (let i = 0; i < n; i++) if (i < 3 || i === n - 1) h = mix(h, outline(e.items[i]!, depth - 1));
      return h;
    }
    case "repeat":
    case "counted":
      h = mix(mix(h, e.min), e.max === null ? -1 : e.max);
      return depth === 0 ? h : mix(h, outline(e.item, depth - 1));
    default:
      return h;
  }
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: false });

/** The code-point ranges of an alternative that is exactly one character, or null. */
function singleCharRanges(e: IrExpr): ReadonlyArray<readonly [number, number]> | null {
  if (e.kind === "class") return e.negated ? null : e.ranges;
  if (e.kind !== "bytes") return null;
  const cp = singleCodePoint(e.bytes);
  return cp === null ? null : [[cp, cp]];
}

/** The code point when `bytes` is exactly one valid UTF-8 encoded character (not a surrogate). */
function singleCodePoint(bytes: Uint8Array): number | null {
  if (bytes.length > 4) return null;
  const text = utf8Decoder.decode(bytes);
  const cp = text.codePointAt(0);
  if (cp === undefined || cp === 0xfffd || String.fromCodePoint(cp) !== text) return null;
  return cp;
}

/** Node count of an expression (a reference counts as one node). */
function size(e: IrExpr, limit: number): number {
  let n = 0;
  const walk = (x: IrExpr): void => {
    if (n > limit) return;
    n++;
    if (x.kind === "seq" || x.kind === "choice") x.items.forEach(walk);
    else if (x.kind === "repeat" || x.kind === "counted" || x.kind === "unit" || x.kind === "marks" || x.kind === "mark" || x.kind === "residue") walk(x.item);
  };
  walk(e);
  return n;
}

/**
 * The rules a rule body refers to, memoized by body for one simplification (bodies are never
 * changed; the rounds ask again for the bodies that did not change). A module-wide WeakMap made
 * its ephemeron table a large part of a lowering's garbage collection: every copied fragment
 * brings fresh bodies.
 */
class BodyRefs {
  private readonly known = new Map<IrExpr, ReadonlySet<number>>();

  of(body: IrExpr): ReadonlySet<number> {
    let refs = this.known.get(body);
    if (!refs) {
      // Most bodies of a simplified grammar are normal forms known to hold no reference.
      refs = withoutRefs(body) ? NO_REFS : refsOf(body, new Set(), new Set());
      this.known.set(body, refs);
    }
    return refs;
  }
}

function refsOf(e: IrExpr, out: Set<number>, seen: Set<IrExpr>): Set<number> {
  if (seen.has(e) || withoutRefs(e)) return out;
  seen.add(e);
  if (e.kind === "ref") out.add(e.rule);
  else if (e.kind === "seq" || e.kind === "choice") for (const x of e.items) refsOf(x, out, seen);
  else if (e.kind === "repeat" || e.kind === "counted" || e.kind === "unit" || e.kind === "marks" || e.kind === "mark" || e.kind === "residue") refsOf(e.item, out, seen);
  return out;
}

/** How many inlined rules may nest inside one another in one round (each level is a few frames of the rewriter's recursion). */
const MAX_INLINE_DEPTH = 32;

/**
 * Rules (not the root, not fixed) small enough to inline and not on a reference cycle. A chain of
 * tiny rules (`r0 ::= "x" r1`, `r1 ::= "x" r2`, … as an EBNF author or a pattern's automaton may
 * write) is inlined at most MAX_INLINE_DEPTH deep per round: substituting rewrites each inlined
 * body, so an unbounded chain recursed as deep as it was long.
 */
function tinyRules(rules: IrRule[], root: number, maxNodes: number, fixedRules: FixedRuleSet, bodyRefs: BodyRefs): Map<number, IrExpr> {
  const refs = ruleRefs(rules, fixedRules, bodyRefs);
  const cyclic = rulesOnCycles(refs);
  // Flags per rule rather than sets: this runs in every round of every fragment's simplification.
  const n = rules.length;
  // Only references from rules the root reaches count: an inlined rule is left unreferenced.
  const reachable = new Uint8Array(n);
  const used = new Uint8Array(n);
  reachable[root] = 1;
  const todo = [root];
  while (todo.length > 0) {
    const i = todo.pop()!;
    for (const j of refs[i]!) {
      if (j !== i) used[j] = 1;
      if (reachable[j] === 0) {
        reachable[j] = 1;
        todo.push(j);
      }
    }
  }
  // Substituting rewrites the inlined body too, so tiny rules that use tiny rules are fine:
  // none is on a cycle, so substitution ends.
  const tiny = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (i === root || fixedRules.mask[i] === 1 || used[i] === 0 || cyclic[i] === 1 || size(rules[i]!.body, maxNodes) > maxNodes) continue;
    tiny[i] = 1;
  }
  // Nesting depth of each tiny rule's substitution, callees first (the tiny rules form no cycle);
  // a rule that would nest too deep stays a rule this round (depth 0; -1: not yet known). The
  // stack holds 2·rule + 1 for a rule whose callees are done.
  const depth = new Int32Array(n).fill(-1);
  const out = new Map<number, IrExpr>();
  const stack: number[] = [];
  for (let start = 0; start < n; start++) {
    if (tiny[start] === 0 || depth[start]! >= 0) continue;
    stack.push(2 * start);
    while (stack.length > 0) {
      const top = stack.pop()!;
      const i = top >> 1;
      if (depth[i]! >= 0) continue;
      if ((top & 1) === 0) {
        stack.push(top + 1);
        for (const j of refs[i]!) if (tiny[j] === 1 && depth[j]! < 0) stack.push(2 * j);
        continue;
      }
      let d = 1;
      for (const j of refs[i]!) if (tiny[j] === 1) d = Math.max(d, depth[j]! + 1);
      if (d > MAX_INLINE_DEPTH) {
        depth[i] = 0;
      } else {
        depth[i] = d;
        out.set(i, rules[i]!.body);
      }
    }
  }
  return out;
}

/** 1 for each rule that can reach itself through references (Tarjan's components, without recursion). */
function rulesOnCycles(refs: ReadonlyArray<ReadonlySet<number>>): Uint8Array {
  const n = refs.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const cyclic = new Uint8Array(n);
  const component: number[] = [];
  // Frames: a rule and the iterator over its references. One stack for every root, and none for
  // a rule without references (the dependencies' rules of a fragment, leaves): this runs in every
  // inlining round of every fragment, and a frame per rule was a large part of a lowering's garbage.
  const frames: Array<[number, Iterator<number>]> = [];
  let next = 0;
  const open = (v: number): void => {
    index[v] = low[v] = next++;
    component.push(v);
    onStack[v] = 1;
    frames.push([v, refs[v]!.values()]);
  };
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    if (refs[root]!.size === 0) {
      index[root] = low[root] = next++;
      continue;
    }
    open(root);
    while (frames.length > 0) {
      const [v, it] = frames[frames.length - 1]!;
      const step = it.next();
      if (!step.done) {
        const w = step.value;
        if (w === v) cyclic[v] = 1;
        // A rule without references is a component of its own, off every cycle.
        if (index[w] === -1) {
          if (refs[w]!.size === 0) index[w] = low[w] = next++;
          else open(w);
        } else if (onStack[w] === 1) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      frames.pop();
      if (frames.length > 0) {
        const parent = frames[frames.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        let w = component.pop()!;
        onStack[w] = 0;
        if (w !== v) {
          // Two or more members: all on a cycle.
          cyclic[w] = 1;
          do {
            w = component.pop()!;
            onStack[w] = 0;
            cyclic[w] = 1;
          } while (w !== v);
        }
      }
    }
  }
  return cyclic;
}

/**
 * The grammar with only the rules the root (or, with `keepAll`, a fixed rule) reaches, references
 * renumbered; fills `report` with the result's references.
 */
function removeUnreachable(grammar: IrGrammar, fixedRules: FixedRuleSet, bodyRefs: BodyRefs, report: SimplifyReport | undefined, settled: boolean): IrGrammar {
  const refs = ruleRefs(grammar.rules, fixedRules, bodyRefs);
  // An explicit stack: a chain of rules (a pattern's automaton written as rules) can be tens of
  // thousands long, past the call stack.
  const seen = new Uint8Array(grammar.rules.length);
  const stack: number[] = [grammar.root];
  if (fixedRules.keepAll) for (let i = fixedRules.mask.length - 1; i >= 0; i--) stack.push(i);
  let kept = 0;
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (seen[i] === 1) continue;
    seen[i] = 1;
    kept++;
    for (const j of refs[i]!) if (seen[j] !== 1) stack.push(j);
  }
  if (kept === grammar.rules.length) {
    if (report) {
      report.settled = settled;
      report.refs = refs;
    }
    return grammar;
  }
  // Keep the original order of the rules kept, so printing stays stable.
  const index = new Int32Array(grammar.rules.length).fill(-1);
  const rules: IrRule[] = [];
  const outRefs: Array<ReadonlySet<number>> = [];
  const memo = new Map<IrExpr, IrExpr>();
  const renumber = (e: IrExpr): IrExpr => renumberRefs(e, (rule) => index[rule]!, memo);
  let next = 0;
  grammar.rules.forEach((_, i) => {
    if (seen[i] === 1) index[i] = next++;
  });
  grammar.rules.forEach((r, i) => {
    if (seen[i] !== 1) return;
    // With keepAll, the fixed rules come first and are all kept, so their numbers (and bodies) stay.
    rules.push(fixedRules.keepAll && fixedRules.mask[i] === 1 ? r : { name: r.name, body: renumber(r.body) });
    if (report) outRefs.push(refs[i]!.size === 0 ? NO_REFS : renumberedSet(refs[i]!, index));
  });
  if (report) {
    report.settled = settled;
    report.refs = outRefs;
  }
  return { rules, root: index[grammar.root]! };
}

function renumberedSet(refs: ReadonlySet<number>, index: Int32Array): ReadonlySet<number> {
  const out = new Set<number>();
  for (const r of refs) out.add(index[r]!);
  return out;
}

const NO_REFS: ReadonlySet<number> = new Set();

/**
 * The rules each rule refers to. The references of fixed rules are given (with keepAll: they
 * refer only to each other and are all kept, so none counts); their bodies are not read.
 */
function ruleRefs(rules: readonly IrRule[], fixedRules: FixedRuleSet, bodyRefs: BodyRefs): Array<ReadonlySet<number>> {
  return rules.map((r, i) => (fixedRules.mask[i] === 1 ? fixedRules.refs.get(i) ?? NO_REFS : bodyRefs.of(r.body)));
}

/**
 * `e` with each reference to rule `r` turned into one to `index(r)`, for a one-to-one `index`.
 * Nodes without references, or whose references keep their numbers, are kept as they are; copies of normal forms stay normal forms (a
 * one-to-one renumbering changes the outcome of no rewrite). `memo` serves every rule of one
 * renumbering, so shared nodes stay shared.
 */
export function renumberRefs(e: IrExpr, index: (rule: number) => number, memo: Map<IrExpr, IrExpr>): IrExpr {
  if (withoutRefs(e)) return e;
  const known = memo.get(e);
  if (known) return known;
  let out: IrExpr;
  switch (e.kind) {
    case "ref": {
      const rule = index(e.rule);
      out = rule === e.rule ? e : { kind: "ref", rule };
      break;
    }
    case "seq":
    case "choice": {
      // The items array is copied only once an item changes.
      let items: IrExpr[] | null = null;
      for (let i = 0; i < e.items.length; i++) {
        const x = e.items[i]!;
        const y = renumberRefs(x, index, memo);
        if (items === null && y !== x) items = e.items.slice(0, i);
        items?.push(y);
      }
      // Copies of a normal form still hold references (they are here because the original does).
      if (items === null) out = e;
      else if (!NormalNode.is(e)) out = { kind: e.kind, items };
      else out = e.kind === "seq" ? new NormalSeq(items, false) : new NormalChoice(items, false);
      break;
    }
    case "repeat": {
      const item = renumberRefs(e.item, index, memo);
      if (item === e.item) out = e;
      else out = NormalNode.is(e) ? new NormalRepeat(item, e.min, e.max) : { ...e, item };
      break;
    }
    case "counted":
    case "unit":
    case "marks":
    case "mark": {
      const item = renumberRefs(e.item, index, memo);
      out = item === e.item ? e : { ...e, item };
      break;
    }
    default:
      out = e;
  }
  memo.set(e, out);
  return out;
}
