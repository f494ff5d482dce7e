/**
 * What a hostile caller does to the native surface: buffers detached (transferred away) or
 * shrunk from inside a getter of another argument, garbage collections forced there, buffers
 * backed by a SharedArrayBuffer. And a small grammar on the tiny vocabulary to run it against.
 */
import { expect } from "vitest";
import { GrammarBuilder, charClass, choice, lit, plus, seq, type IrGrammar } from "../../lib/compile/ir.js";
import { compileGrammar, type CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { InvalidArgumentError, TagmaskError } from "../../lib/errors.js";
import type { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { tinyVocabulary } from "../engine/tiny-vocab.js";

/** Detaches `view`'s buffer the way postMessage does (the memory moves to a clone). */
export function detach(view: ArrayBufferView): void {
  const buffer = view.buffer as ArrayBuffer;
  if (buffer.byteLength === 0 && view.byteLength === 0) return;
  structuredClone(buffer, { transfer: [buffer] });
}

/** A full garbage collection, when the process runs with --expose-gc (the *.gc.test.ts files). */
export function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run this test file with --expose-gc (name it *.gc.test.ts)");
  gc();
}

/** A copy of `object` whose property `key` is a getter: it runs `effect`, then returns the value. */
export function withGetter<T extends object>(object: T, key: string, effect: () => void): T {
  const copy = { ...object } as Record<string, unknown>;
  const value = copy[key];
  delete copy[key];
  Object.defineProperty(copy, key, {
    enumerable: true,
    get() {
      effect();
      return value;
    },
  });
  return copy as T;
}

/** A plain array whose element `index` is a getter running `effect` before giving the value. */
export function arrayWithGetter<T>(values: readonly T[], index: number, effect: () => void): T[] {
  const copy = [...values];
  const value = copy[index];
  Object.defineProperty(copy, index, {
    enumerable: true,
    get() {
      effect();
      return value;
    },
  });
  return copy;
}

/** The same elements in a typed array backed by a SharedArrayBuffer. */
export function shared<A extends Int32Array | Uint32Array | Uint8Array | Uint16Array | Float32Array | BigUint64Array>(array: A): A {
  const Ctor = array.constructor as new (buffer: SharedArrayBuffer) => A;
  const out = new Ctor(new SharedArrayBuffer(array.byteLength));
  (out as unknown as { set(a: A): void }).set(array);
  return out;
}

/** The same elements in a typed array over a resizable ArrayBuffer (that a getter can shrink). */
export function resizable<A extends Int32Array | Float32Array>(array: A): { array: A; shrink(): void } {
  // Resizable buffers (ES2024) are in Node 20's V8; the TypeScript lib here predates them.
  type Resizable = ArrayBuffer & { resize(bytes: number): void };
  const ResizableBuffer = ArrayBuffer as unknown as new (bytes: number, options: { maxByteLength: number }) => Resizable;
  const Ctor = array.constructor as new (buffer: ArrayBuffer) => A;
  const buffer = new ResizableBuffer(array.byteLength, { maxByteLength: array.byteLength });
  const out = new Ctor(buffer);
  (out as unknown as { set(a: A): void }).set(array);
  return { array: out, shrink: () => buffer.resize(0) };
}

/** Runs `call`: it must throw a TagmaskError of `type` whose message matches `message`. */
export function expectTypedError(call: () => unknown, type: new (...args: never[]) => TagmaskError, message: RegExp): void {
  let thrown: unknown;
  try {
    call();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, "the call should have thrown").toBeInstanceOf(type);
  expect((thrown as Error).message).toMatch(message);
}

/** A detached-buffer refusal. */
export const DETACHED = /detached/;

/** The InvalidArgumentError class, for tables. */
export const INVALID = InvalidArgumentError;

export interface TinySetup {
  vocab: TokenizerInfo;
  grammar: IrGrammar;
  compiled: CompiledGrammar;
  /** Token ids of a string the grammar matches: `["ab", "12"]` style. */
  tokens: number[];
  /** A matcher that has accepted the first `n` of `tokens`. */
  matcherAt(n: number): GrammarMatcher;
}

let setup: TinySetup | undefined;

/** `[` then one or more `a`/`b`/digits separated by `,` then `]`, on the tiny vocabulary. */
export function tinySetup(): TinySetup {
  if (setup) return setup;
  const vocab = tinyVocabulary();
  const b = new GrammarBuilder();
  const item = plus(charClass([[0x30, 0x39], [0x61, 0x62]]));
  b.define("root", seq(lit("["), item, plus(seq(lit(","), item)), lit("]")));
  const grammar = b.build("root");
  const compiled = compileGrammar(vocab, grammar);
  const id = (text: string): number => vocab.tokenId(text)!;
  const tokens = ["[", "a", "b", ",", "12", ",", "2", "]"].map(id);
  setup = {
    vocab,
    grammar,
    compiled,
    tokens,
    matcherAt(n) {
      const m = new GrammarMatcher(compiled);
      for (const t of tokens.slice(0, n)) expect(m.acceptToken(t)).toBe(true);
      return m;
    },
  };
  return setup;
}

/** choice() of literal strings, for small grammars in tables. */
export const oneOf = (...texts: string[]) => choice(...texts.map((t) => lit(t)));
