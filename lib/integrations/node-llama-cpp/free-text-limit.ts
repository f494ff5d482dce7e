/**
 * Bounding free text: a copy of a structural tag in which every `any_text` allows at most N
 * tokens (`max_tokens`, enforced by the matcher: once reached, only tokens that leave the text
 * are allowed). A model that writes noise — the tiny random model of the tests and the demo —
 * then still reaches the end of its tags; a real model does not need it.
 */
import { InvalidArgumentError } from "../../errors.js";
import type { Format, StructuralTag } from "../../format/types.js";

function bound(format: Format, maxTokens: number): Format {
  switch (format.type) {
    case "any_text":
      return { ...format, max_tokens: Math.min(format.max_tokens ?? maxTokens, maxTokens) };
    case "sequence":
    case "or":
      return { ...format, elements: format.elements.map((f) => bound(f, maxTokens)) };
    case "optional":
    case "star":
    case "plus":
    case "repeat":
      return { ...format, content: bound(format.content, maxTokens) };
    case "tag":
      return { ...format, content: bound(format.content, maxTokens) };
    case "triggered_tags":
    case "tags_with_separator":
      return { ...format, tags: format.tags.map((t) => ({ ...t, content: bound(t.content, maxTokens) })) };
    default:
      return format;
  }
}

/** The structural tag with every `any_text` limited to `maxTokens` tokens. */
export function limitFreeText(tag: StructuralTag, maxTokens: number): StructuralTag {
  if (!Number.isInteger(maxTokens) || maxTokens < 0) throw new InvalidArgumentError(`maxTokens: expected a non-negative integer, found ${maxTokens}`);
  return { ...tag, format: bound(tag.format, maxTokens) };
}
