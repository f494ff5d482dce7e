/**
 * The EBNF front end: grammars in the syntax llama.cpp's GBNF and xgrammar share, lowered into
 * rules of a GrammarBuilder. See docs/regex-and-ebnf.md for the dialect.
 */
import { GrammarError } from "../../errors.js";
import type { GrammarBuilder, IrExpr, IrRef, IrRule } from "../ir.js";
import { findLeftRecursion, reachableRules, withoutSelfAlternatives } from "./analysis.js";
import { errorAt, parseEbnf, type ParsedGrammar } from "./parser.js";

/** Options of {@link ebnfToIr}. */
export interface EbnfOptions {
  /** Prepended to every rule name in the builder, so several grammars can share one IR. */
  prefix?: string;
  /** The rule matching starts at (xgrammar's `root_rule_name`); default `root`. */
  start?: string;
}

/** Rewrites `ref` nodes from the parser's rule numbering to the builder's. */
function remap(e: IrExpr, to: readonly number[]): IrExpr {
  switch (e.kind) {
    case "ref":
      return { kind: "ref", rule: to[e.rule]! };
    case "seq":
    case "choice":
      return { kind: e.kind, items: e.items.map((x) => remap(x, to)) };
    case "repeat":
      return { ...e, item: remap(e.item, to) };
    default:
      return e;
  }
}

/**
 * Checks what a parse alone cannot: the start rule, undefined rules, left recursion, name
 * clashes. Returns the rules (by parser index) the start rule reaches, bodies without the
 * alternatives that are their own rule; the others are left out, as xgrammar leaves them.
 */
function check(parsed: ParsedGrammar, builder: GrammarBuilder, prefix: string, startName: string): Map<number, IrExpr> {
  const start = parsed.rules.findIndex((r) => r.name === startName);
  if (start < 0 || parsed.rules[start]!.definedAt === undefined) {
    throw new GrammarError(`EBNF error at line 1, column 1: missing ${startName === "root" ? "root rule" : `start rule '${startName}'`}: the grammar must define '${startName} ::= …', where matching starts`, { position: 0, line: 1, column: 1 });
  }
  for (const rule of parsed.rules) {
    if (rule.definedAt === undefined) {
      throw errorAt(parsed, rule.referencedAt ?? 0, `undefined rule '${rule.name}': it is referenced but there is no '${rule.name} ::= …'`);
    }
  }
  const bodies = parsed.rules.map((r, i) => withoutSelfAlternatives(r.body!, i));
  const reached = reachableRules(parsed.rules.map((r, i) => ({ name: r.name, body: bodies[i]! })), start);
  // Unreached rules stand for no string: a rule that refers to nothing keeps the indices.
  const irRules: IrRule[] = parsed.rules.map((r, i) => ({ name: r.name, body: reached[i] ? bodies[i]! : { kind: "empty" } }));
  const cycle = findLeftRecursion(irRules);
  if (cycle !== undefined) {
    const names = cycle.map((i) => parsed.rules[i]!.name);
    const first = parsed.rules[cycle[0]!]!;
    throw errorAt(parsed, first.definedAt!, `left recursion: ${names.join(" -> ")} (a rule reaches itself before consuming any input; the engine and llama.cpp refuse this — rewrite it with repetition, e.g. list ::= item ("," item)*)`);
  }
  const kept = new Map<number, IrExpr>();
  parsed.rules.forEach((rule, i) => {
    if (!reached[i]) return;
    kept.set(i, bodies[i]!);
    if (builder.has(prefix + rule.name)) {
      throw errorAt(parsed, rule.definedAt!, `rule '${prefix + rule.name}' already exists in the grammar being built; pass a different prefix`);
    }
  });
  return kept;
}

/**
 * Parses an EBNF grammar and defines the rules its start rule (`root`, or `options.start`)
 * reaches in `builder`, each name prefixed with `options.prefix`. Returns a reference to the
 * start rule. Throws a GrammarError with
 * `line`, `column` (1-based, UTF-16 units) and `position` for syntax errors, a missing root,
 * undefined or duplicate rules, bad escapes or repeat bounds, and left recursion (naming the
 * rules of the cycle). On error the builder is left unchanged.
 */
export function ebnfToIr(source: string, builder: GrammarBuilder, options: EbnfOptions = {}): IrRef {
  const prefix = options.prefix ?? "";
  const start = options.start ?? "root";
  const parsed = parseEbnf(source);
  const bodies = check(parsed, builder, prefix, start);
  // Builder slots follow definition order, so printed grammars read like the source.
  const order = [...bodies.keys()].sort((a, b) => parsed.rules[a]!.definedAt! - parsed.rules[b]!.definedAt!);
  const indices: number[] = [];
  for (const i of order) indices[i] = builder.ruleRef(prefix + parsed.rules[i]!.name).rule;
  for (const i of order) builder.define(prefix + parsed.rules[i]!.name, remap(bodies.get(i)!, indices));
  return builder.ruleRef(prefix + start);
}
