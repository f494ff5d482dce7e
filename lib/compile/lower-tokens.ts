/**
 * Lowering of the dispatch and token-level formats (lower.ts calls these), with xgrammar's
 * semantics:
 *
 * - `dispatch{rules, loop, excludes}` → `T (rule T)*` (loop) or `T rule?` (no loop), where
 *   `rule` is the choice of `pattern format` and `T` the text excluding every pattern and the
 *   excludes. Unlike `any_text`, a dispatch does not add the enclosing tag's ends to `T`: a
 *   dispatch that should stop at a string lists it in its excludes (xgrammar's rule).
 * - `token{token}` → one token; `exclude_token{exclude_tokens}` → one free token that is not
 *   excluded, nor the end token of the innermost enclosing tag; `any_tokens` → any number of
 *   such tokens (at most `max_tokens`).
 * - `token_triggered_tags` → `triggered_tags` over tokens: `T (tag T)*` with `T` the free tokens
 *   other than the triggers, the excluded tokens and the enclosing tag's end token;
 *   `at_least_one` → `tag T (tag T)*`, `stop_after_first` → `T tag?`, both → `tag`.
 * - `token_dispatch{rules, loop, exclude_tokens}` → `T (token format T)*` (or `T (token
 *   format)?`), `T` the free tokens other than the rule tokens and the excluded ones.
 *
 * End detection follows xgrammar: a string end reaches the string-level formats inside the tag
 * (any_text, triggered_tags), a token end the token-level ones (exclude_token, any_tokens,
 * token_triggered_tags); neither crosses over.
 */
import type {
  AnyTokensFormat, DispatchFormat, ExcludeTokenFormat, Format, TagFormat, TokenDispatchFormat, TokenRef, TokenTriggeredTagsFormat,
} from "../format/types.js";
import { dispatchExpr } from "./dispatch.js";
import { anyTokens, choice, excludeToken, lit, repeat, seq, star, text, token, type IrExpr } from "./ir.js";

/** What the lowering of lower.ts offers the functions here. */
export interface TokenLoweringContext {
  /** Lowers a child format (with the current enclosing ends). */
  format(f: Format, path: string): IrExpr;
  /** The choice of the given tags, each lowered as a tag. */
  tagChoice(tags: readonly TagFormat[], path: string): IrExpr;
  /** Defines a rule under a fresh name derived from `base`; returns a reference to it. */
  define(base: string, body: IrExpr): IrExpr;
  /** The end token of the innermost enclosing tag, if its end is a token. */
  readonly endTokens: readonly TokenRef[];
}

/** Distinct token references in order of first appearance. */
function distinctRefs(lists: ReadonlyArray<readonly TokenRef[]>): TokenRef[] {
  const out: TokenRef[] = [];
  for (const list of lists) for (const r of list) if (!out.includes(r)) out.push(r);
  return out;
}

/** A `dispatch` format. */
export function lowerDispatch(ctx: TokenLoweringContext, f: DispatchFormat, path: string): IrExpr {
  const patterns = f.rules.map((r) => r[0]);
  const free = text([...new Set([...patterns, ...(f.excludes ?? [])])]);
  const item = choice(...f.rules.map(([pattern, rule], i) => seq(lit(pattern), ctx.format(rule, `${path}.rules[${i}][1]`))));
  return ctx.define("dispatch", dispatchExpr(free, item, f.loop ?? true));
}

/** An `exclude_token` format. */
export function lowerExcludeToken(ctx: TokenLoweringContext, f: ExcludeTokenFormat): IrExpr {
  return excludeToken(distinctRefs([f.exclude_tokens ?? [], ctx.endTokens]));
}

/** An `any_tokens` format. */
export function lowerAnyTokens(ctx: TokenLoweringContext, f: AnyTokensFormat): IrExpr {
  // A budget of no token is the empty output, whatever the exclusions.
  if (f.max_tokens === 0) return lit("");
  return anyTokens(distinctRefs([f.exclude_tokens ?? [], ctx.endTokens]), f.max_tokens ?? null);
}

/** A `token_triggered_tags` format. */
export function lowerTokenTriggeredTags(ctx: TokenLoweringContext, f: TokenTriggeredTagsFormat, path: string): IrExpr {
  const free = anyTokens(distinctRefs([f.trigger_tokens, f.exclude_tokens ?? [], ctx.endTokens]));
  const tag = ctx.tagChoice(f.tags, path);
  const first = f.at_least_one ?? false;
  const once = f.stop_after_first ?? false;
  let body: IrExpr;
  if (first && once) body = tag;
  else if (once) body = seq(free, repeat(tag, 0, 1));
  else if (first) body = seq(tag, free, star(seq(tag, free)));
  else body = seq(free, star(seq(tag, free)));
  return ctx.define("token_triggered_tags", body);
}

/** A `token_dispatch` format. */
export function lowerTokenDispatch(ctx: TokenLoweringContext, f: TokenDispatchFormat, path: string): IrExpr {
  const triggers = f.rules.map((r) => r[0]);
  const free = anyTokens(distinctRefs([triggers, f.exclude_tokens ?? []]));
  const item = choice(...f.rules.map(([t, rule], i) => seq(token(t), ctx.format(rule, `${path}.rules[${i}][1]`))));
  return ctx.define("token_dispatch", dispatchExpr(free, item, f.loop ?? true));
}

/** The IR of a tag's begin or end token, or of a `token` format. */
export function lowerToken(t: TokenRef): IrExpr {
  return token(t);
}
