/**
 * Bad and unsupported regexes: each is refused with a GrammarError whose `position` is the exact
 * 0-based UTF-16 offset of the problem and whose message says what is wrong. Where the pattern is
 * also a syntax error for JavaScript (`u` flag), RegExp must refuse it too; features JavaScript
 * has but a grammar cannot express are marked "unsupported".
 */
import { describe, expect, it } from "vitest";
import { GrammarError } from "../../../lib/errors.js";
import { regexToIr } from "../../../lib/compile/regex/index.js";

/** [pattern, position, message fragment, "syntax" (JS refuses it too) or "unsupported" (JS accepts it)]. */
const BAD: Array<[string, number, RegExp, "syntax" | "unsupported"]> = [
  ["(a)\\1", 3, /back-references/, "unsupported"],
  ["\\k<x>(?<x>a)", 0, /named back-references/, "unsupported"],
  ["a(?=b)", 1, /look-ahead/, "unsupported"],
  ["a(?!b)", 1, /look-ahead/, "unsupported"],
  ["(?<=a)b", 0, /look-behind/, "unsupported"],
  ["(?<!a)b", 0, /look-behind/, "unsupported"],
  ["\\bword", 0, /word-boundary/, "unsupported"],
  ["a\\B", 1, /word-boundary/, "unsupported"],
  ["a^b", 1, /'\^' is only accepted at the start of a whole alternative/, "unsupported"],
  ["x(^a)", 2, /'\^' is only accepted/, "unsupported"],
  ["a?^b", 2, /'\^' is only accepted/, "unsupported"],
  ["a$b", 1, /'\$' is only accepted at the end of a whole alternative/, "unsupported"],
  ["(a$)b", 2, /'\$' is only accepted/, "unsupported"],
  ["(a$|b)c|d", 2, /'\$' is only accepted/, "unsupported"],
  ["(^a)+", 4, /cannot be repeated/, "unsupported"],
  ["(a$)*", 4, /cannot be repeated/, "unsupported"],
  ["é(?=x)", 1, /look-ahead/, "unsupported"],
  ["😀\\b", 2, /word-boundary/, "unsupported"],
  ["(?i)abc", 0, /inline flags/, "syntax"],
  ["(?)", 0, /invalid group/, "syntax"],
  ["\\p{Foo}", 0, /unknown Unicode property 'Foo'/, "syntax"],
  ["\\p{Script=Nope}", 0, /unknown Unicode property/, "syntax"],
  ["x\\p{L", 1, /must be followed by \{Property\}/, "syntax"],
  ["*a", 0, /nothing to repeat/, "syntax"],
  ["a|+", 2, /nothing to repeat/, "syntax"],
  ["a**", 2, /nothing to repeat/, "syntax"],
  ["a{2}{3}", 4, /nothing to repeat/, "syntax"],
  ["a+?+", 3, /nothing to repeat/, "syntax"],
  ["{2}", 0, /nothing to repeat/, "syntax"],
  ["a{3,2}", 1, /numbers out of order/, "syntax"],
  ["a{,5}", 1, /incomplete quantifier/, "syntax"],
  ["a{", 1, /incomplete quantifier/, "syntax"],
  ["{", 0, /literal '\{' must be escaped/, "syntax"],
  ["a{99999999999}", 2, /too large/, "unsupported"],
  ["(ab", 0, /unterminated group/, "syntax"],
  ["a(b(c)", 1, /unterminated group/, "syntax"],
  ["ab)", 2, /unmatched '\)'/, "syntax"],
  ["[abc", 0, /unterminated character class/, "syntax"],
  ["x[^", 1, /unterminated character class/, "syntax"],
  ["[z-a]", 1, /range out of order/, "syntax"],
  ["[\\d-z]", 1, /range endpoint/, "syntax"],
  ["[a-\\d]", 3, /range endpoint/, "syntax"],
  ["[\\1]", 1, /not allowed in a character class/, "syntax"],
  ["\\x4", 0, /two hex digits/, "syntax"],
  ["ab\\xZZ", 2, /two hex digits/, "syntax"],
  ["\\u12", 0, /four hex digits/, "syntax"],
  ["\\u{110000}", 0, /beyond U\+10FFFF/, "syntax"],
  ["\\u{}", 0, /must contain hex digits/, "syntax"],
  ["\\c1", 0, /ASCII letter/, "syntax"],
  ["\\01", 0, /octal/, "syntax"],
  ["\\q", 0, /unknown escape \\q/, "syntax"],
  ["abc\\", 3, /escapes nothing/, "syntax"],
  ["(?<1a>x)", 3, /invalid group name/, "syntax"],
  ["(?<a>x", 0, /unterminated group/, "syntax"],
];

describe("regexToIr refuses bad patterns with positions", () => {
  it.each(BAD)("%s → position %i", (pattern, position, message, kind) => {
    let caught: unknown;
    try {
      regexToIr(pattern);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(GrammarError);
    const err = caught as GrammarError;
    expect(err.code).toBe("TAGMASK_INVALID_GRAMMAR");
    expect(err.position).toBe(position);
    expect(err.message).toMatch(message);
    expect(err.message).toContain(`position ${position}`);
    const jsAccepts = ((): boolean => {
      try {
        new RegExp(pattern, "u");
        return true;
      } catch {
        return false;
      }
    })();
    expect(jsAccepts).toBe(kind === "unsupported");
  });
});
