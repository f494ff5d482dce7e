/**
 * String helpers with the semantics of Python's str methods and Jinja's filters, which the
 * public chat templates use: `strip(chars)`, `lstrip`, `rstrip`, and `trim` (str.strip()).
 */

/** Python's `s.strip(chars)` / `lstrip` / `rstrip`: remove any of `chars` from the ends. */
export function stripChars(s: string, chars: string, side: "both" | "left" | "right" = "both"): string {
  let start = 0;
  let end = s.length;
  if (side !== "right") while (start < end && chars.includes(s[start]!)) start++;
  if (side !== "left") while (end > start && chars.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/** Jinja's `trim` filter (Python's `str.strip()`): whitespace off both ends. */
export function trim(s: string): string {
  return s.trim();
}
