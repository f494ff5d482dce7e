/**
 * Small smart constructors the regex front end lowers through: they flatten nested sequences
 * and choices, merge adjacent literals and fold `never`, so the IR a pattern produces is compact
 * and its printed form (the golden tests) reads like the pattern.
 */
import { charClass, empty, never, type IrExpr } from "../ir.js";
import type { Range } from "./charset.js";

const encoder = new TextEncoder();

/** UTF-8 bytes of one code point; undefined for a surrogate, which UTF-8 cannot encode. */
export function encodeCodePoint(cp: number): Uint8Array | undefined {
  if (cp >= 0xd800 && cp <= 0xdfff) return undefined;
  return encoder.encode(String.fromCodePoint(cp));
}

/** A single code point as a literal (`never` for a lone surrogate: no UTF-8 text contains one). */
export function codePointExpr(cp: number): IrExpr {
  const bytes = encodeCodePoint(cp);
  return bytes === undefined ? never() : { kind: "bytes", bytes };
}

/**
 * A class from normalized ranges: one code point becomes a literal, an empty positive class
 * becomes `never`, an empty negated class matches any code point.
 */
export function classExpr(ranges: readonly Range[], negated: boolean): IrExpr {
  if (ranges.length === 0) return negated ? charClass([[0, 0x10ffff]]) : never();
  const only = ranges[0]!;
  if (!negated && ranges.length === 1 && only[0] === only[1]) return codePointExpr(only[0]);
  return charClass(ranges, negated);
}

function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** A sequence: nested sequences flattened, adjacent literals merged, `never` absorbing. */
export function seqOf(items: readonly IrExpr[]): IrExpr {
  const out: IrExpr[] = [];
  // Adjacent literals are collected and joined once (joining pairwise would be quadratic).
  let run: Uint8Array[] = [];
  const flush = (): void => {
    if (run.length > 0) out.push({ kind: "bytes", bytes: concatBytes(run) });
    run = [];
  };
  const push = (e: IrExpr): boolean => {
    if (e.kind === "never") return false;
    if (e.kind === "empty") return true;
    if (e.kind === "seq") return e.items.every(push);
    if (e.kind === "bytes") run.push(e.bytes);
    else {
      flush();
      out.push(e);
    }
    return true;
  };
  for (const item of items) if (!push(item)) return never();
  flush();
  if (out.length === 0) return empty();
  return out.length === 1 ? out[0]! : { kind: "seq", items: out };
}

/** A choice: nested choices flattened, `never` branches dropped. */
export function choiceOf(items: readonly IrExpr[]): IrExpr {
  const out: IrExpr[] = [];
  const push = (e: IrExpr): void => {
    if (e.kind === "never") return;
    if (e.kind === "choice") e.items.forEach(push);
    else out.push(e);
  };
  items.forEach(push);
  if (out.length === 0) return never();
  return out.length === 1 ? out[0]! : { kind: "choice", items: out };
}

/** A repeat, folding the trivial cases (`x{1}` is x, repeats of empty are empty, of never are never or empty). */
export function repeatOf(item: IrExpr, min: number, max: number | null): IrExpr {
  if (max === 0) return empty();
  if (item.kind === "empty") return empty();
  if (item.kind === "never") return min === 0 ? empty() : never();
  if (min === 1 && max === 1) return item;
  return { kind: "repeat", item, min, max };
}
