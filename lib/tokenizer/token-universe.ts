/**
 * A vocabulary as the reference recognizer's token universe (lib/compile/recognizer.ts): which
 * id a token text names, and which tokens are free (may be matched by `exclude_token` and
 * `any_tokens`). The rules are the engine's (native/core/token_nodes.cpp, token_classes.cpp): a
 * text names the token whose bytes are exactly it, a special token before an ordinary one, else
 * the lowest id; the free tokens are the text tokens (Normal or SpecialText with bytes), never a
 * control or stop token.
 */
import { GrammarError } from "../errors.js";
import type { TokenUniverse } from "../compile/recognizer.js";
import type { TokenizerInfo } from "./tokenizer-info.js";
import { TokenKind } from "./vocabulary.js";

/** The token universe of a vocabulary; `resolve` throws a GrammarError for a text that is no token. */
export function tokenUniverse(tokenizer: TokenizerInfo): TokenUniverse {
  const { bytes, offsets, kinds } = tokenizer.data;
  let byText: Map<string, number> | undefined;
  const index = (): Map<string, number> => {
    if (byText) return byText;
    byText = new Map();
    for (let id = 0; id < kinds.length; id++) {
      const key = Buffer.from(bytes.subarray(offsets[id]!, offsets[id + 1]!)).toString("latin1");
      const known = byText.get(key);
      if (known === undefined || (kinds[known] === TokenKind.Normal && kinds[id] !== TokenKind.Normal)) byText.set(key, id);
    }
    return byText;
  };
  return {
    resolve(ref) {
      if (typeof ref === "number") return ref;
      const id = index().get(Buffer.from(ref, "utf8").toString("latin1"));
      if (id === undefined) throw new GrammarError(`token ${JSON.stringify(ref)} is not a token of the vocabulary: no token has exactly these bytes`);
      return id;
    },
    isFree: (id) => id < kinds.length && kinds[id] !== TokenKind.Control && offsets[id + 1]! > offsets[id]! && !tokenizer.isStopToken(id),
  };
}
