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
    case "anyTokens":
      return true;
    case "never":
    case "bytes":
    case "class":
    case "token":
    case "excludeToken":
      return false;
    case "seq":
      return e.items.every((x) => isNullable(x, nullable));
    case "choice":
      return e.items.some((x) => isNullable(x, nullable));
    case "repeat":
      return e.min === 0 || isNullable(e.item, nullable);
    case "counted":
      // Units never match the empty string: an empty match counts none.
      return e.min === 0 && isNullable(e.item, nullable);
    case "unit":
    case "mark":
      return isNullable(e.item, nullable);
    case "marks":
      // An empty match uses no mark.
      return e.required.length === 0 && isNullable(e.item, nullable);
    case "residue":
      return isNullable(e.item, nullable);
    case "rdigit":
      return false;
    case "rlive":
      return true;
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
    case "counted":
    case "unit":
    case "marks":
    case "mark":
    case "residue":
      leftRefs(e.item, nullable, out);
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
  const color = rules.map(() => 0); // 0 unvisited, 1 on the path, 2 done
  // Iterative depth-first search (grammars may chain thousands of rules): the path of rules and,
  // for each, the index of the next edge to follow.
  const path: number[] = [];
  const nextEdge: number[] = [];
  for (let start = 0; start < rules.length; start++) {
    if (color[start] !== 0) continue;
    path.push(start);
    nextEdge.push(0);
    color[start] = 1;
    while (path.length > 0) {
      const r = path[path.length - 1]!;
      const i = nextEdge[nextEdge.length - 1]!;
      const out = edges[r]!;
      if (i === out.length) {
        color[r] = 2;
        path.pop();
        nextEdge.pop();
        continue;
      }
      nextEdge[nextEdge.length - 1] = i + 1;
      const next = out[i]!;
      if (color[next] === 1) return [...path.slice(path.indexOf(next)), next];
      if (color[next] === 0) {
        color[next] = 1;
        path.push(next);
        nextEdge.push(0);
      }
    }
  }
  return undefined;
}

/** The rules `start` reaches through references (itself included), by index. */
export function reachableRules(rules: readonly IrRule[], start: number): boolean[] {
  const seen = rules.map(() => false);
  const stack = [start];
  seen[start] = true;
  const visit = (e: IrExpr): void => {
    switch (e.kind) {
      case "ref":
        if (!seen[e.rule]) {
          seen[e.rule] = true;
          stack.push(e.rule);
        }
        return;
      case "seq":
      case "choice":
        for (const x of e.items) visit(x);
        return;
      case "repeat":
      case "counted":
      case "unit":
      case "mark":
      case "marks":
      case "residue":
        visit(e.item);
        return;
      default:
        return;
    }
  };
  while (stack.length > 0) visit(rules[stack.pop()!]!.body);
  return seen;
}

/**
 * `body` of rule `self` without the alternatives that are the rule itself (`x ::= "a" | x`): such
 * an alternative adds no string (the rule means the least language that satisfies it, as in
 * xgrammar), and without it the rule is not left-recursive.
 */
export function withoutSelfAlternatives(body: IrExpr, self: number): IrExpr {
  if (body.kind !== "choice") return body;
  const items = body.items.filter((x) => !(x.kind === "ref" && x.rule === self));
  return items.length === body.items.length ? body : { kind: "choice", items };
}
