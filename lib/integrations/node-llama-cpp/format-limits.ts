/**
 * Bounds for models that write noise: copies of a structural tag in which every `any_text`
 * allows at most N tokens (`max_tokens`, enforced by the matcher: once reached, only tokens that
 * leave the text are allowed), or every JSON gap at most N whitespace characters
 * (`max_whitespace_cnt`). Unbounded, a grammar lets such a model write free text or whitespace
 * until `maxTokens` runs out: the tiny random model of the tests and the demo does, and so can a
 * real model that has fallen into a whitespace loop inside a JSON value.
 */
import { InvalidArgumentError } from "../../errors.js";
import type { Format, StructuralTag } from "../../format/types.js";

/** `format` with `leaf` applied to every format below it (leaves first, containers rebuilt). */
function mapLeaves(format: Format, leaf: (f: Format) => Format): Format {
  switch (format.type) {
    case "sequence":
    case "or":
      return { ...format, elements: format.elements.map((f) => mapLeaves(f, leaf)) };
    case "optional":
    case "star":
    case "plus":
    case "repeat":
    case "tag":
      return { ...format, content: mapLeaves(format.content, leaf) };
    case "triggered_tags":
    case "tags_with_separator":
    case "token_triggered_tags":
      return { ...format, tags: format.tags.map((t) => ({ ...t, content: mapLeaves(t.content, leaf) })) };
    case "dispatch":
      return { ...format, rules: format.rules.map(([p, f]) => [p, mapLeaves(f, leaf)] as [string, Format]) };
    case "token_dispatch":
      return { ...format, rules: format.rules.map(([t, f]) => [t, mapLeaves(f, leaf)] as [typeof t, Format]) };
    default:
      return leaf(format);
  }
}

function checkLimit(name: string, n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name}: expected a non-negative integer, found ${String(n)}`);
}

/**
 * The structural tag with every `any_text` and `any_tokens` limited to `maxTokens` tokens (a
 * tighter limit already there is kept).
 */
export function limitFreeText(tag: StructuralTag, maxTokens: number): StructuralTag {
  checkLimit("maxTokens", maxTokens);
  return {
    ...tag,
    format: mapLeaves(tag.format, (f) => (f.type === "any_text" || f.type === "any_tokens" ? { ...f, max_tokens: Math.min(f.max_tokens ?? maxTokens, maxTokens) } : f)),
  };
}

/**
 * The structural tag with at most `maxWhitespace` whitespace characters in every gap between
 * JSON tokens of every `json_schema` (a tighter `max_whitespace_cnt` already there is kept).
 */
export function limitWhitespace(tag: StructuralTag, maxWhitespace: number): StructuralTag {
  checkLimit("maxWhitespace", maxWhitespace);
  return {
    ...tag,
    format: mapLeaves(tag.format, (f) =>
      f.type === "json_schema" ? { ...f, max_whitespace_cnt: Math.min(f.max_whitespace_cnt ?? maxWhitespace, maxWhitespace) } : f),
  };
}
