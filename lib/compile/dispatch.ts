/**
 * The shape every dispatch lowers to: free text (or free tokens) `free`, in which each
 * dispatched `item` (a trigger and what follows it) may occur; with `loop` the free part resumes
 * after an item, without it at most one item ends the dispatch. Shared by the `dispatch` and
 * `token_dispatch` formats and by the EBNF macros `TagDispatch` and `TokenTagDispatch`.
 */
import { choice, repeat, seq, star, type IrExpr } from "./ir.js";

/** `free (item free)* end` with loop, `free (item | end)` without; `end` defaults to the empty string. */
export function dispatchExpr(free: IrExpr, item: IrExpr, loop: boolean, end?: IrExpr): IrExpr {
  if (loop) return end === undefined ? seq(free, star(seq(item, free))) : seq(free, star(seq(item, free)), end);
  return end === undefined ? seq(free, repeat(item, 0, 1)) : seq(free, choice(item, end));
}
