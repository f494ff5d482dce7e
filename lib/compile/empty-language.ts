/**
 * Whether a grammar matches no string at all. The native compiler refuses such a grammar; this
 * lets the TypeScript side say so (and why) before any native work, with the same answer: a
 * rule is productive when its body can derive a finite string from productive rules, found by
 * a fixpoint, and the language is empty exactly when the root is not productive.
 */
import { MAX_CODE_POINT, type IrExpr, type IrGrammar } from "./ir.js";

// Whether a negated class leaves no Unicode scalar value (surrogates are never matched).
function negatedClassIsEmpty(ranges: ReadonlyArray<readonly [number, number]>): boolean {
  let next = 0; // the first scalar value not yet covered
  for (const [lo, hi] of ranges) {
    if (lo > next) return false;
    next = Math.max(next, hi + 1);
    if (next === 0xd800) next = 0xe000;
  }
  return next > MAX_CODE_POINT;
}

/** Whether no string at all matches `grammar` (from its root rule). */
export function matchesNothing(grammar: IrGrammar): boolean {
  const productive = new Uint8Array(grammar.rules.length);
  for (let changed = true; changed; ) {
    changed = false;
    // Shared nodes are evaluated once per pass.
    const memo = new Map<IrExpr, boolean>();
    const derives = (e: IrExpr): boolean => {
      const known = memo.get(e);
      if (known !== undefined) return known;
      let result: boolean;
      switch (e.kind) {
        // Token nodes match a token of a list (never empty) or a free token: whether the
        // vocabulary has one is decided when compiling; here they count as matching.
        case "empty":
        case "bytes":
        case "text":
        case "anyTokens":
        case "token":
        case "excludeToken":
          result = true;
          break;
        case "never":
          result = false;
          break;
        case "class":
          result = !(e.negated && negatedClassIsEmpty(e.ranges));
          break;
        case "seq":
          result = e.items.every(derives);
          break;
        case "choice":
          result = e.items.some(derives);
          break;
        case "repeat":
          result = e.min === 0 || derives(e.item);
          break;
        // Counts and marks restrict the item's matches; whether some still fit is left to the
        // engine, which sees the counts (here they count as matching, as token nodes do).
        case "counted":
        case "unit":
        case "marks":
        case "mark":
        case "residue":
          result = derives(e.item);
          break;
        case "rdigit":
        case "rlive":
          result = true;
          break;
        case "ref":
          result = productive[e.rule] === 1;
          break;
      }
      memo.set(e, result);
      return result;
    };
    grammar.rules.forEach((rule, r) => {
      if (productive[r] === 0 && derives(rule.body)) {
        productive[r] = 1;
        changed = true;
      }
    });
  }
  return productive[grammar.root] !== 1;
}
