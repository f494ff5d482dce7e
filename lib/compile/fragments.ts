/**
 * Pieces of lowered grammar kept across lowerings. A server's requests mostly repeat the same
 * tools; lowering a tool's call tag (its JSON Schemas above all) is the costly part of lowering,
 * so each tag and each JSON Schema format is lowered once, kept as a fragment (simplified, its
 * rules numbered locally), and copied into every grammar that uses it again. Fragments nest: the
 * JSON Schemas inside a tool's tag are fragments of their own that the tag's fragment depends on,
 * so a schema that several tools share is lowered once and held once by a grammar of them all.
 *
 * Fragments are keyed by the exact content of the format (its JSON text, after validation) and
 * the simplification options; a fragment does not depend on where the format stands. The cache
 * is bounded by the IR nodes it holds and drops the least recently used fragments first.
 */
import { InternalError } from "../errors.js";
import { GrammarBuilder, never, validateExpressions, type IrExpr, type IrRule } from "./ir.js";
import { renumberRefs, simplifyValidGrammar, type FixedRules, type SimplifyOptions, type SimplifyReport } from "./simplify.js";

/**
 * A lowered piece of grammar: an expression over rules of its own and over the rules of the
 * fragments lowered inside it (its dependencies: a tool's call tag depends on the JSON Schemas of
 * its arguments). References are numbered locally: the dependencies' rules first, each
 * dependency's own rules as one block at its `offset`, then this fragment's own rules.
 */
export interface IrFragment {
  /** The content key the fragment was made for (two fragments with one key are equal). */
  readonly key: string;
  /** The fragments whose rules this one refers to, every level down, each with its block's offset. */
  readonly deps: ReadonlyArray<{ readonly fragment: IrFragment; readonly offset: number }>;
  /** The rules of all dependencies together: own rule `i` is local index `depRules + i`. */
  readonly depRules: number;
  /** This fragment's own rules (their references in the local numbering). */
  readonly rules: readonly IrRule[];
  /** Per own rule, the base name its name was derived from (see GrammarBuilder.freshName). */
  readonly bases: readonly string[];
  readonly body: IrExpr;
  /** Per own rule, the rules it refers to (local numbers). */
  readonly ownRefs: readonly Int32Array[];
  /**
   * Simplified, with nothing left that simplification would inline, and so are its dependencies:
   * a grammar holding a copy simplifies around the copy's rules without reading them.
   */
  readonly settled: boolean;
  /** IR nodes of the own rules and the body. */
  readonly ownNodes: number;
  /**
   * IR nodes the fragment keeps alive, its dependencies' included (the bound of the cache counts
   * these: a kept tag holds its schemas even after the cache dropped them; a dependency shared by
   * several kept fragments is counted in each, so the bound errs on the safe side).
   */
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
 * A fragment's rules and body with its references renumbered for one placement (`local`: the
 * builder's rule for each local number). A grammar of the same tools in the same order places a
 * fragment where the grammar before did: the copy made then serves again, unchanged.
 */
interface Placement {
  readonly local: Int32Array;
  readonly rules: readonly IrExpr[];
  readonly body: IrExpr;
}

/** The last placement of each fragment (dropped with the fragment). */
const placements = new WeakMap<IrFragment, Placement>();

/**
 * Copies fragments into one builder, each once: a fragment imported again (a JSON Schema that two
 * tools share, or the dependency of two fragments) gives the expression of its first import, so
 * the grammar holds one copy of its rules. Its own rules get fresh names from their base names,
 * as lowering straight into the builder would have named them.
 */
export class FragmentImporter {
  private readonly imported = new Map<string, { body: IrExpr; rules: Int32Array }>();
  /** The fragments imported, in order, with the builder's indices of their own rules. */
  readonly blocks: Array<{ fragment: IrFragment; rules: Int32Array }> = [];
  /** The rules copied from settled fragments, with what each refers to (see {@link fixedRules}). */
  private readonly settledRefs = new Map<number, ReadonlySet<number>>();
  /** Bodies of the rules copied: checked when their fragment was made. */
  readonly trustedBodies = new Set<IrExpr>();

  /**
   * `ruleBodies` false: the imported rules get empty placeholders (`never`) instead of copies of
   * their bodies. A fragment being captured takes only the numbers of the rules it imports (see
   * captureFragment): copying a tool's schemas into its tag's scratch builder, to drop them right
   * after, was most of the capture's imports.
   */
  constructor(private readonly b: GrammarBuilder, private readonly ruleBodies = true) {}

  import(f: IrFragment): IrExpr {
    const known = this.imported.get(f.key);
    if (known) return known.body;
    const local = new Int32Array(f.depRules + f.rules.length);
    for (const { fragment, offset } of f.deps) {
      this.import(fragment);
      local.set(this.imported.get(fragment.key)!.rules, offset);
    }
    const copy = this.ruleBodies ? this.copyRules(f, local) : this.placeholders(f, local);
    this.imported.set(f.key, copy);
    this.blocks.push({ fragment: f, rules: copy.rules });
    return copy.body;
  }

  /**
   * Places `f`'s own rules in the builder under fresh names from their base names (filling in
   * their numbers in `local`), copies of their bodies renumbered; returns their numbers and the
   * body renumbered.
   */
  private copyRules(f: IrFragment, local: Int32Array): { body: IrExpr; rules: Int32Array } {
    const names = f.bases.map((base) => {
      const name = this.b.freshName(base);
      this.b.ruleRef(name); // takes the name before the next one is chosen
      return name;
    });
    const own = new Int32Array(names.length);
    names.forEach((name, i) => (own[i] = this.b.ruleRef(name).rule));
    local.set(own, f.depRules);
    const placed = this.place(f, local);
    f.rules.forEach((_, i) => this.b.define(names[i]!, placed.rules[i]!));
    for (const body of placed.rules) this.trustedBodies.add(body);
    if (f.settled) {
      f.ownRefs.forEach((refs, i) => {
        const global = new Set<number>();
        for (const r of refs) global.add(local[r]!);
        this.settledRefs.set(own[i]!, global);
      });
    }
    return { body: placed.body, rules: own };
  }

  /**
   * Empty placeholders for `f`'s own rules (filling in their numbers in `local`): a capture drops
   * them and keeps only their block's place, so they need no names chosen from the bases (two
   * scratch builders per tool named every rule of a member schema that all tools share).
   */
  private placeholders(f: IrFragment, local: Int32Array): { body: IrExpr; rules: Int32Array } {
    const own = new Int32Array(f.rules.length);
    for (let i = 0; i < own.length; i++) own[i] = this.b.placeholder(never()).rule;
    local.set(own, f.depRules);
    return { body: renumberRefs(f.body, (r) => local[r]!, new Map()), rules: own };
  }

  /**
   * The rules copied from settled fragments, for the simplification of the builder's grammar of
   * `ruleCount` rules: they are simplified already and refer only to each other.
   */
  fixedRules(ruleCount: number): FixedRules {
    const mask = new Uint8Array(ruleCount);
    for (const i of this.settledRefs.keys()) mask[i] = 1;
    return { mask, refs: this.settledRefs };
  }

  /** `f`'s rules and body renumbered by `local`: its last placement's when that was the same. */
  private place(f: IrFragment, local: Int32Array): Placement {
    const last = placements.get(f);
    if (last !== undefined && sameNumbers(last.local, local)) return last;
    const memo = new Map<IrExpr, IrExpr>();
    const renumber = (e: IrExpr): IrExpr => renumberRefs(e, (r) => local[r]!, memo);
    const placed = { local, rules: f.rules.map((r) => renumber(r.body)), body: renumber(f.body) };
    placements.set(f, placed);
    return placed;
  }
}

function sameNumbers(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Lowers into a builder of its own (fragments met inside are imported into it by the importer
 * given to `lower`) and keeps the result as a fragment under `key`. With `simplify`, the fragment
 * is simplified as if its body were a rule of its own, the imported rules left as they are (they
 * are simplified already, and they stay the dependencies' own): copies of it are then normal
 * forms, which the simplification of a grammar that holds them passes over.
 */
export function captureFragment(key: string, lower: (b: GrammarBuilder, importer: FragmentImporter) => IrExpr, simplify: SimplifyOptions | null): IrFragment {
  const scratch = new GrammarBuilder();
  const importer = new FragmentImporter(scratch, false);
  const lowered = lower(scratch, importer);
  const scratchRules = scratch.rules();
  // Local numbering: the imported blocks first, in import order, then the rules lowered here.
  const order: number[] = [];
  const deps: Array<{ fragment: IrFragment; offset: number }> = [];
  const imported = new Uint8Array(scratchRules.length);
  for (const { fragment, rules } of importer.blocks) {
    deps.push({ fragment, offset: order.length });
    for (const r of rules) {
      order.push(r);
      imported[r] = 1;
    }
  }
  const depRules = order.length;
  scratchRules.forEach((_, i) => {
    if (!imported[i]) order.push(i);
  });
  const localOf = new Int32Array(scratchRules.length);
  order.forEach((r, i) => (localOf[r] = i));
  const memo = new Map<IrExpr, IrExpr>();
  const renumber = (e: IrExpr): IrExpr => renumberRefs(e, (r) => localOf[r]!, memo);
  // The imported rules are the dependencies' own: the fragment keeps only their offsets, and the
  // simplification leaves them as they are without reading them (see simplifyValidGrammar), so
  // they stay the importer's placeholders and only the rules lowered here are renumbered.
  // Copying the imports too was a third of a tool tag's capture.
  const same = order.every((r, i) => r === i);
  const rules = order.map((r, i) => (same || i < depRules ? scratchRules[r]! : { name: scratchRules[r]!.name, body: renumber(scratchRules[r]!.body) }));
  let own = rules.slice(depRules);
  let body = same ? lowered : renumber(lowered);
  let ownRefs: Int32Array[] = [];
  let settled = false;
  if (simplify !== null) {
    const report: SimplifyReport = { settled: false, refs: [] };
    const simplified = simplifyValidGrammar({ rules: [...rules, { name: FRAGMENT_ROOT, body }], root: rules.length }, simplify, depRules, report);
    // The body's rule came last and nothing refers to it, so it stays last; the fixed rules stay
    // first and the other rules keep their order among themselves.
    const last = simplified.rules.length - 1;
    if (simplified.root !== last || simplified.rules[last]!.name !== FRAGMENT_ROOT) throw new InternalError("captureFragment: the body rule moved in simplification");
    for (let i = 0; i < depRules; i++) {
      if (simplified.rules[i]!.name !== rules[i]!.name) throw new InternalError("captureFragment: an imported rule moved in simplification");
    }
    own = simplified.rules.slice(depRules, last);
    body = simplified.rules[last]!.body;
    ownRefs = report.refs.slice(depRules, last).map((refs) => Int32Array.from(refs));
    settled = report.settled && deps.every((d) => d.fragment.settled);
  }
  // Checked once here: copies of the rules are trusted where the fragment is imported.
  validateExpressions([...own.map((r) => r.body), body], depRules + own.length, (i) => `${i < own.length ? `rule ${own[i]!.name}` : "the body"} of a lowered fragment`);
  const ownNodes = countNodes(own, body);
  // `deps` lists every level down, so their own nodes add up to all the fragment holds.
  const nodes = deps.reduce((sum, d) => sum + d.fragment.ownNodes, ownNodes);
  return { key, deps, depRules, rules: own, bases: own.map((r) => scratch.baseName(r.name)), body, ownRefs, settled, ownNodes, nodes };
}

function countNodes(rules: readonly IrRule[], body: IrExpr): number {
  const seen = new Set<IrExpr>();
  const stack: IrExpr[] = [body, ...rules.map((r) => r.body)];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (seen.has(e)) continue;
    seen.add(e);
    if (e.kind === "seq" || e.kind === "choice") for (const x of e.items) stack.push(x);
    else if (e.kind === "repeat" || e.kind === "counted" || e.kind === "unit" || e.kind === "marks" || e.kind === "mark" || e.kind === "residue") stack.push(e.item);
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
