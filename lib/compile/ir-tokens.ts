/**
 * The token-level nodes of the grammar IR (docs/ir.md, "Token nodes"): they match whole tokens
 * of the vocabulary by id, not bytes. A token is named by its id or by its text; a text is
 * resolved against the vocabulary when the grammar is compiled (it must be exactly the bytes of
 * a token). ir.ts holds the node union; this file holds their types, constructors, checks,
 * binary form and printing.
 */
import { GrammarError } from "../errors.js";

/** A token: its id, or its text (resolved when the grammar is compiled against a vocabulary). */
export type IrTokenRef = number | string;

/** Exactly one token, one of `tokens` (at least one). */
export interface IrToken {
  kind: "token";
  tokens: IrTokenRef[];
}
/**
 * Exactly one of the vocabulary's free tokens, none of `excludes`. The free tokens are the
 * tokens that stand for text (not control tokens, not stop tokens, not padding).
 */
export interface IrExcludeToken {
  kind: "excludeToken";
  excludes: IrTokenRef[];
}
/** Zero or more free tokens, none of `excludes`, at most `maxTokens` of them (null: unbounded). */
export interface IrAnyTokens {
  kind: "anyTokens";
  excludes: IrTokenRef[];
  maxTokens: number | null;
}

export type IrTokenNode = IrToken | IrExcludeToken | IrAnyTokens;

/** Kind codes of the binary form (16–23 are reserved for token nodes). */
export const TOKEN_KIND_CODE = { token: 16, excludeToken: 17, anyTokens: 18 } as const;

/** The largest token id a grammar may name. */
export const MAX_TOKEN_ID = 0x7fffffff;

/** One token, any of `tokens`. */
export function token(...tokens: IrTokenRef[]): IrToken {
  return { kind: "token", tokens };
}
/** One free token, none of `excludes`. */
export function excludeToken(excludes: IrTokenRef[] = []): IrExcludeToken {
  return { kind: "excludeToken", excludes };
}
/** Any number of free tokens (at most `maxTokens`), none of `excludes`. */
export function anyTokens(excludes: IrTokenRef[] = [], maxTokens: number | null = null): IrAnyTokens {
  return { kind: "anyTokens", excludes, maxTokens };
}

/** The references of a token node, positive (`token`) or excluded. */
export function tokenRefsOf(e: IrTokenNode): readonly IrTokenRef[] {
  return e.kind === "token" ? e.tokens : e.excludes;
}

function fail(where: string, message: string): never {
  throw new GrammarError(`invalid grammar IR at ${where}: ${message}`);
}

/** Checks a token node's fields (docs/ir.md); throws a GrammarError naming the node. */
export function validateTokenNode(e: IrTokenNode, where: string): void {
  const refs = tokenRefsOf(e);
  if (e.kind === "token" && refs.length === 0) fail(where, "a token node needs at least one token");
  refs.forEach((r, i) => {
    if (typeof r === "number") {
      if (!Number.isInteger(r) || r < 0 || r > MAX_TOKEN_ID) fail(`${where}.tokens[${i}]`, `a token id must be an integer in [0, ${MAX_TOKEN_ID}], got ${r}`);
    } else if (typeof r !== "string" || r.length === 0) {
      fail(`${where}.tokens[${i}]`, "a token text must be a non-empty string");
    }
  });
  if (e.kind === "anyTokens" && e.maxTokens !== null && (!Number.isInteger(e.maxTokens) || e.maxTokens < 0 || e.maxTokens >= 0xffffffff)) {
    fail(where, `maxTokens must be an integer in [0, 2^32-1), got ${e.maxTokens}`);
  }
}

/** Entry tags of the binary form: `(0, id, 0)` or `(1, byteOffset, byteLength)`. */
const ENTRY_ID = 0;
const ENTRY_TEXT = 1;

/**
 * The node's binary fields: `a` = extra offset of its entries, `b` = entry count, `c` =
 * maxTokens of anyTokens (NONE when unbounded), else 0. Entries are three words each.
 */
export function serializeTokenNode(e: IrTokenNode, extra: number[], addBytes: (b: Uint8Array) => number, none: number): [number, number, number] {
  const refs = tokenRefsOf(e);
  const entries: number[] = [];
  for (const r of refs) {
    if (typeof r === "number") entries.push(ENTRY_ID, r, 0);
    else {
      const bytes = new TextEncoder().encode(r);
      entries.push(ENTRY_TEXT, addBytes(bytes), bytes.length);
    }
  }
  const a = extra.length;
  extra.push(...entries);
  return [a, refs.length, e.kind === "anyTokens" ? (e.maxTokens ?? none) : 0];
}

/** Reads a token node back from its binary fields (the inverse of {@link serializeTokenNode}). */
export function deserializeTokenNode(
  code: number,
  a: number,
  b: number,
  c: number,
  extraWord: (i: number) => number,
  bytesSlice: (off: number, len: number) => Uint8Array,
  none: number,
  where: string,
): IrTokenNode {
  const refs: IrTokenRef[] = [];
  for (let i = 0; i < b; i++) {
    const tag = extraWord(a + 3 * i);
    const x = extraWord(a + 3 * i + 1);
    const y = extraWord(a + 3 * i + 2);
    if (tag === ENTRY_ID) refs.push(x);
    else if (tag === ENTRY_TEXT) refs.push(new TextDecoder().decode(bytesSlice(x, y)));
    else fail(where, `token entry ${i} has the unknown tag ${tag} (expected 0, an id, or 1, a text)`);
  }
  if (code === TOKEN_KIND_CODE.token) return { kind: "token", tokens: refs };
  if (code === TOKEN_KIND_CODE.excludeToken) return { kind: "excludeToken", excludes: refs };
  return { kind: "anyTokens", excludes: refs, maxTokens: c === none ? null : c };
}

function printRef(r: IrTokenRef): string {
  return typeof r === "number" ? String(r) : JSON.stringify(r);
}

/** `token(1, "<tool>")`, `any_token(excluding 2)`, `tokens(excluding 2; max_tokens=8)`. */
export function printTokenNode(e: IrTokenNode): string {
  if (e.kind === "token") return `token(${e.tokens.map(printRef).join(", ")})`;
  const parts: string[] = [];
  if (e.excludes.length > 0) parts.push(`excluding ${e.excludes.map(printRef).join(", ")}`);
  if (e.kind === "anyTokens" && e.maxTokens !== null) parts.push(`max_tokens=${e.maxTokens}`);
  const name = e.kind === "excludeToken" ? "any_token" : "tokens";
  return parts.length === 0 ? name : `${name}(${parts.join("; ")})`;
}

/** A structural key of a token node (equal nodes, equal keys). */
export function tokenNodeKey(e: IrTokenNode): string {
  return `${e.kind}${JSON.stringify([tokenRefsOf(e), e.kind === "anyTokens" ? e.maxTokens : null])}`;
}
