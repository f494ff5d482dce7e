/**
 * The EBNF front end: grammars in the syntax llama.cpp's GBNF and xgrammar share, lowered into
 * rules of a GrammarBuilder. See docs/regex-and-ebnf.md for the dialect.
 */
import { GrammarError } from "../../errors.js";
import type { GrammarBuilder, IrExpr, IrRef, IrRule } from "../ir.js";
import { findLeftRecursion } from "./analysis.js";
import { errorAt, parseEbnf, type ParsedGrammar } from "./parser.js";

/** Options of {@link ebnfToIr}. */
export interface EbnfOptions {
  /** Prepended to every rule name in the builder, so several grammars can share one IR. */
  prefix?: string;
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

/** Checks what a parse alone cannot: root, undefined rules, left recursion, name clashes. */
function check(parsed: ParsedGrammar, builder: GrammarBuilder, prefix: string): void {
  const root = parsed.rules.find((r) => r.name === "root");
  if (root === undefined || root.definedAt === undefined) {
    throw new GrammarError("EBNF error at line 1, column 1: missing root rule: the grammar must define 'root ::= …', where matching starts", { position: 0, line: 1, column: 1 });
  }
  for (const rule of parsed.rules) {
    if (rule.definedAt === undefined) {
      throw errorAt(parsed, rule.referencedAt ?? 0, `undefined rule '${rule.name}': it is referenced but there is no '${rule.name} ::= …'`);
    }
  }
  const irRules: IrRule[] = parsed.rules.map((r) => ({ name: r.name, body: r.body! }));
  const cycle = findLeftRecursion(irRules);
  if (cycle !== undefined) {
    const names = cycle.map((i) => parsed.rules[i]!.name);
    const first = parsed.rules[cycle[0]!]!;
    throw errorAt(parsed, first.definedAt!, `left recursion: ${names.join(" -> ")} (a rule reaches itself before consuming any input; the engine and llama.cpp refuse this — rewrite it with repetition, e.g. list ::= item ("," item)*)`);
  }
  for (const rule of parsed.rules) {
    if (builder.has(prefix + rule.name)) {
      throw errorAt(parsed, rule.definedAt!, `rule '${prefix + rule.name}' already exists in the grammar being built; pass a different prefix`);
    }
  }
}

/**
 * Parses an EBNF grammar and defines its rules in `builder`, each name prefixed with
 * `options.prefix`. Returns a reference to the grammar's `root` rule. Throws a GrammarError with
 * `line`, `column` (1-based, UTF-16 units) and `position` for syntax errors, a missing root,
 * undefined or duplicate rules, bad escapes or repeat bounds, and left recursion (naming the
 * rules of the cycle). On error the builder is left unchanged.
 */
export function ebnfToIr(source: string, builder: GrammarBuilder, options: EbnfOptions = {}): IrRef {
  const prefix = options.prefix ?? "";
  const parsed = parseEbnf(source);
  check(parsed, builder, prefix);
  // Builder slots follow definition order, so printed grammars read like the source.
  const order = parsed.rules.map((_, i) => i).sort((a, b) => parsed.rules[a]!.definedAt! - parsed.rules[b]!.definedAt!);
  const indices: number[] = [];
  for (const i of order) indices[i] = builder.ruleRef(prefix + parsed.rules[i]!.name).rule;
  for (const i of order) builder.define(prefix + parsed.rules[i]!.name, remap(parsed.rules[i]!.body!, indices));
  return builder.ruleRef(prefix + "root");
}
