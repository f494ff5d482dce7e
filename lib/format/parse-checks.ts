/**
 * Checks of the format reader that look at more than one field, with xgrammar's rules: a tag
 * whose content never ends by itself needs an end to stop at, and the token-level formats'
 * triggers, begins and exclusions must fit together.
 *
 * Token references are compared as written: a trigger given as an id and a begin given as text
 * can only be compared against a vocabulary, so such pairs are left to the compiled grammar.
 */
import { FormatError } from "../errors.js";
import { indexPath, keyPath, showString } from "./json-path.js";
import type { DispatchFormat, Format, TagFormat, TokenDispatchFormat, TokenRef, TokenTriggeredTagsFormat } from "./types.js";

function fail(path: string, message: string): never {
  throw new FormatError(path, message);
}

/** A token reference as messages show it: the id, or the quoted text. */
export function showTokenRef(ref: TokenRef): string {
  return typeof ref === "number" ? String(ref) : showString(ref);
}

/** Whether the format has exclusions of its own (then xgrammar lets it stop without an end). */
function hasOwnExcludes(f: Format): boolean {
  switch (f.type) {
    case "any_text":
    case "triggered_tags":
    case "dispatch":
      return (f.excludes ?? []).length > 0;
    case "any_tokens":
    case "token_triggered_tags":
    case "token_dispatch":
      return (f.exclude_tokens ?? []).length > 0;
    default:
      return false;
  }
}

/**
 * Whether a format can run on without bound, so that only an end string stops it (xgrammar's
 * "unlimited" formats): free text and tokens, the tag lists, repetitions of such formats.
 */
export function isUnlimited(f: Format): boolean {
  switch (f.type) {
    case "any_text":
    case "any_tokens":
    case "triggered_tags":
    case "token_triggered_tags":
    case "dispatch":
    case "token_dispatch":
    case "tags_with_separator":
    case "star":
    case "plus":
      return true;
    case "sequence":
    case "or":
      return f.elements.some((e) => isUnlimited(e) && !hasOwnExcludes(e));
    case "optional":
      return isUnlimited(f.content);
    case "repeat":
      return f.max === -1 || (f.max !== 0 && isUnlimited(f.content));
    default:
      return false;
  }
}

/**
 * A tag whose content is unlimited needs a non-empty end string (or an end token): xgrammar
 * refuses it otherwise, since nothing would tell the content where to stop.
 */
export function checkUnlimitedTagEnd(tag: TagFormat, path: string): void {
  if (typeof tag.end === "object" && !Array.isArray(tag.end)) return;
  const ends = typeof tag.end === "string" ? [tag.end] : tag.end;
  if (ends.some((e) => e !== "") || !isUnlimited(tag.content) || hasOwnExcludes(tag.content)) return;
  fail(keyPath(path, "end"), `expected at least one non-empty end string: the content (${tag.content.type}) can go on without bound, so only an end can stop it (or give the content excludes of its own)`);
}

const sameRef = (a: TokenRef, b: TokenRef) => a === b;
const sameKind = (a: TokenRef, b: TokenRef) => typeof a === typeof b;

/** Dispatch patterns (or tokens) that are also excluded can never dispatch: xgrammar refuses them. */
function checkNotExcluded(keys: readonly TokenRef[], excludes: readonly TokenRef[] | undefined, listName: string, keyPathOf: (i: number) => string, what: string): void {
  if (excludes === undefined) return;
  keys.forEach((k, i) => {
    if (excludes.some((x) => sameRef(x, k))) fail(keyPathOf(i), `expected a ${what} that is not in ${listName}, found ${showTokenRef(k)}, which is: a ${what} that may not occur can never dispatch`);
  });
}

/** Checks that relate fields of dispatch, token_dispatch and token_triggered_tags. */
export function checkTokenLevel(f: DispatchFormat | TokenDispatchFormat | TokenTriggeredTagsFormat, path: string): void {
  switch (f.type) {
    case "dispatch":
      checkNotExcluded(f.rules.map((r) => r[0]), f.excludes, "excludes", (i) => indexPath(indexPath(keyPath(path, "rules"), i), 0), "pattern");
      return;
    case "token_dispatch":
      checkNotExcluded(f.rules.map((r) => r[0]), f.exclude_tokens, "exclude_tokens", (i) => indexPath(indexPath(keyPath(path, "rules"), i), 0), "token");
      return;
    case "token_triggered_tags": {
      const triggers = f.trigger_tokens;
      checkNotExcluded(triggers, f.exclude_tokens, "exclude_tokens", (i) => indexPath(keyPath(path, "trigger_tokens"), i), "trigger token");
      const begins: TokenRef[] = [];
      f.tags.forEach((t, j) => {
        const at = keyPath(indexPath(keyPath(path, "tags"), j), "begin");
        if (typeof t.begin === "string") fail(at, 'expected a token {"type": "token", "token": …}: the tags of token_triggered_tags begin with a trigger token (for a text begin use triggered_tags)');
        const begin = t.begin.token;
        begins.push(begin);
        if (!triggers.some((x) => sameRef(x, begin)) && triggers.every((x) => sameKind(x, begin))) {
          fail(keyPath(at, "token"), `expected one of the trigger tokens [${triggers.map(showTokenRef).join(", ")}], found ${showTokenRef(begin)}`);
        }
      });
      triggers.forEach((trigger, i) => {
        if (!begins.some((b) => sameRef(b, trigger)) && begins.every((b) => sameKind(b, trigger))) {
          fail(indexPath(keyPath(path, "trigger_tokens"), i), `expected a token that begins at least one tag, found ${showTokenRef(trigger)}`);
        }
      });
      return;
    }
  }
}
