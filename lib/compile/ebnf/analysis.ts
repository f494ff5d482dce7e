/**
 * Analyses over IR rules shared by the EBNF front end and the GBNF exporter: which rules can
 * match the empty string, and left recursion (a rule that can reach a reference to itself
 * without consuming a byte), which the engine and llama.cpp both refuse.
 */
import type { IrExpr, IrRule } from "../ir.js";

/** Whether `e` matches the empty string, given which rules do. */
export function isNullable(e: IrExpr, nullable: readonly boolean[]): boolean {
  switch (e.kind) {
    case "empty":
    case "text":
      return true;
    case "never":
    case "bytes":
    case "class":
      return false;
    case "seq":
      return e.items.every((x) => isNullable(x, nullable));
    case "choice":
      return e.items.some((x) => isNullable(x, nullable));
    case "repeat":
      return e.min === 0 || isNullable(e.item, nullable);
    case "ref":
      return nullable[e.rule] ?? false;
  }
}

/** For each rule, whether it matches the empty string (least fixed point). */
export function nullableRules(rules: readonly IrRule[]): boolean[] {
  const nullable = rules.map(() => false);
  for (let changed = true; changed; ) {
    changed = false;
    rules.forEach((rule, i) => {
      if (!nullable[i] && isNullable(rule.body, nullable)) {
        nullable[i] = true;
        changed = true;
      }
    });
  }
  return nullable;
}

/** The rules `e` can reference before it has consumed any byte. */
export function leftRefs(e: IrExpr, nullable: readonly boolean[], out: Set<number> = new Set()): Set<number> {
  switch (e.kind) {
    case "ref":
      out.add(e.rule);
      break;
    case "seq":
      for (const item of e.items) {
        leftRefs(item, nullable, out);
        if (!isNullable(item, nullable)) break;
      }
      break;
    case "choice":
      for (const item of e.items) leftRefs(item, nullable, out);
      break;
    case "repeat":
      if (e.max !== 0) leftRefs(e.item, nullable, out);
      break;
    default:
      break;
  }
  return out;
}

/**
 * A left-recursive cycle as rule indices, first rule repeated at the end (`[a, b, a]`), or
 * undefined when there is none. The search starts from the lowest rule index, so the answer is
 * deterministic.
 */
export function findLeftRecursion(rules: readonly IrRule[]): number[] | undefined {
  const nullable = nullableRules(rules);
  const edges = rules.map((rule) => [...leftRefs(rule.body, nullable)].sort((a, b) => a - b));
  const color = rules.map(() => 0); // 0 unvisited, 1 on the stack, 2 done
  const stack: number[] = [];
  const visit = (r: number): number[] | undefined => {
    color[r] = 1;
    stack.push(r);
    for (const next of edges[r] ?? []) {
      if (color[next] === 1) return [...stack.slice(stack.indexOf(next)), next];
      if (color[next] === 0) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    color[r] = 2;
    return undefined;
  };
  for (let r = 0; r < rules.length; r++) {
    if (color[r] === 0) {
      const found = visit(r);
      if (found) return found;
    }
  }
  return undefined;
}
