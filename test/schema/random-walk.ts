/**
 * Random strings of a grammar, drawn byte by byte with the reference recognizer: at each step a
 * byte is chosen uniformly among those that keep the prefix viable; past a length budget the walk
 * finishes along a shortest completion. Deterministic for a given seed.
 */
import type { IrGrammar } from "../../lib/compile/ir.js";
import { Recognizer, type RecognizerState } from "../../lib/compile/recognizer.js";

export { rng } from "../helpers/random.js";

/**
 * Bytes tried when finishing a walk, most closing first: quotes and brackets end what is open,
 * short values fill what is required; then any other printable byte, then UTF-8 continuations.
 */
const FINISH_ORDER: number[] = (() => {
  const first = [...'"}]0,:nultrefas1{['].map((c) => c.charCodeAt(0));
  const rest = Array.from({ length: 95 }, (_, i) => 0x20 + i).filter((b) => !first.includes(b) && b !== 0x20);
  return [...first, ...rest, ...Array.from({ length: 64 }, (_, i) => 0x80 + i)];
})();

/**
 * The bytes of a completion from `s` to an accepting state (depth-first, closing bytes first), or
 * null. Iterative: a completion can be thousands of bytes deep.
 */
export function completion(r: Recognizer, s: RecognizerState, limit: number): number[] | null {
  if (r.accepts(s)) return [];
  const visited = new Set<RecognizerState>([s]);
  // One frame per byte on the path: the state and the index of the next byte to try from it.
  const stack: Array<{ state: RecognizerState; next: number }> = [{ state: s, next: 0 }];
  const path: number[] = [];
  let steps = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next >= FINISH_ORDER.length) {
      stack.pop();
      path.pop();
      continue;
    }
    const b = FINISH_ORDER[top.next++]!;
    const t = r.step(top.state, b);
    if (t === null || !r.viable(t) || visited.has(t)) continue;
    path.push(b);
    if (r.accepts(t)) return path;
    if (++steps > limit) return null;
    visited.add(t);
    stack.push({ state: t, next: 0 });
  }
  return null;
}

const STRUCTURAL = [...'"{}[],:0123456789-.tfne'].map((c) => c.charCodeAt(0));

/**
 * A random viable next byte: bytes are tried in a random order and the first viable one wins,
 * which is uniform over the viable set and usually needs few recognizer steps. Whitespace is
 * redrawn most of the time, so walks do not spend their budget between tokens.
 */
function randomNext(r: Recognizer, s: RecognizerState, random: () => number): [number, RecognizerState] | null {
  // A quarter of the time, prefer a structural byte (closing strings, starting members, values).
  if (random() < 0.25) {
    const options: Array<[number, RecognizerState]> = [];
    for (const b of STRUCTURAL) {
      const t = r.step(s, b);
      if (t !== null && r.viable(t)) options.push([b, t]);
    }
    if (options.length > 0) return options[Math.floor(random() * options.length)]!;
  }
  let fallback: [number, RecognizerState] | null = null;
  const order = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0; i < 256; i++) {
    const j = i + Math.floor(random() * (256 - i));
    const b = order[j]!;
    order[j] = order[i]!;
    order[i] = b;
    const t = r.step(s, b);
    if (t === null || !r.viable(t)) continue;
    if ((b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) && random() < 0.85) {
      fallback ??= [b, t];
      continue;
    }
    return [b, t];
  }
  return fallback;
}

/** One random member of the grammar's language (as bytes), or null if the walk got stuck. */
export function randomWalk(grammar: IrGrammar | Recognizer, random: () => number, budget = 60): Uint8Array | null {
  const r = grammar instanceof Recognizer ? grammar : new Recognizer(grammar);
  let s = r.initial();
  const out: number[] = [];
  for (;;) {
    if (r.accepts(s) && (random() < 0.25 || out.length >= budget)) return Uint8Array.from(out);
    if (out.length >= budget) {
      const tail = completion(r, s, 5000);
      return tail === null ? null : Uint8Array.from([...out, ...tail]);
    }
    const step = randomNext(r, s, random);
    if (step === null) return r.accepts(s) ? Uint8Array.from(out) : null;
    out.push(step[0]);
    s = step[1];
  }
}
