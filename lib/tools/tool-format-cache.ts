/**
 * The formats of single tools (a family's call tag for one tool), kept across requests. A server's
 * requests mostly repeat their tools: building a tool's call tag checks and copies its schema
 * (twice for families with a key-value and a JSON form), and the lowering keys each tag by its
 * JSON text. A tool built before gives back the very same sealed (frozen) format, which the
 * lowering recognizes without reading it again (lib/compile/lower.ts, the key texts).
 *
 * Keyed by the tool's content: its name and the JSON text of its checked parameters (numbers a
 * double cannot hold as written), and the builder's own key (a family, a variant). Bounded by
 * entries and by the characters of the keys held (a tool's format holds its schema about twice
 * over, so the key text bounds its size too); the least recently used go first. A build that
 * throws keeps nothing.
 */
import { hasRecordedNumberTexts, stringifyExact } from "../format/exact-numbers.js";
import type { Format } from "../format/types.js";
import type { NormalizedTool } from "./normalize.js";

/**
 * Tools kept (all families together): about what the lowering cache holds (200,000 IR nodes, some
 * 330 six-parameter tools); more would only keep formats alive for the garbage collector to mark.
 */
const MAX_ENTRIES = 500;
/** Characters of key text kept (~2 MB of UTF-16 strings, and the formats about twice that). */
const MAX_KEY_CHARS = 1_000_000;

const entries = new Map<string, Format>();
let keyChars = 0;
const counters = { hits: 0, misses: 0 };

/** Counters of the per-tool format cache. */
export function toolFormatCacheStats(): { entries: number; keyChars: number; hits: number; misses: number } {
  return { entries: entries.size, keyChars, ...counters };
}

/** Empties the per-tool format cache. */
export function clearToolFormatCache(): void {
  entries.clear();
  keyChars = 0;
}

/**
 * `build(tool)`, or the format built before for a tool of the same content and the same `kind`
 * (which must name everything else `build` depends on). `build` must return a sealed format.
 */
export function cachedToolFormat<F extends Format>(kind: string, tool: NormalizedTool, build: (tool: NormalizedTool) => F): F {
  const params = tool.parameters === null ? "null" : hasRecordedNumberTexts() ? stringifyExact(tool.parameters) : JSON.stringify(tool.parameters);
  const key = `${kind}\u0000${tool.name}\u0000${params}`;
  const known = entries.get(key);
  if (known !== undefined) {
    entries.delete(key);
    entries.set(key, known);
    counters.hits++;
    return known as F;
  }
  counters.misses++;
  const made = build(tool);
  if (key.length <= MAX_KEY_CHARS) {
    entries.set(key, made);
    keyChars += key.length;
    for (const [k] of entries) {
      if (entries.size <= MAX_ENTRIES && keyChars <= MAX_KEY_CHARS) break;
      entries.delete(k);
      keyChars -= k.length;
    }
  }
  return made;
}
