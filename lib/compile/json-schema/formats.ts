/**
 * `format` as an assertion: the formats the compiler enforces, each as an exact automaton over
 * the string's code points. Unknown formats are annotations (JSON Schema 2020-12) and ignored.
 */
import type { Dfa } from "./automaton.js";
import { Unsupported } from "./shape.js";

/** Formats known to JSON Schema that are not enforced yet: refused rather than ignored. */
const KNOWN_UNENFORCED = new Set([
  "date", "time", "date-time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
  "uuid", "uri", "uri-reference", "iri", "iri-reference", "uri-template", "json-pointer", "relative-json-pointer", "regex",
]);

/** A thunk building the format's automaton, or null for an unknown (ignored) format. */
export function formatDfa(format: string): (() => Dfa) | null {
  if (KNOWN_UNENFORCED.has(format)) {
    return () => {
      throw new Unsupported("format", `format "${format}" is not enforced yet`);
    };
  }
  return null;
}
