/**
 * GBNF export: a grammar IR as a llama.cpp GBNF grammar for the same language, so a structural
 * tag can also drive llama.cpp's (and node-llama-cpp's) own grammar sampler.
 *
 * GBNF matches code points, not bytes, so `bytes` nodes and excluded strings must be valid UTF-8.
 * Where the two notations differ the exporter rewrites rather than approximates:
 * - surrogates, which IR classes never match but llama.cpp would, are removed from classes;
 * - `text` becomes right-linear rules over an Aho–Corasick automaton of the excluded strings
 *   (crossed with a character budget when `maxChars` is set);
 * - repeats of nullable items are rewritten over the item's non-empty part, because llama.cpp
 *   refuses `("" | x)*` as left recursion;
 * - large counted repeats are built from doubling rules, because llama.cpp refuses a minimum
 *   above 2000, reads a maximum above 2000 as unbounded, and expands `x{m,n}` into n rules.
 * `maxTokens` cannot be expressed (GBNF sees characters, not tokens).
 */
import { GrammarError } from "../errors.js";
import { findLeftRecursion, isNullable, nullableRules } from "./ebnf/analysis.js";
import { printExpr, validateGrammar, type IrExpr, type IrGrammar, type IrText } from "./ir.js";
import { choiceOf, repeatOf, seqOf } from "./regex/build.js";
import { complement, normalize, withoutSurrogates, type Range } from "./regex/charset.js";

/** Options of {@link irToGbnf}. */
export interface GbnfOptions {
  /** Drop `maxTokens` limits of text nodes instead of refusing them. */
  ignoreTokenLimits?: boolean;
}

/** Counted repeats up to this bound use GBNF's own `{m,n}`; larger ones use doubling rules. */
const NATIVE_REPEAT = 32;
/** Most rules one `text` with both excludes and maxChars may expand to. */
const MAX_TEXT_RULES = 20000;
const SURROGATES: Range = [0xd800, 0xdfff];
const NEVER = "[^\\x00-\\U0010FFFF]";
const fatal = new TextDecoder("utf-8", { fatal: true });

/** Escapes one code point for a GBNF string (`inClass` false) or character class. */
function escapeCodePoint(cp: number, inClass: boolean): string {
  switch (cp) {
    case 0x09:
      return "\\t";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x5c:
      return "\\\\";
  }
  if (!inClass && cp === 0x22) return '\\"';
  if (inClass && (cp === 0x5d || cp === 0x5b || cp === 0x2d)) return `\\${String.fromCharCode(cp)}`;
  // llama.cpp has no \^ escape; a caret first in a class would negate it.
  if (inClass && cp === 0x5e) return "\\x5E";
  const ch = String.fromCodePoint(cp);
  if (cp !== 0x20 && /[\p{C}\p{Z}]/u.test(ch)) {
    const hex = cp.toString(16).toUpperCase();
    if (cp <= 0xff) return `\\x${hex.padStart(2, "0")}`;
    if (cp <= 0xffff) return `\\u${hex.padStart(4, "0")}`;
    return `\\U${hex.padStart(8, "0")}`;
  }
  return ch;
}

function classText(ranges: readonly Range[], negated: boolean): string {
  const body = ranges.map(([lo, hi]) => (lo === hi ? escapeCodePoint(lo, true) : `${escapeCodePoint(lo, true)}-${escapeCodePoint(hi, true)}`)).join("");
  return `[${negated ? "^" : ""}${body}]`;
}

/**
 * A GBNF class for an IR class. Surrogates never match in the IR but would in llama.cpp, so they
 * are removed from the matched set; the class is then written positively or negated, whichever
 * lists fewer ranges (a single code point becomes a string).
 */
function classFor(ranges: readonly Range[], negated: boolean): string {
  const matched = withoutSurrogates(negated ? complement(normalize([...ranges, SURROGATES])) : ranges);
  if (matched.length === 0) return NEVER;
  const excluded = complement(matched);
  const only = matched[0]!;
  if (matched.length === 1 && only[0] === only[1]) return `"${escapeCodePoint(only[0], false)}"`;
  if (excluded.length < matched.length || (negated && excluded.length === matched.length)) return classText(excluded, true);
  return classText(matched, false);
}

/** Code points of a UTF-8 byte string, or undefined when it is not valid UTF-8. */
function decodeUtf8(bytes: Uint8Array): number[] | undefined {
  try {
    return [...fatal.decode(bytes)].map((c) => c.codePointAt(0)!);
  } catch {
    return undefined;
  }
}

function bytesHex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ");
}

/** An Aho–Corasick automaton over code points; `terminal` states have seen an excluded string. */
interface Automaton {
  /** Per state: explicit transitions on code points of the excluded strings. */
  next: Array<Map<number, number>>;
  terminal: boolean[];
  /** Every code point occurring in some excluded string (others lead back to state 0). */
  alphabet: number[];
}

function buildAutomaton(excludes: readonly number[][]): Automaton {
  const goto: Array<Map<number, number>> = [new Map()];
  const terminal = [false];
  for (const word of excludes) {
    let s = 0;
    for (const c of word) {
      let t = goto[s]!.get(c);
      if (t === undefined) {
        t = goto.length;
        goto.push(new Map());
        terminal.push(false);
        goto[s]!.set(c, t);
      }
      s = t;
    }
    terminal[s] = true;
  }
  const alphabet = [...new Set(excludes.flat())].sort((a, b) => a - b);
  const fail = goto.map(() => 0);
  const next: Array<Map<number, number>> = goto.map(() => new Map());
  const queue: number[] = [0];
  for (let i = 0; i < queue.length; i++) {
    const s = queue[i]!;
    if (terminal[fail[s]!]) terminal[s] = true;
    for (const c of alphabet) {
      const t = goto[s]!.get(c);
      const via = s === 0 ? 0 : next[fail[s]!]!.get(c) ?? 0;
      if (t !== undefined) {
        fail[t] = s === 0 ? 0 : via;
        next[s]!.set(c, t);
        queue.push(t);
      } else {
        next[s]!.set(c, via);
      }
    }
  }
  return { next, terminal, alphabet };
}

/**
 * The text of one GBNF expression, how tightly it binds (0 choice, 1 sequence, 2 atom), and
 * whether it contains a repetition (llama.cpp limits repetitions of repetitions).
 */
interface Out {
  text: string;
  prec: 0 | 1 | 2;
  repeats: boolean;
}
const atom = (text: string, repeats = false): Out => ({ text, prec: 2, repeats });

class GbnfWriter {
  private readonly lines: string[] = [];
  private readonly used = new Set<string>();
  /** GBNF names of the grammar's rules. */
  private readonly names: string[];
  /** Rules already queued for writing (grammar rules and synthetic ones). */
  private readonly emitted = new Set<number>();
  private readonly nullable: boolean[];
  /** Synthetic rules (indices past the grammar's rules): the non-empty parts of nullable rules. */
  private readonly synthetic: Array<{ name: string; body: IrExpr }> = [];
  private readonly nonEmptyRule = new Map<number, number>();
  private readonly textPlus = new Map<number, IrText>();
  private readonly helpers = new Map<string, string>();
  /** Rules to write, in order: the root first, then rules as they are first referenced. */
  private readonly queue: number[] = [];
  /** The rule being written, for helper names and messages. */
  private context = "root";

  constructor(private readonly grammar: IrGrammar, private readonly options: GbnfOptions) {
    this.nullable = nullableRules(grammar.rules);
    this.names = grammar.rules.map(() => "");
    this.names[grammar.root] = this.unique("root");
    grammar.rules.forEach((rule, i) => {
      if (i !== grammar.root) this.names[i] = this.unique(rule.name);
    });
  }

  /** A fresh GBNF rule name derived from `base` (sanitized to [a-zA-Z0-9-]). */
  private unique(base: string): string {
    const clean = base.replace(/[^a-zA-Z0-9-]+/g, "-").replace(/^-+|-+$/g, "") || "rule";
    let name = clean;
    for (let n = 2; this.used.has(name); n++) name = `${clean}-${n}`;
    this.used.add(name);
    return name;
  }

  write(): string {
    this.refTo(this.grammar.root);
    // Each rule's line is reserved before its body is written, so it precedes its helper rules;
    // rules referenced along the way are queued behind it.
    for (let i = 0; i < this.queue.length; i++) {
      const r = this.queue[i]!;
      const at = this.lines.push("") - 1;
      this.lines[at] = `${this.nameOf(r)} ::= ${this.ruleBody(r)}`;
    }
    return this.lines.join("\n") + "\n";
  }

  private nameOf(r: number): string {
    return r < this.grammar.rules.length ? this.names[r]! : this.synthetic[r - this.grammar.rules.length]!.name;
  }

  private ruleBody(r: number): string {
    const rules = this.grammar.rules;
    this.context = this.nameOf(r);
    const plus = this.textPlus.get(r);
    if (plus !== undefined) return this.textRules(plus, true);
    const body = r < rules.length ? rules[r]!.body : this.synthetic[r - rules.length]!.body;
    return this.expr(body).text;
  }

  private refTo(r: number): Out {
    if (!this.emitted.has(r)) {
      this.emitted.add(r);
      this.queue.push(r);
    }
    return atom(this.nameOf(r));
  }

  private addSynthetic(base: string, body: IrExpr): number {
    this.synthetic.push({ name: this.unique(base), body });
    return this.grammar.rules.length + this.synthetic.length - 1;
  }

  /** Defines a helper rule once per key; returns its name. */
  private helper(key: string, base: string, body: () => string): string {
    const known = this.helpers.get(key);
    if (known !== undefined) return known;
    const name = this.unique(base);
    this.helpers.set(key, name);
    this.lines.push(`${name} ::= ${body()}`);
    return name;
  }

  private expr(e: IrExpr): Out {
    switch (e.kind) {
      case "empty":
        return atom('""');
      case "never":
        return atom(NEVER);
      case "bytes": {
        const cps = decodeUtf8(e.bytes);
        if (cps === undefined) {
          throw new GrammarError(`rule '${this.context}': the bytes [${bytesHex(e.bytes)}] are not valid UTF-8; GBNF matches code points, so it cannot express them`);
        }
        return atom(`"${cps.map((c) => escapeCodePoint(c, false)).join("")}"`);
      }
      case "class":
        return atom(classFor(e.ranges, e.negated));
      case "seq": {
        // Merge adjacent literals first: a character may be split across two bytes nodes.
        const merged = seqOf(e.items);
        if (merged.kind !== "seq") return this.expr(merged);
        const items = merged.items.map((x) => this.expr(x));
        if (items.some((x) => x.text === NEVER)) return atom(NEVER);
        return { text: items.map((x) => this.wrap(x, 1)).join(" "), prec: 1, repeats: items.some((x) => x.repeats) };
      }
      case "choice": {
        const items = e.items.map((x) => this.expr(x)).filter((x) => x.text !== NEVER);
        if (items.length === 0) return atom(NEVER);
        if (items.length === 1) return items[0]!;
        return { text: items.map((x) => this.wrap(x, 1)).join(" | "), prec: 0, repeats: items.some((x) => x.repeats) };
      }
      case "ref":
        return this.refTo(e.rule);
      case "repeat":
        return this.repeat(e.item, e.min, e.max);
      case "text":
        return atom(this.textRules(e, false), true);
      case "counted":
      case "unit":
        throw new GrammarError(`rule '${this.context}': the grammar counts units (a pattern or format with length bounds, or property counts); GBNF cannot express such a count`);
      case "marks":
      case "mark":
        throw new GrammarError(`rule '${this.context}': the grammar has marks (object members in any order); GBNF cannot express them, use declared order`);
      case "residue":
      case "rdigit":
      case "rlive":
        throw new GrammarError(`rule '${this.context}': the grammar keeps a remainder (multipleOf with a large divisor); GBNF cannot express it without one rule per remainder`);
      case "token":
      case "excludeToken":
      case "anyTokens":
        throw new GrammarError(`rule '${this.context}': a token-level node (${printExpr(e)}) matches token ids, which this GBNF export does not write; compile the grammar with tagmask's engine instead`);
    }
  }

  private wrap(out: Out, prec: 0 | 1 | 2): string {
    return out.prec < prec ? `(${out.text})` : out.text;
  }

  private nullableExpr(e: IrExpr): boolean {
    // Synthetic rules are never nullable (they are non-empty parts); grammar rules use the table.
    return isNullable(e, this.nullable);
  }

  /** The non-empty strings of `e` as an expression (e itself when it is not nullable). */
  private nonEmpty(e: IrExpr): IrExpr {
    if (!this.nullableExpr(e)) return e;
    switch (e.kind) {
      case "empty":
        return { kind: "never" };
      case "choice":
        return choiceOf(e.items.map((x) => this.nonEmpty(x)));
      case "seq": {
        const branches: IrExpr[] = [];
        for (let i = 0; i < e.items.length; i++) {
          branches.push(seqOf([this.nonEmpty(e.items[i]!), ...e.items.slice(i + 1)]));
          if (!this.nullableExpr(e.items[i]!)) break;
        }
        return choiceOf(branches);
      }
      case "repeat":
        if (e.max === 0) return { kind: "never" };
        // Empty copies can be dropped, so at least one non-empty copy and at most max.
        return repeatOf(this.nonEmpty(e.item), 1, e.max);
      case "ref": {
        let r = this.nonEmptyRule.get(e.rule);
        if (r === undefined) {
          const placeholder = this.addSynthetic(`${this.names[e.rule]}-nonempty`, { kind: "never" });
          this.nonEmptyRule.set(e.rule, placeholder);
          this.synthetic[placeholder - this.grammar.rules.length]!.body = this.nonEmpty(this.grammar.rules[e.rule]!.body);
          r = placeholder;
        }
        return { kind: "ref", rule: r };
      }
      case "text": {
        const r = this.addSynthetic(`${this.context}-text-nonempty`, { kind: "never" });
        this.textPlus.set(r, e);
        return { kind: "ref", rule: r };
      }
      case "anyTokens":
        return repeatOf({ kind: "excludeToken", excludes: e.excludes }, 1, e.maxTokens);
      default:
        return e;
    }
  }

  private repeat(item: IrExpr, min: number, max: number | null): Out {
    if (max === 0) return atom('""');
    if (this.nullableExpr(item)) {
      // x{m,n} with x nullable is (non-empty part of x){0,n}: empty copies fill up the minimum.
      const part = this.nonEmpty(item);
      if (part.kind === "never") return atom('""');
      return this.repeat(part, 0, max);
    }
    const a = this.repeatable(item);
    const bound = max ?? min;
    if (bound <= NATIVE_REPEAT) {
      if (min === 0 && max === 1) return atom(`${a}?`, true);
      if (min === 0 && max === null) return atom(`${a}*`, true);
      if (min === 1 && max === null) return atom(`${a}+`, true);
      if (max === min) return atom(`${a}{${min}}`, true);
      return atom(`${a}{${min},${max ?? ""}}`, true);
    }
    const parts: string[] = [];
    if (min > 0) parts.push(this.exactly(a, min));
    if (max === null) parts.push(`${a}*`);
    else if (max > min) parts.push(this.upTo(a, max - min));
    return parts.length === 1 ? atom(parts[0]!, true) : { text: parts.join(" "), prec: 1, repeats: true };
  }

  /** The item as an atom GBNF can repeat; items that repeat inside get a rule of their own. */
  private repeatable(item: IrExpr): string {
    const out = this.expr(item);
    if (!out.repeats) return this.wrap(out, 2);
    return this.helper(`item:${out.text}`, `${this.context}-item`, () => out.text);
  }

  /** `a` repeated exactly 2^k times. */
  private power(a: string, k: number): string {
    if (k === 0) return a;
    return this.helper(`pow:${k}:${a}`, `${this.context}-x${2 ** k}`, () => (2 ** k <= NATIVE_REPEAT ? `${a}{${2 ** k}}` : `${this.power(a, k - 1)} ${this.power(a, k - 1)}`));
  }

  /** `a` repeated exactly n times, from the binary digits of n. */
  private exactly(a: string, n: number): string {
    if (n <= NATIVE_REPEAT) return `${a}{${n}}`;
    const parts: string[] = [];
    for (let k = 0; 2 ** k <= n; k++) if (Math.floor(n / 2 ** k) % 2 === 1) parts.push(this.power(a, k));
    return parts.reverse().join(" ");
  }

  /** `a` repeated 0 .. n times; each count has one parse, so llama.cpp keeps few stacks. */
  private upTo(a: string, n: number): string {
    if (n <= NATIVE_REPEAT) return `${a}{0,${n}}`;
    const k = Math.floor(Math.log2(n + 1));
    if (2 ** k - 1 === n) return this.below(a, k);
    // 0 .. 2^k-1 copies, or 2^k copies then 0 .. n-2^k more.
    return this.helper(`upto:${n}:${a}`, `${this.context}-upto${n}`, () => `${this.below(a, k)} | ${this.power(a, k)} ${this.upTo(a, n - 2 ** k)}`);
  }

  /** `a` repeated 0 .. 2^k - 1 times. */
  private below(a: string, k: number): string {
    const n = 2 ** k - 1;
    if (n <= NATIVE_REPEAT) return `${a}{0,${n}}`;
    return this.helper(`below:${k}:${a}`, `${this.context}-upto${n}`, () => `${this.below(a, k - 1)} | ${this.power(a, k - 1)} ${this.below(a, k - 1)}`);
  }

  /**
   * Rules for a text node. Returns the name of its entry rule, or with `plus` (the text must not
   * be empty) an expression to use as a rule body.
   */
  private textRules(e: IrText, plus: boolean): string {
    if (e.maxTokens !== null && this.options.ignoreTokenLimits !== true) {
      throw new GrammarError(`rule '${this.context}': text with max_tokens=${e.maxTokens} cannot be expressed in GBNF, which sees characters, not tokens; pass { ignoreTokenLimits: true } to drop the limit`);
    }
    const excludes = e.excludes.map((x) => {
      const cps = decodeUtf8(x);
      if (cps === undefined) {
        throw new GrammarError(`rule '${this.context}': the excluded string [${bytesHex(x)}] is not valid UTF-8; GBNF matches code points, so it cannot express it`);
      }
      return cps;
    });
    if (excludes.length === 0) {
      const char: IrExpr = { kind: "class", ranges: [SURROGATES], negated: true };
      const out = this.repeat(char, plus ? 1 : 0, e.maxChars);
      return out.prec === 2 ? out.text : this.helper(`anytext:${plus}:${e.maxChars}`, `${this.context}-text`, () => out.text);
    }
    const key = `text:${e.maxChars}:${JSON.stringify(excludes)}`;
    const known = plus ? undefined : this.helpers.get(key);
    if (known !== undefined) return known;
    const dfa = buildAutomaton(excludes);
    const base = `${this.context}-text`;
    const budget = e.maxChars;
    // One rule per (automaton state, characters still allowed); null: no length bound.
    const names = new Map<string, string>();
    const todo: Array<[number, number | null]> = [];
    const visit = (q: number, left: number | null): string => {
      const key = `${q}:${left}`;
      let name = names.get(key);
      if (name === undefined) {
        if (names.size >= MAX_TEXT_RULES) {
          throw new GrammarError(`rule '${this.context}': text with max_chars=${budget} and ${excludes.length} excluded strings needs more than ${MAX_TEXT_RULES} GBNF rules (one per automaton state and remaining length); GBNF cannot bound its length compactly`);
        }
        name = this.unique(`${base}-s${q}${left === null ? "" : `-${left}`}`);
        names.set(key, name);
        todo.push([q, left]);
      }
      return name;
    };
    const set = (cs: number[], negated: boolean): string => classFor(cs.map((c) => [c, c] as Range), negated);
    /** The alternatives leaving state q: one per target state, a class followed by the target. */
    const moves = (q: number, left: number | null): string[] => {
      if (left === 0) return [];
      const byTarget = new Map<number, number[]>();
      const notToRoot: number[] = [];
      const forbidden: number[] = [];
      for (const c of dfa.alphabet) {
        const t = dfa.next[q]!.get(c)!;
        if (t !== 0) notToRoot.push(c);
        if (dfa.terminal[t]) forbidden.push(c);
        else if (t !== 0) byTarget.set(t, [...(byTarget.get(t) ?? []), c]);
      }
      // The last character allowed: where it leads no longer matters, only that it is allowed.
      if (left === 1) return [set(forbidden, true)];
      const after = left === null ? null : left - 1;
      const out = [`${set(notToRoot, true)} ${visit(0, after)}`];
      for (const [t, cs] of byTarget) out.push(`${set(cs, false)} ${visit(t, after)}`);
      return out;
    };
    const entry = plus ? moves(0, budget).join(" | ") || NEVER : visit(0, budget);
    if (!plus) this.helpers.set(key, entry);
    const defs: string[] = [];
    for (let i = 0; i < todo.length; i++) {
      const [q, left] = todo[i]!;
      defs.push(`${names.get(`${q}:${left}`)!} ::= ${['""', ...moves(q, left)].join(" | ")}`);
    }
    this.lines.push(...defs);
    return entry;
  }
}

/**
 * A llama.cpp GBNF grammar (root rule `root`) matching the same strings as the IR grammar.
 * Rule names are sanitized to GBNF's `[a-zA-Z0-9-]` and made unique; only rules reachable from
 * the root are written. Throws a GrammarError when GBNF cannot express the grammar: a `bytes`
 * node or excluded string that is not valid UTF-8, a text `maxTokens` limit (unless
 * `ignoreTokenLimits`), left recursion (llama.cpp refuses it), or a text whose length bound
 * would need too many rules.
 */
export function irToGbnf(grammar: IrGrammar, options: GbnfOptions = {}): string {
  validateGrammar(grammar);
  const cycle = findLeftRecursion(grammar.rules);
  if (cycle !== undefined) {
    throw new GrammarError(`left recursion: ${cycle.map((r) => grammar.rules[r]!.name).join(" -> ")}; llama.cpp refuses left-recursive grammars`);
  }
  return new GbnfWriter(grammar, options).write();
}
