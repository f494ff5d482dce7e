/**
 * Format trees the builders of build.ts made: checked, normalized and frozen. Each builder
 * checks only the node it adds and takes its children as they are, instead of copying and
 * checking every subtree again at each level (which made building a tool list of 50 tools cost
 * as much as lowering it). Frozen, a sealed tree cannot be changed behind the parser's back.
 *
 * A sealed node remembers its height: how many levels of nesting the parser would count below
 * it, so that one embedded deep in another tree still meets the nesting limit.
 */
import type { Format, JsonSchema, StructuralTag } from "./types.js";

const heights = new WeakMap<object, number>();

/** The nesting height of a sealed format node, or undefined when `value` is not one. */
export function sealedHeight(value: unknown): number | undefined {
  return typeof value === "object" && value !== null ? heights.get(value) : undefined;
}

/**
 * Freezes a checked, normalized format (the output of parseFormat) and marks it sealed. Parts
 * that are sealed already are not visited again.
 */
export function seal<F extends Format>(format: F): F {
  sealFormat(format);
  return format;
}

/** Freezes a checked structural tag and its format. */
export function sealStructuralTag(tag: StructuralTag): StructuralTag {
  sealFormat(tag.format);
  return Object.freeze(tag);
}

function sealFormat(f: Format): number {
  const known = heights.get(f);
  if (known !== undefined) return known;
  let below: number;
  switch (f.type) {
    case "json_schema":
      below = freezeJson(f.json_schema);
      break;
    case "sequence":
    case "or":
      below = Math.max(...f.elements.map(sealFormat));
      Object.freeze(f.elements);
      break;
    case "optional":
    case "star":
    case "plus":
    case "repeat":
    case "tag":
      below = sealFormat(f.content);
      if (f.type === "tag" && Array.isArray(f.end)) Object.freeze(f.end);
      break;
    case "triggered_tags":
    case "tags_with_separator":
      below = Math.max(...f.tags.map(sealFormat));
      Object.freeze(f.tags);
      if (f.type === "triggered_tags") {
        Object.freeze(f.triggers);
        if (f.excludes) Object.freeze(f.excludes);
      }
      break;
    case "any_text":
      if (f.excludes) Object.freeze(f.excludes);
      below = -1;
      break;
    default:
      below = -1;
  }
  const height = below + 1;
  Object.freeze(f);
  heights.set(f, height);
  return height;
}

/** Freezes a JSON value; returns its nesting height as the parser counts it (0 for a leaf). */
function freezeJson(value: JsonSchema | unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let below = -1;
  for (const child of Object.values(value)) below = Math.max(below, freezeJson(child));
  Object.freeze(value);
  return below + 1;
}
