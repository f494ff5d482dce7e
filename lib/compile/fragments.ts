/**
 * Pieces of lowered grammar kept across lowerings. A server's requests mostly repeat the same
 * tools; lowering a tool's call tag (its JSON Schemas above all) is the costly part of lowering,
 * so each tag and each JSON Schema format is lowered once, kept as a self-contained fragment
 * (simplified, its rules numbered from 0), and copied into every grammar that uses it again.
 *
 * Fragments are keyed by the exact content of the format (its JSON text, after validation) and
 * the simplification options; a fragment does not depend on where the format stands. The cache
 * is bounded by the IR nodes it holds and drops the least recently used fragments first.
 */
import { InternalError } from "../errors.js";
import { GrammarBuilder, type IrExpr, type IrRule } from "./ir.js";
import { renumberRefs, simplifyValidGrammar, type SimplifyOptions } from "./simplify.js";

/** A lowered piece of grammar: an expression over rules of its own. */
export interface IrFragment {
  /** The rules `body` refers to, numbered from 0. */
  readonly rules: readonly IrRule[];
  /** Per rule, the base name its name was derived from (see GrammarBuilder.freshName). */
  readonly bases: readonly string[];
  readonly body: IrExpr;
  /** IR nodes held (the bound of the cache counts these). */
  readonly nodes: number;
}

/** Counters of the fragment cache. */
export interface FragmentCacheStats {
  entries: number;
  /** IR nodes held, against `maxNodes`. */
  nodes: number;
  maxNodes: number;
  hits: number;
  misses: number;
  evictions: number;
}

/** A name no builder gives a rule (rule names are printable). */
const FRAGMENT_ROOT = "\u0000fragment";

/**
 * Lowers into a builder of its own and keeps the result as a fragment. With `simplify`, the
 * fragment is simplified as if its body were a rule of its own: copies of it are then normal
 * forms, which the simplification of a grammar that holds them passes over.
 */
export function captureFragment(lower: (b: GrammarBuilder) => IrExpr, simplify: SimplifyOptions | null): IrFragment {
  const scratch = new GrammarBuilder();
  const body = lower(scratch);
  const rules = scratch.rules();
  if (simplify === null) {
    return { rules, bases: rules.map((r) => scratch.baseName(r.name)), body, nodes: countNodes(rules, body) };
  }
  const simplified = simplifyValidGrammar({ rules: [...rules, { name: FRAGMENT_ROOT, body }], root: rules.length }, simplify);
  // The body's rule came last and nothing refers to it, so it stays last and the other rules
  // keep their numbers among themselves.
  const last = simplified.rules.length - 1;
  if (simplified.root !== last || simplified.rules[last]!.name !== FRAGMENT_ROOT) throw new InternalError("captureFragment: the body rule moved in simplification");
  const kept = simplified.rules.slice(0, last);
  const fragmentBody = simplified.rules[last]!.body;
  return { rules: kept, bases: kept.map((r) => scratch.baseName(r.name)), body: fragmentBody, nodes: countNodes(kept, fragmentBody) };
}

/**
 * Copies a fragment into a builder: its rules get fresh names (from their base names, as lowering
 * straight into the builder would have named them); returns its body over them.
 */
export function importFragment(b: GrammarBuilder, f: IrFragment): IrExpr {
  if (f.rules.length === 0) return f.body;
  const names = f.bases.map((base) => {
    const name = b.freshName(base);
    b.ruleRef(name); // takes the name before the next one is chosen
    return name;
  });
  const index = names.map((name) => b.ruleRef(name).rule);
  const memo = new Map<IrExpr, IrExpr>();
  const renumber = (e: IrExpr): IrExpr => renumberRefs(e, (r) => index[r]!, memo);
  f.rules.forEach((r, i) => b.define(names[i]!, renumber(r.body)));
  return renumber(f.body);
}

function countNodes(rules: readonly IrRule[], body: IrExpr): number {
  const seen = new Set<IrExpr>();
  const stack: IrExpr[] = [body, ...rules.map((r) => r.body)];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (seen.has(e)) continue;
    seen.add(e);
    if (e.kind === "seq" || e.kind === "choice") stack.push(...e.items);
    else if (e.kind === "repeat") stack.push(e.item);
  }
  return seen.size;
}

/** Fragments by key, least recently used first, bounded by the IR nodes they hold. */
export class FragmentCache {
  private readonly entries = new Map<string, IrFragment>();
  private total = 0;
  private counters = { hits: 0, misses: 0, evictions: 0 };

  constructor(private maxNodes: number) {}

  /** The fragment under `key`, made by `make` (and kept) when there is none. */
  get(key: string, make: () => IrFragment): IrFragment {
    const known = this.entries.get(key);
    if (known) {
      this.entries.delete(key);
      this.entries.set(key, known);
      this.counters.hits++;
      return known;
    }
    this.counters.misses++;
    const made = make();
    if (made.nodes <= this.maxNodes) {
      this.entries.set(key, made);
      this.total += made.nodes;
      this.evict();
    }
    return made;
  }

  /** Changes the bound (0 keeps nothing), dropping fragments as needed. */
  resize(maxNodes: number): void {
    this.maxNodes = maxNodes;
    this.evict();
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  get stats(): FragmentCacheStats {
    return { entries: this.entries.size, nodes: this.total, maxNodes: this.maxNodes, ...this.counters };
  }

  private evict(): void {
    for (const [key, f] of this.entries) {
      if (this.total <= this.maxNodes) break;
      this.entries.delete(key);
      this.total -= f.nodes;
      this.counters.evictions++;
    }
  }
}
