/**
 * The compiler of one JSON Schema into rules of a shared grammar builder: shapes per schema
 * (memoized, with `$ref` cycles detected), one rule per distinct conjunction of schemas (so
 * recursive schemas become recursive rules), and emission of each shape as JSON text.
 */
import { SchemaError } from "../../errors.js";
import { copyNumberText, numberText, stringifyExact } from "../../format/exact-numbers.js";
import { choice, counted, lit, never, optional, repeat, seq, unit, type GrammarBuilder, type IrExpr } from "../ir.js";
import { analyzeSchema, type AnalyzeContext, type ShapeUse } from "./analyze.js";
import { ALPHABET, AutomatonTooLarge, dfaKey, dfaMatches, intersect, isEmpty, lengthRange, minimize, starClass, type Dfa } from "./automaton.js";
import { emitArray } from "./arrays.js";
import { emitUniqueArray } from "./unique-items.js";
import { dfaToIr, plainRanges, type RangeEncoder } from "./dfa-ir.js";
import type { EmitContext } from "./emit-context.js";
import { wordsToIr } from "./enums.js";
import { canonicalText, encodeRanges, JsonText, type TextOptions } from "./json-text.js";
import { largeFormsDfa, numDfa, numIsEmpty, numResidue, type NumSet } from "./numbers.js";
import { residueNumberIr } from "./residue-ir.js";
import { formatDfa, formatIr, formatLengthDfa } from "./formats.js";
import { emitObject } from "./objects.js";
import { Exclusions } from "./excludes.js";
import { SchemaRegistry, type Dialect, type Schema, type SchemaLoc } from "./resolve.js";
import {
  ANY,
  NONE,
  conjAnd,
  isTrue,
  layerConj,
  shapeAnd,
  shapeEmpty,
  shapeNot,
  shapeOr,
  TRUE,
  Unsupported,
  type Conj,
  type ObjAlt,
  type PatternProp,
  type Shape,
} from "./shape.js";
import { lengthsCountable, STR_NONE, strDfa, strIsAll, type StrSet } from "./strings.js";

/** A keyword the compiler did not enforce (lenient mode only). */
export interface UnenforcedKeyword {
  keyword: string;
  /** JSON pointer (URI fragment form) of the keyword in the schema. */
  schemaPath: string;
  reason: string;
}

/** Options of the compiler after defaults. */
export interface CompilerOptions extends TextOptions {
  anyOrder: boolean;
  lenient: boolean;
  formats: "assert" | "ignore" | "openapi";
  draft: Dialect;
  /** Members and items a schema does not declare: JSON Schema's "allow" or xgrammar's strict "forbid". */
  undeclared: "allow" | "forbid";
  /** Strings no string's text may contain (excludes.ts); absent or empty: none. */
  excludes?: readonly string[];
}

/**
 * Lowers a self-contained sub-schema (no `$` keyword at any depth) standalone, with the compiler's
 * options, and gives the expression of one of its values in the compiler's builder: the lowering
 * cache (lib/compile/lower.ts) keeps it as a fragment of its own, so a member schema that many
 * schemas hold (a tool's `range` object, its `tags` array) is compiled once per content and held
 * once by a grammar of them all. Throws a SchemaError where the schema cannot be compiled.
 */
export type SubSchemaLowering = (schema: { readonly [key: string]: unknown }) => IrExpr;

/**
 * A sub-schema smaller than this many JSON values (objects, arrays and scalars, keys not counted)
 * is compiled in place: importing a fragment costs about as much as compiling `{"type": "string"}`.
 */
const SHARED_MIN_VALUES = 4;

/** Thrown inside an emptiness check that reaches a schema whose shape is being computed. */
class CycleSignal extends Error {}

/** A schema whose shape is being computed; `lowest`: the outermost open schema it reached again. */
interface ShapeFrame {
  id: number;
  via: ShapeUse;
  lowest: number;
}

/**
 * The most analyses of a schema whose shape was computed before: a shape computed inside a cycle
 * is not kept (it is exact only inside that cycle), so cycles through many schemas analyse them
 * again.
 */
const MAX_REANALYSES = 20000;

/** How deep emptiness checks look into member schemas. */
const EMPTY_DEPTH = 3;

/** The most rules one schema may add to the grammar. */
export const MAX_RULES = 5000;

export class SchemaCompiler implements AnalyzeContext, EmitContext {
  readonly registry: SchemaRegistry;
  readonly text: JsonText;
  readonly exclusions: Exclusions | null;
  readonly unenforced: UnenforcedKeyword[] = [];
  private readonly shapes = new Map<number, Shape>();
  /** The schemas whose shapes are being computed, outermost first. */
  private readonly shapeStack: ShapeFrame[] = [];
  /** Schemas whose shapes were computed inside a cycle and not kept, and how often that happened. */
  private readonly unkept = new Set<number>();
  private reanalyses = 0;
  private readonly conjShapes = new Map<string, Shape>();
  private readonly conjRules = new Map<string, IrExpr>();
  /** The conjunctions lowered as sub-schema fragments (see sharedValue), by key. */
  private readonly sharedExprs = new Map<string, IrExpr>();
  /** The conjunctions whose standalone lowering failed (compiled in place; not tried again). */
  private readonly sharedFailures = new Set<string>();
  private readonly queue: Array<{ name: string; conj: Conj }> = [];
  private readonly consts = new Map<string, SchemaLoc>();
  private readonly dfaRules = new Map<string, IrExpr>();
  private readonly wordsRules = new WeakMap<readonly string[], IrExpr>();
  private readonly emptyMemo = new Map<string, boolean>();
  private readonly conjInProgress = new Set<string>();
  private readonly conjFailures = new Map<string, unknown>();
  private emptyDepth = 0;
  private ruleCount = 0;

  constructor(
    schema: Schema,
    readonly b: GrammarBuilder,
    readonly options: CompilerOptions,
    private readonly prefix: string,
    private readonly subSchemas: SubSchemaLowering | null = null,
  ) {
    this.registry = new SchemaRegistry(schema, options.draft);
    this.exclusions = options.excludes !== undefined && options.excludes.length > 0 ? new Exclusions(options.excludes) : null;
    this.text = new JsonText(b, prefix, options, this.exclusions);
  }

  get anyOrder(): boolean {
    return this.options.anyOrder;
  }

  get assertFormats(): boolean {
    return this.options.formats !== "ignore";
  }

  get openApiFormats(): boolean {
    return this.options.formats === "openapi";
  }

  get forbidUndeclared(): boolean {
    return this.options.undeclared === "forbid";
  }

  /** Compiles the root schema; returns the expression of a root value. */
  compileRoot(): IrExpr {
    const root = this.valueRef(this.conjOfRoot());
    this.drain();
    return root;
  }

  private conjOfRoot(): Conj {
    const loc = this.registry.root;
    if (typeof loc.schema === "boolean") return loc.schema ? TRUE : { parts: [], key: "F", isFalse: true };
    return { parts: [{ kind: "loc", loc, neg: false, key: String(loc.id) }], key: String(loc.id), isFalse: false };
  }

  // ---- AnalyzeContext ----

  shapeOf(loc: SchemaLoc, via: ShapeUse = "other"): Shape {
    const known = this.shapes.get(loc.id);
    if (known) return known;
    const at = this.shapeStack.findIndex((f) => f.id === loc.id);
    if (at >= 0) {
      // Inside an emptiness check this is only a question we cannot answer yet.
      if (this.emptyDepth > 0) throw new CycleSignal();
      return this.backReference(loc, at, via);
    }
    if (this.unkept.has(loc.id) && ++this.reanalyses > MAX_REANALYSES) {
      throw new SchemaError(loc.path, `the schema's $ref cycles through anyOf need more than ${MAX_REANALYSES} analyses of its subschemas; simplify them`, "$ref");
    }
    const frame: ShapeFrame = { id: loc.id, via, lowest: this.shapeStack.length };
    this.shapeStack.push(frame);
    let shape: Shape;
    try {
      shape = analyzeSchema(this, loc);
    } finally {
      this.shapeStack.pop();
    }
    const depth = this.shapeStack.length;
    if (frame.lowest >= depth) this.shapes.set(loc.id, shape);
    else {
      // Computed with an enclosing schema still open: right inside that schema only.
      this.unkept.add(loc.id);
      const parent = this.shapeStack[depth - 1]!;
      parent.lowest = Math.min(parent.lowest, frame.lowest);
    }
    return shape;
  }

  /**
   * A schema reached again while its own shape is being computed (stack index `at`). A cycle of
   * `anyOf` branches, `allOf` parts and `$ref`s that passes through an `anyOf` means its least
   * fixed point (what xgrammar's grammar for it and any terminating validator accept): the way
   * round contributes no value of its own, so the reference stands for no value here. Any other
   * cycle (through `not`, `oneOf`, `if`, or intersections alone) has no meaning to enforce.
   */
  private backReference(loc: SchemaLoc, at: number, via: ShapeUse): Shape {
    const ways = [...this.shapeStack.slice(at + 1).map((f) => f.via), via];
    if (!ways.includes("anyOf") || ways.some((w) => w === "other")) {
      throw new SchemaError(loc.path, "this schema refers to itself without any value in between (a $ref cycle through allOf/oneOf/not/if or a bare $ref; through anyOf it needs another branch)", "$ref");
    }
    const top = this.shapeStack[this.shapeStack.length - 1]!;
    top.lowest = Math.min(top.lowest, at);
    return NONE;
  }

  unsupported(path: string, keyword: string, message: string): void {
    if (!this.options.lenient) throw new SchemaError(path, message, keyword);
    this.unenforced.push({ keyword, schemaPath: path, reason: message });
  }

  constLoc(container: object, key: string | number, at: SchemaLoc): SchemaLoc {
    const value: unknown = (container as Record<string | number, unknown>)[key];
    const memo = typeof value === "number" ? (numberText(container, key) ?? JSON.stringify(value)) : stringifyExact(value);
    let loc = this.consts.get(memo);
    if (!loc) {
      const schema = { const: value };
      copyNumberText(container, key, schema, "const");
      loc = this.registry.loc(schema, `${at.path}/const`, at.base);
      this.consts.set(memo, loc);
    }
    return loc;
  }

  // ---- EmptinessOracle ----

  conjEmpty(c: Conj): boolean {
    if (c.isFalse) return true;
    if (isTrue(c) || this.emptyDepth >= EMPTY_DEPTH) return false;
    const known = this.emptyMemo.get(c.key);
    if (known !== undefined) return known;
    // A conjunction whose shape is being computed cannot be proven empty from inside itself.
    if (this.conjInProgress.has(c.key)) return false;
    this.emptyDepth++;
    let empty = false;
    let cycle = false;
    try {
      empty = shapeEmpty(this.shapeOfConj(c), this);
    } catch (err) {
      if (err instanceof CycleSignal) cycle = true;
      else if (!(err instanceof SchemaError || err instanceof Unsupported || err instanceof AutomatonTooLarge)) throw err;
    } finally {
      this.emptyDepth--;
    }
    // "Not proven empty" depends on the depth left and on what is being computed; "empty" does not.
    if (empty || (this.emptyDepth === 0 && !cycle)) this.emptyMemo.set(c.key, empty);
    return empty;
  }

  nameConj(alt: ObjAlt, name: string): Conj {
    return conjAnd(...alt.layers.map((l) => layerConj(l, name, (p, n) => this.patternMatches(p, n))));
  }

  patternMatches(p: PatternProp, name: string): boolean {
    return dfaMatches(p.dfa, name);
  }

  keyExcluded(name: string): boolean {
    return this.exclusions !== null && this.exclusions.blocks(name);
  }

  keyLanguage(dfa: Dfa): Dfa {
    const ex = this.exclusions;
    return ex === null || ex.cannotOccurIn(dfa) ? dfa : intersect(dfa, ex.canonicalDfa());
  }

  /**
   * {@link conjEmpty} for a value about to be emitted (an object's member, an array's item): a
   * self-contained sub-schema is lowered first (or taken from the cache), and its fragment
   * answers. Its own compile analyzed the schema in full, so this compiler does not analyze it a
   * second time (for a member shared by many tools, no compile analyzes it again at all). A
   * fragment that is `never` allows no value; any other is taken as not empty, which keeps the
   * language either way (a member that allows no value cannot be completed).
   */
  valueEmpty(c: Conj): boolean {
    if (c.isFalse) return true;
    if (isTrue(c) || this.emptyDepth > 0) return this.conjEmpty(c);
    const shared = this.sharedExprs.get(c.key) ?? (this.conjRules.has(c.key) ? undefined : this.sharedValue(c));
    return shared === undefined ? this.conjEmpty(c) : shared.kind === "never";
  }

  // ---- conjunctions and rules ----

  /** The shape of a conjunction (memoized). */
  shapeOfConj(c: Conj): Shape {
    const known = this.conjShapes.get(c.key);
    if (known) return known;
    // A refusal is remembered: emptiness checks may ask again and again.
    const failed = this.conjFailures.get(c.key);
    if (failed !== undefined) throw failed;
    let shape: Shape = ANY;
    if (c.isFalse) shape = { ...ANY, nul: false, bool: 0, num: { kind: "none" }, str: { kind: "none" }, arr: [], obj: [] };
    this.conjInProgress.add(c.key);
    try {
      shape = this.conjParts(c, shape);
    } catch (err) {
      if (!(err instanceof CycleSignal)) this.conjFailures.set(c.key, err);
      throw err;
    } finally {
      this.conjInProgress.delete(c.key);
    }
    this.conjShapes.set(c.key, shape);
    return shape;
  }

  private conjParts(c: Conj, start: Shape): Shape {
    let shape = start;
    for (const part of c.parts) {
      let s: Shape;
      if (part.kind === "loc") {
        const base = this.shapeOf(part.loc);
        if (!part.neg) s = base;
        else {
          try {
            s = shapeNot(base, this);
          } catch (err) {
            if (err instanceof AutomatonTooLarge) {
              this.unsupported(part.loc.path, "not", `negating this schema needs too large an automaton (${err.detail})`);
            } else if (err instanceof Unsupported) {
              this.unsupported(part.loc.path, err.keyword, `${err.message} (needed to negate this schema)`);
            } else throw err;
            s = ANY;
          }
        }
      } else {
        s = part.items.map((x) => this.shapeOfConj(x)).reduce((a, x) => shapeOr(a, x));
      }
      shape = shapeAnd(shape, s, this);
    }
    return shape;
  }

  valueRef(conj: Conj): IrExpr {
    if (isTrue(conj)) return this.text.anyValue();
    if (conj.isFalse) return never();
    let r = this.conjRules.get(conj.key) ?? this.sharedValue(conj);
    if (!r) {
      const name = this.ruleName(hintOf(conj));
      r = this.b.ruleRef(name);
      this.conjRules.set(conj.key, r);
      this.queue.push({ name, conj });
    }
    return r;
  }

  /**
   * A value of a conjunction that is one self-contained sub-schema, lowered standalone by
   * `subSchemas` (and remembered like a rule); null where that could change its meaning or
   * where it fails (compiled in place, the failure is then reported at its own path).
   * A standalone compile reads the sub-schema as this compiler reads it when it names the root's
   * draft (`$schema`, copied in; without one, the lowering's default 2020-12) and nothing in it
   * refers elsewhere (`$ref`, `$dynamicRef`) or sets a base (`$id`): hence no `$` keyword at all. A conjunction of several parts (`allOf`
   * members, pattern members, unevaluated members) depends on its context and is compiled here.
   */
  private sharedValue(conj: Conj): IrExpr | undefined {
    const lower = this.subSchemas;
    const registry = this.registry;
    if (lower === null || conj.parts.length !== 1 || (!registry.declared && registry.dialect !== "2020-12")) return undefined;
    const part = conj.parts[0]!;
    if (part.kind !== "loc" || part.neg || part.loc === registry.root) return undefined;
    const schema = part.loc.schema;
    if (typeof schema !== "object" || this.sharedFailures.has(conj.key) || selfContainedValues(schema) < SHARED_MIN_VALUES) return undefined;
    let r: IrExpr;
    try {
      r = lower(registry.declared ? withDraftOf(registry.root.schema as Obj, schema) : schema);
    } catch (err) {
      if (err instanceof SchemaError) {
        this.sharedFailures.add(conj.key);
        return undefined;
      }
      throw err;
    }
    this.conjRules.set(conj.key, r);
    this.sharedExprs.set(conj.key, r);
    return r;
  }

  /**
   * A rule for the automaton's language: as the inside of a JSON string, as plain text, or as the
   * inside of a JSON string whose code points are counted units (for a counted length).
   */
  dfaIr(dfa: Dfa, hint: string, encoding: "string" | "plain" | "units"): IrExpr {
    const key = `${encoding}:${dfaKey(dfa)}`;
    let r = this.dfaRules.get(key);
    if (!r) {
      const name = this.ruleName(hint);
      r = this.b.ruleRef(name);
      this.dfaRules.set(key, r);
      const encode = encoding === "string" ? encodeRanges : encoding === "units" ? unitRanges : plainRanges;
      this.b.define(name, dfaToIr(dfa, this.b, name, encode));
    }
    return r;
  }

  /** IR of a finite string set inside JSON quotes, one rule per distinct set. */
  private wordsIr(words: readonly string[]): IrExpr {
    // Small sets are shared by content; large ones by identity (spelling out their key would
    // cost as much as emitting them again).
    let r = this.wordsRules.get(words);
    if (r) return r;
    const key = words.length <= 64 ? `words:${JSON.stringify(words)}` : null;
    r = key === null ? undefined : this.dfaRules.get(key);
    if (!r) {
      const name = this.ruleName("enum");
      r = this.b.ruleRef(name);
      if (key !== null) this.dfaRules.set(key, r);
      this.b.define(name, wordsToIr(words, this.b, name, canonicalText));
    }
    this.wordsRules.set(words, r);
    return r;
  }

  ruleName(hint: string): string {
    if (++this.ruleCount > MAX_RULES) {
      throw new SchemaError("#", `the grammar for this schema would need more than ${MAX_RULES} rules`, "$ref");
    }
    return this.b.freshName(`${this.prefix}${hint}`);
  }

  private drain(): void {
    for (let i = 0; i < this.queue.length; i++) {
      const { name, conj } = this.queue[i]!;
      const where = whereOf(conj);
      let shape: Shape;
      try {
        shape = this.shapeOfConj(conj);
      } catch (err) {
        if (err instanceof Unsupported) this.unsupported(where, err.keyword, err.message);
        else if (err instanceof AutomatonTooLarge) this.unsupported(where, "allOf", `combining these schemas needs too large an automaton (${err.detail})`);
        else throw err;
        shape = ANY;
      }
      this.b.define(name, this.emitShape(shape, where));
    }
  }

  // ---- emission ----

  private emitShape(s: Shape, where: string): IrExpr {
    const alts: IrExpr[] = [];
    if (s.obj.length > 0) for (const o of s.obj) alts.push(emitObject(this, o, where));
    if (s.arr.length > 0) for (const a of s.arr) alts.push((a.unique ? emitUniqueArray(this, a, where) : null) ?? emitArray(this, { ...a, unique: false }, where));
    if (s.str.kind !== "none") alts.push(this.emitString(s.str, where));
    if (!numIsEmpty(s.num)) alts.push(this.emitNumber(s.num));
    if (s.bool & 2) alts.push(lit("true"));
    if (s.bool & 1) alts.push(lit("false"));
    if (s.nul) alts.push(lit("null"));
    const live = alts.filter((a) => a.kind !== "never");
    return live.length === 0 ? never() : live.length === 1 ? live[0]! : choice(...live);
  }

  private emitNumber(n: NumSet): IrExpr {
    switch (n.kind) {
      case "none":
        return never();
      case "all":
        return this.text.anyNumber();
      case "int":
        // The same language as the integer automaton (NUM_INT): `1.0` is an integer (drafts 6
        // and later say so, and `{"type": "integer", "minimum": 0}` must agree).
        return this.text.rule("integer", () =>
          choice(
            seq(this.text.plainInteger(), optional(seq(lit("."), repeat(lit("0"), 1, null)))),
            this.dfaIr(largeFormsDfa(), "big_integer", "plain"),
          ),
        );
      case "dfa": {
        const m = numResidue(n);
        if (m === null) return this.dfaIr(numDfa(n), "number", "plain");
        // A large divisor's remainder is kept by the matcher (residue-ir.ts).
        const key = `residue:${m}:${dfaKey(n.dfa)}`;
        let r = this.dfaRules.get(key);
        if (!r) {
          const name = this.ruleName("number");
          r = this.b.ruleRef(name);
          this.dfaRules.set(key, r);
          this.b.define(name, residueNumberIr(minimize(n.dfa), BigInt(m), this.b, name));
        }
        return r;
      }
    }
  }

  /** The strings of `s` whose text holds no excluded string (unconstrained strings are filtered by JsonText). */
  private withoutExcluded(s: StrSet, where: string): StrSet | null {
    const ex = this.exclusions;
    if (ex === null || s.kind === "none" || strIsAll(s)) return s;
    if (s.kind === "words") {
      const kept = s.words.filter((w) => !ex.blocks(w));
      return kept.length === 0 ? STR_NONE : { kind: "words", words: kept };
    }
    if ((s.dfa !== null && ex.cannotOccurIn(s.dfa)) || (s.fmt !== null && ex.cannotOccurIn(formatDfa(s.fmt)))) return s;
    try {
      const dfa = s.dfa === null ? ex.canonicalDfa() : intersect(s.dfa, ex.canonicalDfa());
      return isEmpty(dfa) ? STR_NONE : { ...s, dfa };
    } catch (err) {
      if (!(err instanceof AutomatonTooLarge)) throw err;
      this.unsupported(
        where,
        s.fmt !== null ? "format" : "pattern",
        `the string's ${s.fmt !== null ? "format" : "pattern"}, crossed with the excluded strings (excludes), needs too large an automaton (${err.detail}): give fewer or shorter excluded strings, or a simpler ${s.fmt !== null ? "format" : "pattern"}`,
      );
      return null;
    }
  }

  private emitString(set: StrSet, where: string): IrExpr {
    const s = this.withoutExcluded(set, where);
    if (s === null) return this.text.anyString();
    if (s.kind === "none") return never();
    const quote = lit('"');
    if (s.kind === "words") return seq(quote, this.wordsIr(s.words), quote);
    if (s.fmt !== null && s.dfa === null) {
      // Length bounds every string of the format already meets need no product.
      const range = s.min === 0 && s.max === null ? null : formatLengths(s.fmt);
      if (range === null || meetsBounds(range, s)) {
        return seq(quote, formatIr(s.fmt, this.b, (n, body) => this.text.rule(n, body), encodeRanges, (h) => this.ruleName(h)), quote);
      }
    }
    if (s.dfa === null && s.fmt === null) {
      if (s.min === 0 && s.max === null) return this.text.anyString();
      return seq(quote, repeat(encodeRanges(ALPHABET), s.min, s.max), quote);
    }
    if (s !== set && s.kind === "lang" && (s.min > 0 || s.max !== null)) {
      // Excludes crossed with a long length: the matcher counts the code points (as for a too
      // large product below) rather than the automaton multiplying its states by the bound.
      const countedIr = this.countedString(s);
      if (countedIr !== null) return countedIr;
    }
    const loop = s.dfa === null || s.fmt !== null ? null : starClass(s.dfa);
    if (loop !== null) {
      if (loop.length === 0) return s.min === 0 ? lit('""') : never();
      return seq(quote, repeat(encodeRanges(loop), s.min, s.max), quote);
    }
    try {
      let set = s;
      if (s.min > 0 || s.max !== null) {
        // A pattern or format crossed with a length counter: bounds every string already meets
        // are dropped; a product over the state budget, or one with a bound of COUNT_LENGTH_FROM
        // or more, is counted instead (below).
        const base = strDfa({ ...s, min: 0, max: null });
        const range = lengthRange(base);
        const bound = s.max ?? s.min;
        if (meetsBounds(range, s)) set = { ...s, min: 0, max: null };
        else if (base.accept.length * (bound + 1) > PRODUCT_BUDGET || (bound >= COUNT_LENGTH_FROM && lengthsCountable(base, s.min, s.max))) {
          throw new AutomatonTooLarge(PRODUCT_BUDGET);
        }
      }
      const dfa = strDfa(set);
      // The budget is for length counters; a pattern crossed with a format (a date-time search)
      // is bounded by the product's own limit, like the format alone.
      if (set.min === s.min && set.max === s.max && (s.min > 0 || s.max !== null) && dfa.accept.length > PRODUCT_BUDGET) throw new AutomatonTooLarge(PRODUCT_BUDGET);
      return seq(quote, this.dfaIr(dfa, "string", "string"), quote);
    } catch (err) {
      if (!(err instanceof AutomatonTooLarge)) throw err;
      if (s.min === 0 && s.max === null) {
        this.unsupported(where, s.fmt !== null ? "format" : "pattern", "the string's patterns and format combined need too large an automaton");
        return this.text.anyString();
      }
      // Too large as a product: the engine counts the length instead (a counted node whose units
      // are the code points), when the lengths left from each state are ranges.
      let base: Dfa | null = null;
      try {
        base = s.min !== 0 || s.max !== null ? strDfa({ ...s, min: 0, max: null }) : null;
      } catch (inner) {
        if (!(inner instanceof AutomatonTooLarge)) throw inner;
      }
      if (base !== null && base.accept.length <= PRODUCT_BUDGET && lengthsCountable(base, s.min, s.max)) {
        return seq(quote, counted(this.dfaIr(base, "string", "units"), s.min, s.max), quote);
      }
      this.unsupported(
        where,
        s.min > 0 ? "minLength" : "maxLength",
        base !== null && base.accept.length <= PRODUCT_BUDGET
          ? "the lengths the string's pattern or format allows, crossed with its length bounds, are not a range from some point on (e.g. a fixed length with only even lengths), so the length cannot be counted"
          : "the string's pattern or format needs too large an automaton",
      );
      if (s.min !== 0 || s.max !== null) return this.emitString({ ...s, min: 0, max: null }, where);
      return this.text.anyString();
    }
  }

  /** A string of `s`'s language whose length the matcher counts, or null when the lengths are not countable that way. */
  private countedString(s: Extract<StrSet, { kind: "lang" }>): IrExpr | null {
    let base: Dfa;
    try {
      base = strDfa({ ...s, min: 0, max: null });
    } catch (err) {
      if (err instanceof AutomatonTooLarge) return null;
      throw err;
    }
    // A small product compiles faster than a counted node (maxLength 16 over the Kimi K3 markers'
    // 14 states: 118 ms against 379 ms); a large one far slower (maxLength 200: 3066 against 464).
    if (base.accept.length * ((s.max ?? s.min) + 1) <= COUNT_PAST) return null;
    if (base.accept.length > PRODUCT_BUDGET || !lengthsCountable(base, s.min, s.max)) return null;
    return seq(lit('"'), counted(this.dfaIr(base, "string", "units"), s.min, s.max), lit('"'));
  }
}

/** One code point of the ranges inside a JSON string, counted as a unit. */
const unitRanges: RangeEncoder = (ranges) => unit(encodeRanges(ranges));

/** Whether every length in `range` is within the bounds (`date-time` always has `minLength: 1`). */
function meetsBounds(range: { min: number; max: number | null }, s: { min: number; max: number | null }): boolean {
  return range.min >= s.min && (s.max === null || (range.max !== null && range.max <= s.max));
}

/** The most states of a pattern or format crossed with a length counter. */
const PRODUCT_BUDGET = 6000;
/**
 * A pattern or format crossed with a length bound this large is counted, not unrolled: the
 * product's states are each walked over the vocabulary (and a position tells its distance to
 * the end within a token's length, so few of them share a walk), while the counted node's are
 * walked once with the count symbolic. Llama 3, one thread, an object of two such strings (CPU
 * ms, product against counted): `^[^,"]+$` 8: 40/54, 16: 89/60, 48: 313/47;
 * `^\S+@\S+$` 8: 39/64, 16: 94/71, 32: 600/102; `^[a-z0-9_-]+$` 16: 34/27, 48: 55/17.
 */
const COUNT_LENGTH_FROM = 16;
/** With excludes, a length crossed with an automaton of more states than this is counted instead. */
const COUNT_PAST = 1000;

const formatLengthCache = new Map<string, { min: number; max: number | null }>();

/** The lengths strings of an enforced format can have. */
function formatLengths(fmt: string): { min: number; max: number | null } {
  let r = formatLengthCache.get(fmt);
  if (!r) {
    r = lengthRange(formatLengthDfa(fmt));
    formatLengthCache.set(fmt, r);
  }
  return r;
}

type Obj = { readonly [key: string]: unknown };

/** `schema` naming the draft `root` names (`$schema` first), its numbers' written text kept. */
function withDraftOf(root: Obj, schema: Obj): Obj {
  const out: Record<string, unknown> = { $schema: root.$schema };
  for (const key of Object.keys(schema)) {
    out[key] = schema[key];
    copyNumberText(schema, key, out, key);
  }
  return out;
}

/** The JSON values in `v` (0 when an object in it has a key starting with `$`). */
function selfContainedValues(v: unknown): number {
  if (typeof v !== "object" || v === null) return 1;
  let n = 1;
  if (Array.isArray(v)) {
    for (const x of v) {
      const m = selfContainedValues(x);
      if (m === 0) return 0;
      n += m;
    }
    return n;
  }
  for (const key in v) {
    if (key.startsWith("$")) return 0;
    const m = selfContainedValues((v as Record<string, unknown>)[key]);
    if (m === 0) return 0;
    n += m;
  }
  return n;
}

function whereOf(conj: Conj): string {
  for (const p of conj.parts) if (p.kind === "loc") return p.loc.path;
  for (const p of conj.parts) if (p.kind === "or") return whereOf(p.items[0]!);
  return "#";
}

function hintOf(conj: Conj): string {
  const where = whereOf(conj);
  const tail = where.split("/").slice(-2).join("_").replace(/[^A-Za-z0-9_]/g, "_");
  return tail === "#" || tail === "_" ? "root" : tail.replace(/^_+/, "").slice(0, 40) || "value";
}

