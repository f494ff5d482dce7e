/**
 * The grammar IR: a context-free grammar over bytes, the contract between the TypeScript front
 * end and the native engine. docs/ir.md is its specification; keep the two in step.
 *
 * A grammar is a list of rules; each rule's body is an expression tree. Recursion goes through
 * `ref` only. Text is UTF-8: `bytes` are raw bytes, `class` and `text` match whole code points.
 */
import { GrammarError, InvalidArgumentError } from "../errors.js";
import { BytePool } from "./ir-byte-pool.js";
import {
  deserializeTokenNode, printTokenNode, serializeTokenNode, TOKEN_KIND_CODE, validateTokenNode, type IrTokenNode,
} from "./ir-tokens.js";

export type { IrAnyTokens, IrExcludeToken, IrToken, IrTokenNode, IrTokenRef } from "./ir-tokens.js";
export { anyTokens, excludeToken, token } from "./ir-tokens.js";

/** The binary format version written by {@link serializeGrammar}. */
export const IR_VERSION = 1;
/** "TMIR" read as a little-endian u32. */
export const IR_MAGIC = 0x52494d54;
/** Marks an unbounded `repeat` max, or an absent `text` limit, in the binary form. */
export const IR_NONE = 0xffffffff;
/** The largest Unicode code point. */
export const MAX_CODE_POINT = 0x10ffff;

/** The empty string. */
export interface IrEmpty {
  kind: "empty";
}
/** Matches nothing (an empty choice). */
export interface IrNever {
  kind: "never";
}
/** Exactly these bytes (at least one). */
export interface IrBytes {
  kind: "bytes";
  bytes: Uint8Array;
}
/**
 * One code point (UTF-8 encoded) in the sorted, non-overlapping inclusive `ranges`, or with
 * `negated` one code point in none of them. Surrogates (U+D800–U+DFFF) never match.
 */
export interface IrClass {
  kind: "class";
  ranges: ReadonlyArray<readonly [number, number]>;
  negated: boolean;
}
/** Each item in turn. */
export interface IrSeq {
  kind: "seq";
  items: IrExpr[];
}
/** Any one of the items. */
export interface IrChoice {
  kind: "choice";
  items: IrExpr[];
}
/** Between `min` and `max` repetitions of `item`; `max` null means unbounded. */
export interface IrRepeat {
  kind: "repeat";
  item: IrExpr;
  min: number;
  max: number | null;
}
/** The body of rule number `rule`. */
export interface IrRef {
  kind: "ref";
  rule: number;
}
/**
 * Any sequence of code points (valid UTF-8, possibly empty) in which no string of `excludes`
 * occurs as a byte substring, of at most `maxChars` code points. `maxTokens` bounds how many
 * tokens may consume bytes of one occurrence of this text; only the matcher enforces it.
 */
export interface IrText {
  kind: "text";
  excludes: Uint8Array[];
  maxChars: number | null;
  maxTokens: number | null;
}

/**
 * Matches what `item` matches, restricted to the matches that hold between `min` and `max`
 * (null: unbounded) `unit` nodes: those met anywhere in the derivation of the item (through
 * references too), except inside nested `counted` nodes, which count their own. The engine keeps
 * the count in the matcher instead of multiplying states (docs/engine.md, "Counted repetition");
 * `repeat` is the special case of an item repeated as a whole.
 */
export interface IrCounted {
  kind: "counted";
  item: IrExpr;
  min: number;
  max: number | null;
}
/** Matches what `item` matches (never the empty string) and counts one for the innermost `counted` around it. */
export interface IrUnit {
  kind: "unit";
  item: IrExpr;
}

/**
 * Matches what `item` matches, restricted to the matches whose `mark` nodes (met anywhere in the
 * derivation of the item, through references too, except inside nested `marks` nodes, which hold
 * their own) carry pairwise different indices, and include every index of `required`. The engine
 * keeps the used indices in the matcher (docs/engine.md, "Marks"): an object whose members may
 * come in any order is a loop over its members with one mark per name, not an automaton over the
 * subsets of its names.
 */
export interface IrMarks {
  kind: "marks";
  item: IrExpr;
  /** Indices (0..31) that must be used, sorted. */
  required: number[];
}
/** Matches what `item` matches (never the empty string) and uses mark `index` (0..31) of the innermost `marks` around it. */
export interface IrMark {
  kind: "mark";
  item: IrExpr;
  index: number;
}

/** The most marks one `marks` node holds. */
export const MAX_MARKS = 32;

/**
 * Matches what `item` matches, restricted to the matches whose digits folded by its `rdigit`
 * nodes (met on its own level: inline, not through recursion), read as one decimal number, are a
 * multiple of `modulus` (odd, not a multiple of 5, 3..2^31-1). The engine keeps the remainder in
 * the matcher instead of one state per remainder (docs/json-schema.md, "The remainder counter").
 */
export interface IrResidue {
  kind: "residue";
  item: IrExpr;
  modulus: number;
}
/**
 * The byte `'0' + digit`, folding the digit into the remainder of the innermost `residue` (r = (10·r
 * + digit) mod modulus), then, unless `budget` is null, requiring that r can still end as a multiple
 * with at most `budget` more free digits (see {@link residueAlive}).
 */
export interface IrResidueDigit {
  kind: "rdigit";
  digit: number;
  budget: number | null;
  modulus: number;
}
/** The empty string, requiring the remainder of the innermost `residue` alive with `budget` free digits. */
export interface IrResidueLive {
  kind: "rlive";
  budget: number;
  modulus: number;
}
/** The largest budget of an `rdigit` / `rlive` node. */
export const MAX_RESIDUE_BUDGET = 254;
/** The largest modulus of a `residue` node. */
export const MAX_RESIDUE_MODULUS = 0x7fffffff;

/**
 * Whether remainder r (mod m) can still become 0 with at most `budget` more free digits, then only
 * zeros or the end: for some t ≤ budget, (−r·10^t) mod m < 10^t.
 */
export function residueAlive(r: number, m: number, budget: number): boolean {
  let p = 1n;
  let x = BigInt(r);
  const mm = BigInt(m);
  for (let t = 0; t <= budget; t++) {
    if (p >= mm) return true;
    if ((x === 0n ? 0n : mm - x) < p) return true;
    p *= 10n;
    x = (x * 10n) % mm;
  }
  return false;
}

export type IrExpr = IrEmpty | IrNever | IrBytes | IrClass | IrSeq | IrChoice | IrRepeat | IrRef | IrText | IrCounted | IrUnit | IrMarks | IrMark | IrResidue | IrResidueDigit | IrResidueLive | IrTokenNode;
export type IrKind = IrExpr["kind"];

export interface IrRule {
  name: string;
  body: IrExpr;
}

/** A grammar: rules, and the index of the rule the whole output must match. */
export interface IrGrammar {
  rules: IrRule[];
  root: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  // Short ASCII text (JSON punctuation, keys, tags) byte by byte: the encoder's call costs more.
  const n = text.length;
  if (n <= 64) {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) return encoder.encode(text);
      out[i] = c;
    }
    return out;
  }
  return encoder.encode(text);
}

// ---- constructors ---------------------------------------------------------------------------

export const empty = (): IrEmpty => ({ kind: "empty" });
export const never = (): IrNever => ({ kind: "never" });
/** A literal: the UTF-8 bytes of a string, or raw bytes. The empty literal is `empty`. */
export function lit(value: string | Uint8Array): IrBytes | IrEmpty {
  const bytes = typeof value === "string" ? utf8(value) : value;
  return bytes.length === 0 ? empty() : { kind: "bytes", bytes };
}
export const seq = (...items: IrExpr[]): IrSeq => ({ kind: "seq", items });
export const choice = (...items: IrExpr[]): IrChoice => ({ kind: "choice", items });
export const repeat = (item: IrExpr, min: number, max: number | null): IrRepeat => ({ kind: "repeat", item, min, max });
export const optional = (item: IrExpr): IrRepeat => repeat(item, 0, 1);
export const star = (item: IrExpr): IrRepeat => repeat(item, 0, null);
export const plus = (item: IrExpr): IrRepeat => repeat(item, 1, null);
export const ref = (rule: number): IrRef => ({ kind: "ref", rule });
/** Matches of `item` holding between `min` and `max` (null: unbounded) units (see {@link IrCounted}). */
export const counted = (item: IrExpr, min: number, max: number | null): IrCounted => ({ kind: "counted", item, min, max });
/** One counted unit (see {@link IrUnit}). */
export const unit = (item: IrExpr): IrUnit => ({ kind: "unit", item });
/** Matches of `item` whose marks differ and include `required` (see {@link IrMarks}). */
export const marks = (item: IrExpr, required: readonly number[] = []): IrMarks => ({
  kind: "marks", item, required: [...new Set(required)].sort((x, y) => x - y),
});
/** Uses mark `index` (see {@link IrMark}). */
export const mark = (index: number, item: IrExpr): IrMark => ({ kind: "mark", item, index });
/** Matches of `item` whose folded digits are a multiple of `modulus` (see {@link IrResidue}). */
export const residue = (item: IrExpr, modulus: number): IrResidue => ({ kind: "residue", item, modulus });
/** A digit folded into the remainder (see {@link IrResidueDigit}). */
export const rdigit = (digit: number, modulus: number, budget: number | null = null): IrResidueDigit => ({ kind: "rdigit", digit, budget, modulus });
/** A liveness check of the remainder (see {@link IrResidueLive}). */
export const rlive = (modulus: number, budget: number): IrResidueLive => ({ kind: "rlive", budget, modulus });

/**
 * A code-point class. Ranges may be given unsorted and overlapping; they are normalized.
 * Single code points may be given as numbers.
 */
export function charClass(ranges: Iterable<readonly [number, number] | number>, negated = false): IrClass {
  return { kind: "class", ranges: normalizeRanges(ranges), negated };
}

/** Any text excluding the given strings (see {@link IrText}). */
export function text(excludes: ReadonlyArray<string | Uint8Array> = [], limits: { maxChars?: number | null; maxTokens?: number | null } = {}): IrText {
  const ex = excludes.map((e) => (typeof e === "string" ? utf8(e) : e));
  return { kind: "text", excludes: ex, maxChars: limits.maxChars ?? null, maxTokens: limits.maxTokens ?? null };
}

/** Sorts and merges code-point ranges. */
export function normalizeRanges(ranges: Iterable<readonly [number, number] | number>): Array<[number, number]> {
  const list: Array<[number, number]> = [];
  for (const r of ranges) {
    const [lo, hi] = typeof r === "number" ? [r, r] : r;
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo < 0 || hi > MAX_CODE_POINT || lo > hi) {
      throw new GrammarError(`invalid code-point range [${lo}, ${hi}]: expected 0 <= lo <= hi <= 0x10FFFF`);
    }
    list.push([lo, hi]);
  }
  list.sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of list) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

// ---- building grammars with named rules ------------------------------------------------------

/**
 * Builds a grammar whose rules refer to each other by name. `ruleRef(name)` may be used before
 * the rule is defined; `build()` checks every referenced rule was defined.
 *
 * @example
 * const b = new GrammarBuilder();
 * b.define("root", seq(lit("["), optional(b.ruleRef("item")), lit("]")));
 * b.define("item", plus(charClass([[0x61, 0x7a]])));
 * const grammar = b.build("root");
 */
export class GrammarBuilder {
  private readonly names: string[] = [];
  private readonly bodies: Array<IrExpr | undefined> = [];
  private readonly index = new Map<string, number>();
  /** Per base name, the suffix from which {@link freshName} searches (every smaller one is taken). */
  private readonly nextSuffix = new Map<string, number>();
  /** The base each suffixed {@link freshName} result was derived from. */
  private readonly bases = new Map<string, string>();
  /** Names taken without a rule (see {@link reserveName}). */
  private readonly reserved = new Set<string>();

  /** A reference to the rule `name`, defined now or later. */
  ruleRef(name: string): IrRef {
    return ref(this.slot(name));
  }

  /** Whether a rule of this name was defined. */
  has(name: string): boolean {
    const i = this.index.get(name);
    return i !== undefined && this.bodies[i] !== undefined;
  }

  /** Defines rule `name` (once). Returns a reference to it. */
  define(name: string, body: IrExpr): IrRef {
    const i = this.slot(name);
    if (this.bodies[i] !== undefined) throw new GrammarError(`rule '${name}' is defined twice`);
    this.bodies[i] = body;
    return ref(i);
  }

  /**
   * Takes `name` (a {@link freshName} result) without making it a rule: a part lowered in place
   * that could have been a rule of that name keeps the names of the rules after it as they were.
   */
  reserveName(name: string): void {
    this.reserved.add(name);
  }

  /**
   * A rule under a name no other rule has and no {@link freshName} gives (it is not printable),
   * for a rule the caller drops before the grammar is built: it takes no name from the rules
   * named after it, and costs no search for a free suffix.
   */
  placeholder(body: IrExpr): IrRef {
    return this.define(`\u0000${this.names.length}`, body);
  }

  /** A rule name not used yet, derived from `base` (`base`, `base_1`, `base_2`, ...). */
  freshName(base: string): string {
    if (!this.taken(base)) return base;
    // Names are never removed, so a suffix found taken stays taken: searching on from the last
    // one keeps n rules of one base linear instead of quadratic.
    for (let n = this.nextSuffix.get(base) ?? 1; ; n++) {
      const name = `${base}_${n}`;
      if (!this.taken(name)) {
        this.nextSuffix.set(base, n);
        this.bases.set(name, base);
        return name;
      }
    }
  }

  /** The name {@link freshName} derived `name` from (`name` itself when it was not derived). */
  baseName(name: string): string {
    return this.bases.get(name) ?? name;
  }

  /**
   * The rules so far, in order (a grammar without a root yet, e.g. a piece of one). Throws like
   * {@link build} when a referenced rule is not defined.
   */
  rules(): IrRule[] {
    return this.names.map((name, i) => {
      const body = this.bodies[i];
      if (body === undefined) throw new GrammarError(`rule '${name}' is referenced but not defined`);
      return { name, body };
    });
  }

  /** The finished grammar with `root` as its root rule. */
  build(root: string): IrGrammar {
    const rootIndex = this.index.get(root);
    if (rootIndex === undefined || this.bodies[rootIndex] === undefined) {
      throw new GrammarError(`the root rule '${root}' is not defined`);
    }
    return { rules: this.rules(), root: rootIndex };
  }

  private taken(name: string): boolean {
    return this.index.has(name) || (this.reserved.size > 0 && this.reserved.has(name));
  }

  private slot(name: string): number {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.names.push(name);
      this.bodies.push(undefined);
      this.index.set(name, i);
    }
    return i;
  }
}

// ---- validation ------------------------------------------------------------------------------

function fail(where: string, message: string): never {
  throw new GrammarError(`invalid grammar IR at ${where}: ${message}`);
}

function checkCount(where: () => string, value: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value >= IR_NONE) fail(where(), `${what} must be an integer in [0, 2^32-1), got ${value}`);
}

/**
 * Grammars checked already, with the rule list they had then: serializing a grammar the lowering
 * just checked (the usual path: lowerFormat, then compile) does not walk its tens of thousands of
 * nodes again. A grammar whose rule list or root changed since is checked again; IR nodes are
 * never changed in place (their fields are read-only).
 */
const validated = new WeakMap<IrGrammar, { root: number; rules: IrRule[]; bodies: IrExpr[]; names: string[] }>();

function isValidated(grammar: IrGrammar): boolean {
  const v = validated.get(grammar);
  if (v === undefined || v.root !== grammar.root || v.rules !== grammar.rules || v.bodies.length !== grammar.rules.length) return false;
  for (let i = 0; i < v.bodies.length; i++) {
    const rule = grammar.rules[i]!;
    if (rule.body !== v.bodies[i] || rule.name !== v.names[i]) return false;
  }
  return true;
}

/**
 * {@link validateGrammar}, unless this grammar was checked before and its rules are unchanged.
 * The bodies of rules in `trusted` were checked before (see {@link validateExpressions}): only
 * their heads are.
 */
export function validateGrammarOnce(grammar: IrGrammar, trusted?: ReadonlySet<IrExpr>): void {
  if (isValidated(grammar)) return;
  validateGrammar(grammar, trusted);
  markValidated(grammar);
}

function markValidated(grammar: IrGrammar): void {
  validated.set(grammar, { root: grammar.root, rules: grammar.rules, bodies: grammar.rules.map((r) => r.body), names: grammar.rules.map((r) => r.name) });
}

/**
 * How deep expressions may nest (a node inside a node ...). The compilers here stay far below it
 * (they name sub-grammars as rules); it bounds the recursion of every pass over a grammar, in
 * TypeScript and natively, so that an IR built by hand cannot overflow a stack.
 */
export const MAX_IR_NESTING = 1000;

const KINDS = new Set<string>(["empty", "never", "bytes", "class", "seq", "choice", "repeat", "counted", "unit", "marks", "mark", "residue", "rdigit", "rlive", "ref", "text", "token", "excludeToken", "anyTokens"]);

function describeValue(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `${typeof v} ${String(v).slice(0, 40)}`;
}

/** Checks one node's own fields (not its children); throws a GrammarError naming it. */
function checkNode(e: IrExpr, where: () => string, ruleCount: number): void {
  switch (e.kind) {
    case "empty":
    case "never":
      return;
    case "bytes":
      if (!(e.bytes instanceof Uint8Array)) fail(where(), `a bytes node needs a Uint8Array, got ${describeValue(e.bytes)}`);
      if (e.bytes.length === 0) fail(where(), "a bytes node needs at least one byte (use empty)");
      return;
    case "class": {
      if (!Array.isArray(e.ranges) || e.ranges.length === 0) fail(where(), "a class needs at least one range");
      let prev = -2;
      for (const range of e.ranges) {
        const [lo, hi] = Array.isArray(range) ? range : [Number.NaN, Number.NaN];
        if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo >= 0 && lo <= hi && hi <= MAX_CODE_POINT)) {
          fail(where(), `bad code-point range [${lo}, ${hi}]`);
        }
        if (lo <= prev + 1) fail(where(), "class ranges must be sorted, non-overlapping and non-adjacent");
        prev = hi;
      }
      return;
    }
    case "seq":
    case "choice":
      if (!Array.isArray(e.items)) fail(where(), `a ${e.kind} node needs an items array, got ${describeValue(e.items)}`);
      return;
    case "repeat":
    case "counted":
      checkCount(where, e.min, `${e.kind} min`);
      if (e.max !== null) {
        checkCount(where, e.max, `${e.kind} max`);
        if (e.max < e.min) fail(where(), `${e.kind} max ${e.max} is below min ${e.min}`);
      }
      return;
    case "unit":
      return;
    case "marks":
      if (!Array.isArray(e.required)) fail(where(), `a marks node needs a required array, got ${describeValue(e.required)}`);
      for (const i of e.required) {
        if (!Number.isInteger(i) || i < 0 || i >= MAX_MARKS) fail(where(), `required mark ${i} is not an integer 0..${MAX_MARKS - 1}`);
      }
      return;
    case "mark":
      if (!Number.isInteger(e.index) || e.index < 0 || e.index >= MAX_MARKS) fail(where(), `mark index ${e.index} is not an integer 0..${MAX_MARKS - 1}`);
      return;
    case "residue":
    case "rdigit":
    case "rlive":
      if (!Number.isInteger(e.modulus) || e.modulus < 3 || e.modulus > MAX_RESIDUE_MODULUS || e.modulus % 2 === 0 || e.modulus % 5 === 0) {
        fail(where(), `${e.kind} modulus ${e.modulus} is not an integer 3..2^31-1 coprime to 10`);
      }
      if (e.kind === "rdigit" && !(Number.isInteger(e.digit) && e.digit >= 0 && e.digit <= 9)) fail(where(), `rdigit digit ${e.digit} is not 0..9`);
      if (e.kind !== "residue" && !(e.budget === null && e.kind === "rdigit") && !(Number.isInteger(e.budget) && e.budget! >= 0 && e.budget! <= MAX_RESIDUE_BUDGET)) {
        fail(where(), `${e.kind} budget ${e.budget} is not an integer 0..${MAX_RESIDUE_BUDGET}`);
      }
      return;
    case "ref":
      if (!Number.isInteger(e.rule) || e.rule < 0 || e.rule >= ruleCount) {
        fail(where(), `reference to rule ${e.rule}, which does not exist`);
      }
      return;
    case "text":
      if (!Array.isArray(e.excludes)) fail(where(), `a text node needs an excludes array, got ${describeValue(e.excludes)}`);
      e.excludes.forEach((x, i) => {
        if (!(x instanceof Uint8Array)) fail(`${where()}.excludes[${i}]`, `an excluded string must be a Uint8Array, got ${describeValue(x)}`);
        if (x.length === 0) fail(`${where()}.excludes[${i}]`, "an excluded string must not be empty");
      });
      if (e.maxChars !== null) checkCount(where, e.maxChars, "maxChars");
      if (e.maxTokens !== null) checkCount(where, e.maxTokens, "maxTokens");
      return;
    case "token":
    case "excludeToken":
    case "anyTokens":
      if (!Array.isArray(e.kind === "token" ? e.tokens : e.excludes)) {
        fail(where(), `a ${e.kind} node needs an array of token ids or texts, got ${describeValue(e.kind === "token" ? e.tokens : e.excludes)}`);
      }
      validateTokenNode(e, where());
      return;
  }
}

/** The children of a node, in order. */
function childrenOf(e: IrExpr): readonly IrExpr[] {
  switch (e.kind) {
    case "seq":
    case "choice":
      return e.items;
    case "repeat":
    case "counted":
    case "unit":
    case "marks":
    case "mark":
    case "residue":
      return [e.item];
    default:
      return [];
  }
}

/** The grammar's own fields (not its rules); throws a GrammarError naming the one that is wrong. */
function checkGrammarHead(grammar: IrGrammar): void {
  if (grammar === null || typeof grammar !== "object") fail("grammar", `expected a grammar object {rules, root}, got ${describeValue(grammar)}`);
  if (!Array.isArray(grammar.rules)) fail("rules", `expected an array of rules, got ${describeValue(grammar.rules)}`);
  if (grammar.rules.length === 0) fail("rules", "a grammar needs at least one rule");
  if (!Number.isInteger(grammar.root) || grammar.root < 0 || grammar.root >= grammar.rules.length) {
    fail("root", `root must index a rule (0..${grammar.rules.length - 1}), got ${grammar.root}`);
  }
}

/** A rule's shape and name (distinct from the names in `seen`, to which it is added). */
function checkRuleHead(rule: unknown, ruleAt: string, seen: Set<string>): IrRule {
  if (rule === null || typeof rule !== "object") fail(ruleAt, `expected a rule {name, body}, got ${describeValue(rule)}`);
  const { name } = rule as IrRule;
  if (typeof name !== "string") fail(ruleAt, `a rule name must be a string, got ${describeValue(name)}`);
  if (seen.has(name)) fail(ruleAt, `duplicate rule name '${name}'`);
  seen.add(name);
  return rule as IrRule;
}

/** That `e` is an expression node of a known kind. */
function checkKind(e: unknown, where: () => string): void {
  if (e === null || typeof e !== "object" || !KINDS.has((e as { kind?: unknown }).kind as string)) {
    fail(where(), `expected an expression node, got ${e !== null && typeof e === "object" ? `kind ${JSON.stringify((e as { kind?: unknown }).kind)}` : describeValue(e)}`);
  }
}

/**
 * Checks the structural rules docs/ir.md states, and that expressions nest at most
 * {@link MAX_IR_NESTING} deep; throws a GrammarError naming the node. Walks iteratively, each
 * shared node once.
 */
export function validateGrammar(grammar: IrGrammar, trusted?: ReadonlySet<IrExpr>): void {
  checkGrammarHead(grammar);
  const ruleCount = grammar.rules.length;
  const seen = new Set<string>();
  const depthOf = new Map<IrExpr, number>();
  grammar.rules.forEach((rule: unknown, r) => {
    const ruleAt = `rules[${r}]`;
    const { name, body } = checkRuleHead(rule, ruleAt, seen);
    if (trusted === undefined || !trusted.has(body)) checkBody(body, () => `${ruleAt} (${name})`, ruleCount, depthOf);
  });
}

/**
 * Checks expressions as {@link validateGrammar} checks rule bodies, for a grammar of `ruleCount`
 * rules: the rules of a lowered fragment before it is kept (fragments.ts), which are then
 * trusted where the fragment is copied (its references renumbered to rules that exist).
 */
export function validateExpressions(bodies: readonly IrExpr[], ruleCount: number, where: (i: number) => string): void {
  const depthOf = new Map<IrExpr, number>();
  bodies.forEach((body, i) => checkBody(body, () => where(i), ruleCount, depthOf));
}

/**
 * One rule body: each node's fields, references below `ruleCount`, no cycle, nesting at most
 * MAX_IR_NESTING. `depthOf` is shared by the bodies of one grammar (see validateGrammar).
 */
function checkBody(body: IrExpr, ruleWhere: () => string, ruleCount: number, depthOf: Map<IrExpr, number>): void {
  // Nodes may be shared (a DAG): check each node once, or a heavily shared grammar costs
  // exponential time. `depthOf` is the deepest nesting below a node (0: a leaf), or ON_PATH while
  // the node is being walked (one map for both: this walk runs over every lowered grammar). A
  // node's path is spelled out only for an error message, from the child indices on the stack.
  const ON_PATH = -1;
  // The path being walked: its nodes, the next child of each, the deepest nesting below each so far.
  const nodes: IrExpr[] = [];
  const next: number[] = [];
  const depth: number[] = [];
  const where = (): string =>
    `${ruleWhere()}${nodes.map((e, i) => (e.kind === "seq" || e.kind === "choice" ? `.items[${next[i]! - 1}]` : ".item")).join("")}`;
  const below = (d: number): void => {
    const top = nodes.length - 1;
    if (top >= 0 && depth[top]! < d) depth[top] = d;
  };
  const enter = (e: unknown): void => {
    checkKind(e, where);
    const node = e as IrExpr;
    // A leaf is checked where it stands, without the depth map: leaves are half the nodes of a
    // lowered grammar, and checking one again costs less than two map operations.
    if (childCount(node) === 0) {
      if (nodes.length >= MAX_IR_NESTING) fail(where(), `expressions nest more than ${MAX_IR_NESTING} deep; name inner parts as rules`);
      checkNode(node, where, ruleCount);
      below(1);
      return;
    }
    const known = depthOf.get(node);
    if (known === ON_PATH) fail(where(), "an expression contains itself (use a rule reference for recursion)");
    if (known !== undefined) {
      if (nodes.length + known > MAX_IR_NESTING) fail(where(), `expressions nest more than ${MAX_IR_NESTING} deep; name inner parts as rules`);
      below(known + 1);
      return;
    }
    if (nodes.length >= MAX_IR_NESTING) fail(where(), `expressions nest more than ${MAX_IR_NESTING} deep; name inner parts as rules`);
    checkNode(node, where, ruleCount);
    depthOf.set(node, ON_PATH);
    nodes.push(node);
    next.push(0);
    depth.push(0);
  };
  enter(body);
  while (nodes.length > 0) {
    const top = nodes.length - 1;
    const e = nodes[top]!;
    const k = next[top]!;
    if (k < childCount(e)) {
      next[top] = k + 1;
      enter(e.kind === "seq" || e.kind === "choice" ? e.items[k] : (e as IrWithItem).item);
      continue;
    }
    const d = depth[top]!;
    nodes.pop();
    next.pop();
    depth.pop();
    depthOf.set(e, d);
    below(d + 1);
  }
}

type IrWithItem = IrRepeat | IrCounted | IrUnit | IrMarks | IrMark | IrResidue;

/** How many children a node has (its items, or its one item). */
function childCount(e: IrExpr): number {
  switch (e.kind) {
    case "seq":
    case "choice":
      return e.items.length;
    case "repeat":
    case "counted":
    case "unit":
    case "marks":
    case "mark":
    case "residue":
      return 1;
    default:
      return 0;
  }
}

// ---- binary serialization --------------------------------------------------------------------

const KIND_CODE: Record<IrKind, number> = {
  empty: 0,
  never: 1,
  bytes: 2,
  class: 3,
  seq: 4,
  choice: 5,
  repeat: 6,
  ref: 7,
  text: 8,
  counted: 9,
  unit: 10,
  marks: 11,
  mark: 12,
  residue: 13,
  rdigit: 14,
  rlive: 15,
  ...TOKEN_KIND_CODE,
};

/** A growable array of u32 words. */
class Words {
  data = new Uint32Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) this.grow(1);
    this.data[this.length++] = v;
  }

  reserve(n: number): void {
    if (this.length + n > this.data.length) this.grow(n);
  }

  private grow(n: number): void {
    const next = new Uint32Array(Math.max(this.data.length * 2, this.length + n));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}

/** Node kinds by their binary code. */
const KIND_OF_CODE = new Map<number, IrKind>(Object.entries(KIND_CODE).map(([kind, code]) => [code, kind as IrKind]));

/**
 * The binary form the addon reads (docs/ir.md, "Serialization"): a header, rules, nodes in
 * post-order (children before parents), an extra u32 pool and a byte pool. Leaves with equal
 * content (literals, classes, texts) are written once, however many nodes hold them: lowered
 * tool lists repeat the same JSON string and key classes in every tool.
 */
export function serializeGrammar(grammar: IrGrammar): Uint8Array {
  const nodes = new Words();
  const extra = new Words();
  const pool = new BytePool();
  const addBytes = (b: Uint8Array): number => pool.add(b);
  const leafIds = new Map<string, number>();
  // Written in place (no call per word): this runs once per node of grammars of 10^5 nodes.
  const node = (kind: IrKind, a: number, b: number, c: number): number => {
    const at = nodes.length;
    nodes.reserve(4);
    const data = nodes.data;
    data[at] = KIND_CODE[kind];
    data[at + 1] = a;
    data[at + 2] = b;
    data[at + 3] = c;
    nodes.length = at + 4;
    return at / 4;
  };
  const memo = new Map<IrExpr, number>();
  // One node's record; its children have theirs already (post-order, see emit).
  const emitOne = (e: IrExpr): number => {
    let id: number;
    switch (e.kind) {
      case "bytes": {
        // Adding content already in the pool changes nothing: a leaf seen before finds its offset.
        const off = addBytes(e.bytes);
        const shared = pool.lastTag();
        if (shared >= 0) {
          id = shared;
          break;
        }
        id = node("bytes", off, e.bytes.length, 0);
        pool.setLastTag(id);
        break;
      }
      case "empty":
      case "never":
      case "class":
      case "text": {
        const key = leafKey(e);
        const shared = leafIds.get(key);
        if (shared !== undefined) {
          id = shared;
          break;
        }
        if (e.kind === "class") {
          const at = extra.length;
          for (const [lo, hi] of e.ranges) {
            extra.push(lo);
            extra.push(hi);
          }
          id = node("class", at, e.ranges.length, e.negated ? 1 : 0);
        } else if (e.kind === "text") {
          const offs = e.excludes.map((x) => addBytes(x));
          const at = extra.length;
          extra.push(e.maxChars ?? IR_NONE);
          extra.push(e.maxTokens ?? IR_NONE);
          e.excludes.forEach((x, i) => {
            extra.push(offs[i]!);
            extra.push(x.length);
          });
          id = node("text", at, e.excludes.length, 0);
        } else {
          id = node(e.kind, 0, 0, 0);
        }
        leafIds.set(key, id);
        break;
      }
      case "seq":
      case "choice": {
        const at = extra.length;
        const items = e.items;
        extra.reserve(items.length);
        const data = extra.data;
        for (let i = 0; i < items.length; i++) data[at + i] = memo.get(items[i]!)!;
        extra.length = at + items.length;
        id = node(e.kind, at, items.length, 0);
        break;
      }
      case "repeat":
      case "counted":
        id = node(e.kind, memo.get(e.item)!, e.min, e.max === null ? IR_NONE : e.max);
        break;
      case "unit":
        id = node("unit", memo.get(e.item)!, 0, 0);
        break;
      case "marks":
        id = node("marks", memo.get(e.item)!, e.required.reduce((m, i) => (m | (1 << i)) >>> 0, 0), 0);
        break;
      case "mark":
        id = node("mark", memo.get(e.item)!, e.index, 0);
        break;
      case "residue":
        id = node("residue", memo.get(e.item)!, e.modulus, 0);
        break;
      case "rdigit":
        id = node("rdigit", e.digit, e.budget === null ? IR_NONE : e.budget, e.modulus);
        break;
      case "rlive":
        id = node("rlive", 0, e.budget, e.modulus);
        break;
      case "ref":
        id = node("ref", e.rule, 0, 0);
        break;
      case "token":
      case "excludeToken":
      case "anyTokens": {
        const words: number[] = [];
        const [a, b, c] = serializeTokenNode(e, words, (x) => addBytes(x), IR_NONE);
        const at = extra.length;
        for (const w of words) extra.push(w);
        id = node(e.kind, at + a, b, c);
        break;
      }
    }
    memo.set(e, id);
    return id;
  };
  // A grammar not checked before is checked as it is written, in the one walk (the checks and
  // their order are validateGrammar's): `memo` holds ON_PATH while a node is being walked, and
  // `depths` the deepest nesting below each node id.
  const check = !isValidated(grammar);
  if (check) checkGrammarHead(grammar);
  const ruleCount = grammar.rules.length;
  const seen = new Set<string>();
  const ON_PATH = -1;
  const depths: number[] = [];
  // Post-order without a record per visit: a node is pushed only when not yet emitted, and a
  // node pushed once is emitted before its parent looks at its next child, so no node is
  // pushed twice.
  const emit = (root: IrExpr, ruleAt: string, name: string): number => {
    const path: IrExpr[] = [];
    const next: number[] = [];
    /** While checking: the deepest nesting below each node on the path so far. */
    const depth: number[] = [];
    const where = (): string =>
      `${ruleAt} (${name})${path.map((e, i) => (e.kind === "seq" || e.kind === "choice" ? `.items[${next[i]! - 1}]` : ".item")).join("")}`;
    const below = (d: number): void => {
      const top = depth.length - 1;
      if (top >= 0 && depth[top]! < d) depth[top] = d;
    };
    /** Checks a node not met before and puts it on the path. */
    const enter = (e: IrExpr): void => {
      if (check) {
        if (path.length >= MAX_IR_NESTING) fail(where(), `expressions nest more than ${MAX_IR_NESTING} deep; name inner parts as rules`);
        checkNode(e, where, ruleCount);
        memo.set(e, ON_PATH);
        depth.push(0);
      }
      path.push(e);
      next.push(0);
    };
    if (check) checkKind(root, where);
    const known = memo.get(root);
    if (known !== undefined) return known;
    enter(root);
    while (path.length > 0) {
      const top = path.length - 1;
      const e = path[top]!;
      const k = next[top]!;
      if (k < childCount(e)) {
        next[top] = k + 1;
        const child = e.kind === "seq" || e.kind === "choice" ? e.items[k]! : (e as IrWithItem).item;
        const id = memo.get(child);
        if (id === undefined) {
          if (check) checkKind(child, where);
          enter(child);
        } else if (check) {
          if (id === ON_PATH) fail(where(), "an expression contains itself (use a rule reference for recursion)");
          const d = depths[id]!;
          if (path.length + d > MAX_IR_NESTING) fail(where(), `expressions nest more than ${MAX_IR_NESTING} deep; name inner parts as rules`);
          below(d + 1);
        }
        continue;
      }
      path.pop();
      next.pop();
      const id = emitOne(e);
      if (check) {
        const d = depth.pop()!;
        // Leaves of equal content share an id; their nesting is 0 either way.
        depths[id] = d;
        below(d + 1);
      }
    }
    return memo.get(root)!;
  };
  const ruleWords: number[] = [];
  for (let r = 0; r < ruleCount; r++) {
    const ruleAt = `rules[${r}]`;
    const rule = check ? checkRuleHead(grammar.rules[r], ruleAt, seen) : grammar.rules[r]!;
    const body = emit(rule.body, ruleAt, rule.name);
    const name = utf8(rule.name);
    ruleWords.push(pool.append(name), name.length, body);
  }
  if (check) markValidated(grammar);
  const nodeCount = nodes.length / 4;
  const byteLength = pool.length;
  const header = [IR_MAGIC, IR_VERSION, grammar.rules.length, grammar.root, nodeCount, extra.length, byteLength, 0];
  const words = header.length + ruleWords.length + nodes.length + extra.length;
  const out = new Uint8Array(words * 4 + ((byteLength + 3) & ~3));
  const head = [...header, ...ruleWords];
  if (LITTLE_ENDIAN) {
    // The format is little-endian, as the host: the word arrays are copied as they are.
    const u32 = new Uint32Array(out.buffer, 0, words);
    u32.set(head);
    u32.set(nodes.data.subarray(0, nodes.length), head.length);
    u32.set(extra.data.subarray(0, extra.length), head.length + nodes.length);
  } else {
    const view = new DataView(out.buffer);
    let w = 0;
    for (const v of head) view.setUint32(4 * w++, v >>> 0, true);
    for (const list of [nodes, extra]) {
      for (let i = 0; i < list.length; i++) view.setUint32(4 * w++, list.data[i]!, true);
    }
  }
  out.set(pool.bytes.subarray(0, byteLength), words * 4);
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Bytes as a string of the same length (one char per byte): an exact, compact map key. Short
 * ones skip the Buffer view a decode needs.
 */
export function latin1Key(b: Uint8Array): string {
  if (b.length <= 32) {
    let s = "";
    for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
    return s;
  }
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("latin1");
}

/** The content of a leaf node as a string: equal leaves, equal keys. */
function leafKey(e: IrEmpty | IrNever | IrClass | IrText): string {
  switch (e.kind) {
    case "empty":
    case "never":
      return e.kind;
    case "class":
      return `c${e.negated ? "^" : ""}${e.ranges.join(",")}`;
    case "text":
      return `t${e.maxChars},${e.maxTokens},${e.excludes.map((x) => `${x.length}:${latin1Key(x)}`).join("")}`;
  }
}

/** Reads the binary form back (the inverse of {@link serializeGrammar}); validates as it goes. */
export function deserializeGrammar(buffer: Uint8Array): IrGrammar {
  if (!(buffer instanceof Uint8Array)) {
    throw new InvalidArgumentError(`deserializeGrammar(buffer): buffer must be a Uint8Array (from serializeGrammar), got ${describeValue(buffer)}`);
  }
  if (buffer.length < 32 || buffer.length % 4 !== 0) {
    fail("header", `buffer length ${buffer.length} is not a whole number of u32 words of at least 32 bytes`);
  }
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const u32 = (word: number): number => view.getUint32(word * 4, true);
  if (u32(0) !== IR_MAGIC) fail("header", "bad magic (not a tagmask grammar IR buffer)");
  if (u32(1) !== IR_VERSION) fail("header", `unsupported IR version ${u32(1)} (this build reads ${IR_VERSION})`);
  const [ruleCount, root, nodeCount, extraCount, byteCount, flags] = [u32(2), u32(3), u32(4), u32(5), u32(6), u32(7)];
  if (flags !== 0) fail("header", "reserved flags must be 0");
  const rulesAt = 8;
  const nodesAt = rulesAt + ruleCount * 3;
  const extraAt = nodesAt + nodeCount * 4;
  const bytesAt = (extraAt + extraCount) * 4;
  const expected = bytesAt + ((byteCount + 3) & ~3);
  if (expected !== buffer.length) fail("header", `counts describe ${expected} bytes but the buffer has ${buffer.length}`);
  const bytesSlice = (off: number, len: number, where: string): Uint8Array => {
    if (off + len > byteCount) fail(where, "byte range past the end of the byte pool");
    return buffer.slice(bytesAt + off, bytesAt + off + len);
  };
  const extraWord = (i: number, where: string): number => {
    if (i >= extraCount) fail(where, "index past the end of the extra pool");
    return u32(extraAt + i);
  };
  const exprs: IrExpr[] = [];
  for (let id = 0; id < nodeCount; id++) {
    const where = `node ${id}`;
    const base = nodesAt + id * 4;
    const code = u32(base);
    const [a, b, c] = [u32(base + 1), u32(base + 2), u32(base + 3)];
    const kind = KIND_OF_CODE.get(code);
    const child = (n: number): IrExpr => {
      if (n >= id) fail(where, `child ${n} does not come before its parent (nodes must be in post-order)`);
      return exprs[n]!;
    };
    switch (kind) {
      case "empty":
        exprs.push(empty());
        break;
      case "never":
        exprs.push(never());
        break;
      case "bytes":
        exprs.push({ kind: "bytes", bytes: bytesSlice(a, b, where) });
        break;
      case "class": {
        const ranges: Array<[number, number]> = [];
        for (let i = 0; i < b; i++) ranges.push([extraWord(a + 2 * i, where), extraWord(a + 2 * i + 1, where)]);
        if (c > 1) fail(where, "class flags other than bit 0 (negated) must be 0");
        exprs.push({ kind: "class", ranges, negated: c === 1 });
        break;
      }
      case "seq":
      case "choice": {
        const items: IrExpr[] = [];
        for (let i = 0; i < b; i++) items.push(child(extraWord(a + i, where)));
        exprs.push({ kind, items });
        break;
      }
      case "repeat":
      case "counted":
        exprs.push({ kind, item: child(a), min: b, max: c === IR_NONE ? null : c });
        break;
      case "unit":
        if (b !== 0 || c !== 0) fail(where, "unit fields b and c must be 0");
        exprs.push({ kind: "unit", item: child(a) });
        break;
      case "marks": {
        if (c !== 0) fail(where, "marks field c must be 0");
        const required: number[] = [];
        for (let i = 0; i < MAX_MARKS; i++) if ((b >>> i) & 1) required.push(i);
        exprs.push({ kind: "marks", item: child(a), required });
        break;
      }
      case "mark":
        if (b >= MAX_MARKS) fail(where, `mark index ${b} is not below ${MAX_MARKS}`);
        if (c !== 0) fail(where, "mark field c must be 0");
        exprs.push({ kind: "mark", item: child(a), index: b });
        break;
      case "residue":
        if (c !== 0) fail(where, "residue field c must be 0");
        exprs.push({ kind: "residue", item: child(a), modulus: b });
        break;
      case "rdigit":
        exprs.push({ kind: "rdigit", digit: a, budget: b === IR_NONE ? null : b, modulus: c });
        break;
      case "rlive":
        if (a !== 0) fail(where, "rlive field a must be 0");
        exprs.push({ kind: "rlive", budget: b, modulus: c });
        break;
      case "ref":
        exprs.push({ kind: "ref", rule: a });
        break;
      case "text": {
        const maxChars = extraWord(a, where);
        const maxTokens = extraWord(a + 1, where);
        const excludes: Uint8Array[] = [];
        for (let i = 0; i < b; i++) excludes.push(bytesSlice(extraWord(a + 2 + 2 * i, where), extraWord(a + 3 + 2 * i, where), where));
        exprs.push({ kind: "text", excludes, maxChars: maxChars === IR_NONE ? null : maxChars, maxTokens: maxTokens === IR_NONE ? null : maxTokens });
        break;
      }
      case "token":
      case "excludeToken":
      case "anyTokens":
        exprs.push(deserializeTokenNode(code, a, b, c, (i) => extraWord(i, where), (off, len) => bytesSlice(off, len, where), IR_NONE, where));
        break;
      default:
        fail(where, `unknown node kind code ${code}`);
    }
  }
  const rules: IrRule[] = [];
  for (let r = 0; r < ruleCount; r++) {
    const base = rulesAt + r * 3;
    const [nameOff, nameLen, body] = [u32(base), u32(base + 1), u32(base + 2)];
    if (body >= nodeCount) fail(`rule ${r}`, `body node ${body} does not exist`);
    rules.push({ name: decoder.decode(bytesSlice(nameOff, nameLen, `rule ${r}`)), body: exprs[body]! });
  }
  const grammar = { rules, root };
  validateGrammar(grammar);
  return grammar;
}

// ---- printing --------------------------------------------------------------------------------

function printBytes(bytes: Uint8Array): string {
  let out = '"';
  const s = decoder.decode(bytes);
  // Print text when the bytes are valid UTF-8, otherwise byte escapes.
  const valid = utf8(s).length === bytes.length && utf8(s).every((x, i) => x === bytes[i]);
  if (valid) {
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      if (ch === '"' || ch === "\\") out += `\\${ch}`;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
      else out += ch;
    }
  } else {
    for (const x of bytes) out += x >= 0x20 && x < 0x7f && x !== 0x22 && x !== 0x5c ? String.fromCharCode(x) : `\\x${x.toString(16).padStart(2, "0")}`;
  }
  return `${out}"`;
}

function printCodePoint(cp: number): string {
  if (cp === 0x5d || cp === 0x5c || cp === 0x2d || cp === 0x5e) return `\\${String.fromCodePoint(cp)}`;
  if (cp < 0x20 || cp === 0x7f || (cp >= 0xd800 && cp <= 0xdfff)) return `\\u{${cp.toString(16)}}`;
  return String.fromCodePoint(cp);
}

/**
 * Prints one expression in an EBNF-like notation (for debugging and golden tests). `names`
 * gives rule names for references.
 */
export function printExpr(e: IrExpr, names: readonly string[] = []): string {
  const atom = (x: IrExpr): string => {
    const s = printExpr(x, names);
    return x.kind === "seq" || x.kind === "choice" ? `(${s})` : s;
  };
  switch (e.kind) {
    case "empty":
      return '""';
    case "never":
      return "never";
    case "bytes":
      return printBytes(e.bytes);
    case "class":
      return `[${e.negated ? "^" : ""}${e.ranges.map(([lo, hi]) => (lo === hi ? printCodePoint(lo) : `${printCodePoint(lo)}-${printCodePoint(hi)}`)).join("")}]`;
    case "seq":
      return e.items.length === 0 ? '""' : e.items.map((x) => (x.kind === "choice" ? `(${printExpr(x, names)})` : printExpr(x, names))).join(" ");
    case "choice":
      return e.items.length === 0 ? "never" : e.items.map((x) => printExpr(x, names)).join(" | ");
    case "repeat": {
      const inner = atom(e.item);
      if (e.min === 0 && e.max === 1) return `${inner}?`;
      if (e.min === 0 && e.max === null) return `${inner}*`;
      if (e.min === 1 && e.max === null) return `${inner}+`;
      if (e.max === e.min) return `${inner}{${e.min}}`;
      return `${inner}{${e.min},${e.max ?? ""}}`;
    }
    case "ref":
      return names[e.rule] ?? `rule#${e.rule}`;
    case "text": {
      const parts: string[] = [];
      if (e.excludes.length > 0) parts.push(`excluding ${e.excludes.map(printBytes).join(", ")}`);
      if (e.maxChars !== null) parts.push(`max_chars=${e.maxChars}`);
      if (e.maxTokens !== null) parts.push(`max_tokens=${e.maxTokens}`);
      return parts.length === 0 ? "text" : `text(${parts.join("; ")})`;
    }
    case "counted":
      return `counted{${e.min},${e.max ?? ""}}(${printExpr(e.item, names)})`;
    case "unit":
      return `unit(${printExpr(e.item, names)})`;
    case "marks":
      return `marks${e.required.length > 0 ? `{required=${e.required.join(",")}}` : ""}(${printExpr(e.item, names)})`;
    case "mark":
      return `mark#${e.index}(${printExpr(e.item, names)})`;
    case "residue":
      return `residue%${e.modulus}(${printExpr(e.item, names)})`;
    case "rdigit":
      return `rdigit(${e.digit}${e.budget === null ? "" : `; live ${e.budget}`})`;
    case "rlive":
      return `rlive(${e.budget})`;
    case "token":
    case "excludeToken":
    case "anyTokens":
      return printTokenNode(e);
  }
}

/** Prints the whole grammar, one `name ::= body` line per rule, the root rule first. */
export function printGrammar(grammar: IrGrammar): string {
  validateGrammar(grammar);
  const names = grammar.rules.map((r) => r.name);
  const order = [grammar.root, ...grammar.rules.map((_, i) => i).filter((i) => i !== grammar.root)];
  return order.map((i) => `${names[i]} ::= ${printExpr(grammar.rules[i]!.body, names)}\n`).join("");
}
