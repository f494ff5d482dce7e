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
  charClass, choice, empty, never, repeat, seq, validateGrammar, type IrExpr, type IrGrammar, type IrRule,
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
  const inlineMax = options.inlineMaxNodes ?? 3;
  let rules: IrRule[] = grammar.rules.map((r) => ({ name: r.name, body: r.body }));
  // Each round rewrites every body, then inlines the rules that became tiny; inlining can make
  // new simplifications possible (literals meeting literals), hence the rounds.
  for (let round = 0; round < 8; round++) {
    const rewriter = new Rewriter();
    rules = rules.map((r) => ({ name: r.name, body: rewriter.expr(r.body) }));
    const inline = inlineMax > 0 ? tinyRules(rules, grammar.root, inlineMax) : new Map<number, IrExpr>();
    if (inline.size === 0) break;
    const substitute = new Rewriter(inline);
    rules = rules.map((r) => ({ name: r.name, body: substitute.expr(r.body) }));
  }
  const out = removeUnreachable({ rules, root: grammar.root });
  validateGrammar(out);
  return out;
}

/** The structural rewrites, bottom-up and memoized by node; optionally substituting rule bodies for references. */
class Rewriter {
  private readonly memo = new Map<IrExpr, IrExpr>();
  private readonly keys = new Map<IrExpr, number>();
  private readonly keyIds = new Map<string, number>();

  constructor(private readonly substitutions: ReadonlyMap<number, IrExpr> = new Map()) {}

  expr(e: IrExpr): IrExpr {
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
        return e;
    }
  }

  private seq(items: IrExpr[]): IrExpr {
    const flat: IrExpr[] = [];
    for (const it of items) {
      if (it.kind === "never") return never();
      if (it.kind === "seq") flat.push(...it.items);
      else if (it.kind !== "empty") flat.push(it);
    }
    const merged: IrExpr[] = [];
    for (const it of flat) {
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
    if (merged.length === 0) return empty();
    if (merged.length === 1) return merged[0]!;
    return seq(...merged);
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
    const seen = new Set<number>();
    const unique = rest.filter((it) => {
      const k = this.key(it);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    if (unique.length === 0) return never();
    if (unique.length === 1) return unique[0]!;
    return choice(...unique);
  }

  private repeat(item: IrExpr, min: number, max: number | null): IrExpr {
    if (max === 0 || item.kind === "empty") return empty();
    if (item.kind === "never") return min === 0 ? empty() : never();
    if (min === 1 && max === 1) return item;
    if (item.kind === "repeat") {
      const inner = item;
      // (x{a,}){0,} and (x?){0,} are x*; (x*)? is x*; (x+)+ is x+.
      if (min === 0 && max === null && inner.min <= 1 && (inner.max === null || inner.max >= 1)) return repeat(inner.item, 0, null);
      if (min === 0 && max === 1 && inner.min === 0 && inner.max === null) return inner;
      if (min === 1 && max === null && inner.min === 1 && inner.max === null) return inner;
    }
    return repeat(item, min, max);
  }

  /** A number identifying the node's structure (equal structure, equal number). */
  private key(e: IrExpr): number {
    const known = this.keys.get(e);
    if (known !== undefined) return known;
    let s: string;
    switch (e.kind) {
      case "empty":
      case "never":
        s = e.kind;
        break;
      case "bytes":
        s = `b${e.bytes.join(",")}`;
        break;
      case "class":
        s = `c${e.negated ? "^" : ""}${e.ranges.map(([a, b]) => `${a}-${b}`).join(",")}`;
        break;
      case "text":
        s = `t${JSON.stringify([e.excludes.map((x) => Array.from(x)), e.maxChars, e.maxTokens])}`;
        break;
      case "ref":
        s = `r${e.rule}`;
        break;
      case "seq":
      case "choice":
        s = `${e.kind}(${e.items.map((x) => this.key(x)).join(",")})`;
        break;
      case "repeat":
        s = `repeat(${this.key(e.item)},${e.min},${e.max})`;
        break;
      case "token":
      case "excludeToken":
      case "anyTokens":
        s = tokenNodeKey(e);
        break;
    }
    let id = this.keyIds.get(s);
    if (id === undefined) {
      id = this.keyIds.size;
      this.keyIds.set(s, id);
    }
    this.keys.set(e, id);
    return id;
  }
}

/** The code-point ranges of an alternative that is exactly one character, or null. */
function singleCharRanges(e: IrExpr): ReadonlyArray<readonly [number, number]> | null {
  if (e.kind === "class") return e.negated ? null : e.ranges;
  if (e.kind !== "bytes") return null;
  const cp = singleCodePoint(e.bytes);
  return cp === null ? null : [[cp, cp]];
}

/** The code point when `bytes` is exactly one valid UTF-8 encoded character (not a surrogate). */
function singleCodePoint(bytes: Uint8Array): number | null {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
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
    else if (x.kind === "repeat") walk(x.item);
  };
  walk(e);
  return n;
}

function refsOf(e: IrExpr, out: Set<number>, seen = new Set<IrExpr>()): Set<number> {
  if (seen.has(e)) return out;
  seen.add(e);
  if (e.kind === "ref") out.add(e.rule);
  else if (e.kind === "seq" || e.kind === "choice") for (const x of e.items) refsOf(x, out, seen);
  else if (e.kind === "repeat") refsOf(e.item, out, seen);
  return out;
}

/** Rules (not the root) small enough to inline and not on a reference cycle. */
function tinyRules(rules: IrRule[], root: number, maxNodes: number): Map<number, IrExpr> {
  const refs = rules.map((r) => refsOf(r.body, new Set()));
  const onCycle = (start: number): boolean => {
    const stack = [...refs[start]!];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const r = stack.pop()!;
      if (r === start) return true;
      if (seen.has(r)) continue;
      seen.add(r);
      stack.push(...refs[r]!);
    }
    return false;
  };
  // Only references from rules the root reaches count: an inlined rule is left unreferenced.
  const reachable = new Set<number>([root]);
  const todo = [root];
  while (todo.length > 0) {
    for (const j of refs[todo.pop()!]!) {
      if (!reachable.has(j)) {
        reachable.add(j);
        todo.push(j);
      }
    }
  }
  const used = new Set<number>();
  for (const i of reachable) for (const j of refs[i]!) if (j !== i) used.add(j);
  // Substituting rewrites the inlined body too, so tiny rules that use tiny rules are fine:
  // none is on a cycle, so substitution ends.
  const out = new Map<number, IrExpr>();
  rules.forEach((r, i) => {
    if (i === root || !used.has(i) || size(r.body, maxNodes) > maxNodes || onCycle(i)) return;
    out.set(i, r.body);
  });
  return out;
}

/** The grammar with only the rules the root reaches, references renumbered. */
function removeUnreachable(grammar: IrGrammar): IrGrammar {
  const refs = grammar.rules.map((r) => refsOf(r.body, new Set()));
  const order: number[] = [];
  const seen = new Set<number>();
  const visit = (i: number): void => {
    if (seen.has(i)) return;
    seen.add(i);
    order.push(i);
    for (const j of refs[i]!) visit(j);
  };
  visit(grammar.root);
  // Keep the original order of the rules kept, so printing stays stable.
  const kept = grammar.rules.map((_, i) => i).filter((i) => seen.has(i));
  if (kept.length === grammar.rules.length) return grammar;
  const index = new Map(kept.map((old, i) => [old, i]));
  const memo = new Map<IrExpr, IrExpr>();
  const renumber = (e: IrExpr): IrExpr => {
    const known = memo.get(e);
    if (known) return known;
    let out: IrExpr;
    switch (e.kind) {
      case "ref":
        out = { kind: "ref", rule: index.get(e.rule)! };
        break;
      case "seq":
      case "choice":
        out = { kind: e.kind, items: e.items.map(renumber) };
        break;
      case "repeat":
        out = { ...e, item: renumber(e.item) };
        break;
      default:
        out = e;
    }
    memo.set(e, out);
    return out;
  };
  return { rules: kept.map((i) => ({ name: grammar.rules[i]!.name, body: renumber(grammar.rules[i]!.body) })), root: index.get(grammar.root)! };
}
