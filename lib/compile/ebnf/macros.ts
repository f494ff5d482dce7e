/**
 * xgrammar's built-in EBNF macros, expanded into IR (docs/regex-and-ebnf.md, "Macros"):
 *
 * - `TagDispatch(("tag", rule), …, loop_after_dispatch=true, excludes=("s", …), stop_eos=true,
 *   stop_str=("s", …))`: free text in which each tag, where it occurs, is followed by its rule;
 *   the text may not contain a tag, an excluded string or a stop string. With stop strings the
 *   dispatch ends with one of them (consumed), with `stop_eos` it may also just end; without
 *   `loop_after_dispatch` it ends after the first dispatched rule.
 * - `TokenTagDispatch((token, rule), …, loop_after_dispatch=true, excludes=(token, …))`: the same
 *   over tokens; the free tokens exclude the triggers and the excluded tokens.
 * - `Token(t, …)`: one of these tokens; `ExcludeToken(t, …)`: one free token not among them.
 *
 * Tokens are ids or token texts (resolved against the vocabulary when the grammar is compiled).
 */
import { dispatchExpr } from "../dispatch.js";
import { anyTokens, choice, empty, excludeToken, lit, seq, text, token, type IrExpr, type IrTokenRef } from "../ir.js";

/** A macro argument value, with its offset in the source. */
export type MacroValue =
  | { kind: "string"; value: string; at: number }
  | { kind: "int"; value: number; at: number }
  | { kind: "bool"; value: boolean; at: number }
  | { kind: "name"; value: string; at: number }
  | { kind: "tuple"; items: MacroValue[]; at: number };

/** The arguments of one macro call. */
export interface MacroArgs {
  positional: MacroValue[];
  named: Map<string, MacroValue>;
  /** Offsets of the names of the named arguments. */
  namedAt: Map<string, number>;
  /** Offset of the macro's name. */
  at: number;
}

/** What expansion needs from the parser: rule references and located errors. */
export interface MacroHost {
  ruleRef(name: string, at: number): IrExpr;
  fail(message: string, at: number): never;
}

/** The macros this front end expands (xgrammar's `Regex` is not among them). */
export const MACROS = new Set(["TagDispatch", "TokenTagDispatch", "Token", "ExcludeToken"]);

const describe = (v: MacroValue): string => (v.kind === "tuple" ? "a tuple" : v.kind === "name" ? `the name ${v.value}` : `${v.kind} ${JSON.stringify(v.value)}`);

function tokenRef(host: MacroHost, v: MacroValue, what: string): IrTokenRef {
  if (v.kind === "int") return v.value;
  if (v.kind === "string" && v.value !== "") return v.value;
  return host.fail(`${what} must be a token id or a non-empty token text, found ${describe(v)}`, v.at);
}

/** A named tuple argument's items; a single value counts as a tuple of one. */
function tupleItems(v: MacroValue): MacroValue[] {
  return v.kind === "tuple" ? v.items : [v];
}

function boolArg(host: MacroHost, args: MacroArgs, name: string, fallback: boolean): boolean {
  const v = args.named.get(name);
  if (v === undefined) return fallback;
  if (v.kind !== "bool") host.fail(`${name} must be true or false, found ${describe(v)}`, v.at);
  return v.value;
}

function stringsArg(host: MacroHost, args: MacroArgs, name: string): string[] {
  const v = args.named.get(name);
  if (v === undefined) return [];
  return tupleItems(v).map((x) => {
    if (x.kind !== "string" || x.value === "") host.fail(`${name} must hold non-empty strings, found ${describe(x)}`, x.at);
    return x.value;
  });
}

function checkNamed(host: MacroHost, macro: string, args: MacroArgs, allowed: readonly string[]): void {
  for (const [name, v] of args.named) {
    if (!allowed.includes(name)) host.fail(`unknown argument ${name} of ${macro}; ${allowed.length === 0 ? "it takes no named arguments" : `expected ${allowed.join(", ")}`}`, args.namedAt.get(name) ?? v.at);
  }
}

/** The (trigger, rule) pairs of a dispatch macro. */
function pairs<K>(host: MacroHost, macro: string, args: MacroArgs, key: (v: MacroValue) => K): Array<[K, IrExpr, number]> {
  return args.positional.map((p) => {
    if (p.kind !== "tuple" || p.items.length !== 2) host.fail(`each ${macro} argument must be a pair (trigger, rule), found ${describe(p)}`, p.at);
    const [trigger, rule] = p.items as [MacroValue, MacroValue];
    if (rule.kind !== "name") host.fail(`the second element of a ${macro} pair must be a rule name, found ${describe(rule)}`, rule.at);
    return [key(trigger), host.ruleRef(rule.value, rule.at), trigger.at];
  });
}

function tagDispatch(host: MacroHost, args: MacroArgs): IrExpr {
  checkNamed(host, "TagDispatch", args, ["loop_after_dispatch", "excludes", "stop_eos", "stop_str"]);
  const list = pairs(host, "TagDispatch", args, (v) => {
    if (v.kind !== "string" || v.value === "") host.fail(`a TagDispatch tag must be a non-empty string, found ${describe(v)}`, v.at);
    return v.value;
  });
  const excludes = stringsArg(host, args, "excludes");
  const stops = stringsArg(host, args, "stop_str");
  const stopEos = boolArg(host, args, "stop_eos", true);
  if (!stopEos && stops.length === 0) host.fail("TagDispatch needs stop_eos=true or at least one stop string in stop_str, or it could never end", args.at);
  for (const x of excludes) if (stops.includes(x)) host.fail(`${JSON.stringify(x)} is both excluded and a stop string of TagDispatch`, args.named.get("excludes")!.at);
  for (const [tag, , at] of list) if (excludes.includes(tag)) host.fail(`the tag ${JSON.stringify(tag)} is also excluded, so it could never dispatch`, at);
  const free = text([...new Set([...list.map(([t]) => t), ...excludes, ...stops])]);
  const item = choice(...list.map(([tag, rule]) => seq(lit(tag), rule)));
  const end = stops.length === 0 ? undefined : choice(...(stopEos ? [empty()] : []), ...stops.map((s) => lit(s)));
  return dispatchExpr(free, item, boolArg(host, args, "loop_after_dispatch", true), end);
}

function tokenTagDispatch(host: MacroHost, args: MacroArgs): IrExpr {
  checkNamed(host, "TokenTagDispatch", args, ["loop_after_dispatch", "excludes"]);
  const list = pairs(host, "TokenTagDispatch", args, (v) => tokenRef(host, v, "a TokenTagDispatch trigger"));
  const excludesArg = args.named.get("excludes");
  const excludes = excludesArg === undefined ? [] : tupleItems(excludesArg).map((v) => tokenRef(host, v, "an excluded token"));
  for (const [t, , at] of list) if (excludes.includes(t)) host.fail(`the trigger ${JSON.stringify(t)} is also excluded, so it could never dispatch`, at);
  const free = anyTokens([...new Set([...list.map(([t]) => t), ...excludes])]);
  const item = choice(...list.map(([t, rule]) => seq(token(t), rule)));
  return dispatchExpr(free, item, boolArg(host, args, "loop_after_dispatch", true));
}

function tokenList(host: MacroHost, macro: string, args: MacroArgs, atLeastOne: boolean): IrTokenRef[] {
  checkNamed(host, macro, args, []);
  if (atLeastOne && args.positional.length === 0) host.fail(`${macro}(…) needs at least one token`, args.at);
  return args.positional.map((v) => tokenRef(host, v, `an argument of ${macro}`));
}

/** Expands macro `name` (one of {@link MACROS}). */
export function expandMacro(host: MacroHost, name: string, args: MacroArgs): IrExpr {
  switch (name) {
    case "TagDispatch":
      return tagDispatch(host, args);
    case "TokenTagDispatch":
      return tokenTagDispatch(host, args);
    case "Token":
      return token(...tokenList(host, name, args, true));
    default:
      return excludeToken(tokenList(host, name, args, false));
  }
}
