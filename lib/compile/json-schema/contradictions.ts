/**
 * Finding why a schema accepts no value: the first pair of keywords that no value satisfies
 * (minimum 5 > maximum 2, minLength > maxLength, ...) anywhere in it. Only used to explain a
 * schema already known to accept nothing, so it may name a contradiction in a branch that is
 * not the only cause.
 */

/** A contradiction: where it is (a JSON pointer), the keyword and what is wrong. */
export interface SchemaContradiction {
  path: string;
  keyword: string;
  detail: string;
}

// Keywords whose values are data, not subschemas: nothing below them is a schema.
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);

const escape = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function checkNode(s: Record<string, unknown>): { keyword: string; detail: string } | undefined {
  const lower: Array<[string, number, boolean]> = [];
  const upper: Array<[string, number, boolean]> = [];
  const min = num(s.minimum);
  const max = num(s.maximum);
  // draft-04: a boolean exclusiveMinimum / exclusiveMaximum makes minimum / maximum exclusive.
  if (min !== undefined) lower.push(["minimum", min, s.exclusiveMinimum === true]);
  if (max !== undefined) upper.push(["maximum", max, s.exclusiveMaximum === true]);
  const exMin = num(s.exclusiveMinimum);
  const exMax = num(s.exclusiveMaximum);
  if (exMin !== undefined) lower.push(["exclusiveMinimum", exMin, true]);
  if (exMax !== undefined) upper.push(["exclusiveMaximum", exMax, true]);
  for (const [lk, lv, lx] of lower) {
    for (const [uk, uv, ux] of upper) {
      if (lv > uv || (lv === uv && (lx || ux))) {
        return { keyword: lk, detail: `${lk} ${lv} ${lv === uv ? "=" : ">"} ${uk} ${uv}` };
      }
    }
  }
  for (const [a, b] of [["minLength", "maxLength"], ["minItems", "maxItems"], ["minProperties", "maxProperties"], ["minContains", "maxContains"]] as const) {
    const lo = num(s[a]);
    const hi = num(s[b]);
    if (lo !== undefined && hi !== undefined && lo > hi) return { keyword: a, detail: `${a} ${lo} > ${b} ${hi}` };
  }
  if (Array.isArray(s.enum) && s.enum.length === 0) return { keyword: "enum", detail: "enum lists no value" };
  if (Array.isArray(s.type) && s.type.length === 0) return { keyword: "type", detail: "type lists no type" };
  return undefined;
}

/** The first contradiction in `schema` (depth first, in document order), or undefined. */
export function findContradiction(schema: unknown): SchemaContradiction | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value: schema, path: "#" }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== "object" || seen.has(value)) continue;
    seen.add(value);
    if (!Array.isArray(value)) {
      const found = checkNode(value as Record<string, unknown>);
      if (found) return { path, ...found };
    }
    const entries = Object.entries(value as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      if (!Array.isArray(value) && DATA_KEYWORDS.has(key)) continue;
      stack.push({ value: child, path: `${path}/${escape(key)}` });
    }
  }
  return undefined;
}
