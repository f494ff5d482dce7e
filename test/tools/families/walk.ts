/**
 * Seeded random generations over a family's grammar with the engine and a real vocabulary, as
 * a model would produce them: each token drawn from the engine's mask, the family's marker
 * tokens and closing tokens preferred now and then so calls start and values end. Past the token
 * budget the walk closes what is open: it prefers, in turn, closing tokens (`"`, `}`, `]`), the
 * family's markers, short literals, and any allowed token, moving to the next kind whenever a
 * choice leaves the mask unchanged (text that goes on), until the grammar may end.
 */
import type { CompiledGrammar } from "../../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../../lib/engine/matcher.js";
import { popcount32 } from "../../../lib/mask/types.js";
import type { TokenizerInfo } from "../../../lib/tokenizer/tokenizer-info.js";

export interface WalkResult {
  text: string;
  tokens: number;
}

function allowed(mask: Int32Array, id: number): boolean {
  return ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;
}

/** Token ids of texts, those that are single tokens. */
export function idsOf(info: TokenizerInfo, texts: readonly string[]): number[] {
  return texts.map((t) => info.tokenId(t)).filter((id): id is number => id !== undefined);
}

/** The kinds of token the closing phase prefers, in order. */
export interface Preferences {
  closers: number[];
  markers: number[];
  literals: number[];
  other: number[];
  /** Whole texts that end values and calls (`</parameter>`, a call's closing marker, …), tried as strings. */
  endings: readonly string[];
}

function randomAllowed(info: TokenizerInfo, mask: Int32Array, random: () => number): number {
  for (let tries = 0; tries < 64; tries++) {
    const t = Math.floor(random() * info.tokenCount);
    if (allowed(mask, t) && !info.isStopToken(t)) return t;
  }
  const all: number[] = [];
  for (let w = 0; w < mask.length; w++) {
    let bits = mask[w]!;
    while (bits !== 0) {
      const b = 31 - Math.clz32(bits & -bits);
      const t = w * 32 + b;
      if (t < info.tokenCount && !info.isStopToken(t)) all.push(t);
      bits &= bits - 1;
    }
  }
  return all.length === 0 ? -1 : all[Math.floor(random() * all.length)]!;
}

/** One generation, or null when it did not reach an end within `limit` tokens. */
export function generate(compiled: CompiledGrammar, info: TokenizerInfo, random: () => number, prefer: Preferences, budget: number, limit = 400): WalkResult | null {
  const matcher = new GrammarMatcher(compiled);
  const mask = new Int32Array(Math.ceil(info.vocabSize / 32));
  const bytes: number[] = [];
  const kinds = [prefer.closers, prefer.markers, prefer.literals, prefer.other];
  let rotation = 0;
  let lastSignature = -1;
  for (let step = 0; step < limit; step++) {
    const closing = step >= budget;
    if (matcher.canTerminate() && (closing || random() < 0.12)) {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes)), tokens: step };
    }
    matcher.fillNextTokenBitmask(mask);
    const signature = mask.reduce((n, w) => n + popcount32(w), 0);
    if (signature === lastSignature) rotation++;
    lastSignature = signature;
    let id = -1;
    if (closing && rotation % 2 === 0) {
      // A whole ending text that changes where the walk stands (closes a raw value, a call).
      const order = [...prefer.endings].sort(() => random() - 0.5);
      const probe = new Int32Array(mask.length);
      const fit = order.find((t) => {
        const f = matcher.fork();
        if (!f.acceptString(t)) return false;
        if (f.canTerminate()) return true;
        f.fillNextTokenBitmask(probe);
        return probe.reduce((n, w) => n + popcount32(w), 0) !== signature;
      });
      if (fit !== undefined) {
        matcher.acceptString(fit);
        bytes.push(...new TextEncoder().encode(fit));
        continue;
      }
    }
    if (closing) {
      for (let k = 0; k < kinds.length + 1 && id < 0; k++) {
        const kind = (rotation + k) % (kinds.length + 1);
        if (kind === kinds.length) {
          id = randomAllowed(info, mask, random);
        } else {
          const options = kinds[kind]!.filter((t) => allowed(mask, t));
          if (options.length > 0) id = options[Math.floor(random() * options.length)]!;
        }
      }
    } else if (random() < 0.3) {
      const options = [...prefer.markers, ...prefer.closers].filter((t) => allowed(mask, t));
      if (options.length > 0) id = options[Math.floor(random() * options.length)]!;
    }
    if (id < 0) id = randomAllowed(info, mask, random);
    if (id < 0) return null;
    if (!matcher.acceptToken(id)) throw new Error(`the engine refused token ${id} its own mask allowed`);
    bytes.push(...info.tokenBytes(id));
  }
  return null;
}
