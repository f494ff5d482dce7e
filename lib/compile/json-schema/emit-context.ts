/**
 * What the array and object emitters need from the compiler: lexical pieces, rules for member
 * and item schemas, emptiness checks, and the refusal hook.
 */
import type { GrammarBuilder, IrExpr } from "../ir.js";
import type { Dfa } from "./automaton.js";
import type { JsonText } from "./json-text.js";
import type { Conj, ObjAlt, PatternProp } from "./shape.js";

export interface EmitContext {
  readonly b: GrammarBuilder;
  readonly text: JsonText;
  readonly anyOrder: boolean;
  /** A reference to the rule for values of `conj` (`true`: any value). */
  valueRef(conj: Conj): IrExpr;
  /** Whether `conj` certainly allows no value. */
  conjEmpty(conj: Conj): boolean;
  /** {@link conjEmpty} for a value that {@link valueRef} is asked for next (it may lower it first). */
  valueEmpty(conj: Conj): boolean;
  /** The value constraint of member `name` under every layer of `alt`. */
  nameConj(alt: ObjAlt, name: string): Conj;
  /** Whether a declared name holds an excluded string when written (it may then not occur). */
  keyExcluded(name: string): boolean;
  /** The keys of a region's (canonical) automaton whose text holds no excluded string; may throw AutomatonTooLarge. */
  keyLanguage(dfa: Dfa): Dfa;
  /** Whether a pattern matches a name. */
  patternMatches(p: PatternProp, name: string): boolean;
  /** Reports a constraint that cannot be enforced (throws when strict). */
  unsupported(path: string, keyword: string, message: string): void;
  /** IR of a DFA's language, `string`-encoded (inside JSON quotes) or `plain`; memoized by language. */
  dfaIr(dfa: Dfa, hint: string, encoding: "string" | "plain"): IrExpr;
  /** A fresh rule name derived from `hint`. */
  ruleName(hint: string): string;
}

/** The largest number of rules one array or object automaton may create. */
export const MAX_MACHINE_STATES = 4096;
