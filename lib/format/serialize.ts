/**
 * Serialization of format trees back to plain JSON in xgrammar's wire form. The output is the
 * normalized form `parseFormat` produces (fields in wire order, `"type": "tag"` on every tag), so
 * parse ∘ serialize is the identity on parsed trees, and serialize never emits an invalid tag.
 */
import { parseFormat, parseStructuralTag } from "./parse.js";
import type { Format, StructuralTag } from "./types.js";

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * One format node as plain JSON (a fresh copy, safe to mutate or `JSON.stringify`).
 * @throws FormatError when `format` is not a valid format tree.
 */
export function formatToJSON(format: Format): JsonObject {
  // Trees the builders made come back from parseFormat as they are, frozen (sealed.ts): copy.
  return structuredClone(parseFormat(format)) as unknown as JsonObject;
}

/**
 * A structural tag as plain JSON, `{"type": "structural_tag", "format": …}`.
 * @throws FormatError when `tag` is not a valid structural tag.
 */
export function structuralTagToJSON(tag: StructuralTag): JsonObject {
  return structuredClone(parseStructuralTag(tag)) as unknown as JsonObject;
}

/**
 * A structural tag as JSON text, compact or indented (`indent` as for `JSON.stringify`).
 * @throws FormatError when `tag` is not a valid structural tag.
 */
export function stringifyStructuralTag(tag: StructuralTag, indent?: number | string): string {
  return JSON.stringify(structuralTagToJSON(tag), null, indent);
}
