/**
 * Issue 11, section 1: every function that takes typed arrays plus further JS values, called
 * with a getter (in an option, an array element or a data field) that detaches one of the
 * buffers and forces a garbage collection. The native side reads every argument before it
 * takes a pointer, so each call gives a typed error (or the correct result); before, it wrote
 * or read freed memory. Afterwards the objects involved keep working. Run with --expose-gc
 * (the "gc" vitest project); under `npm run test:asan` a use-after-free here is a report.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { serializeGrammar } from "../../lib/compile/ir.js";
import { BatchMatcher } from "../../lib/engine/batch.js";
import { compileGrammar, compileGrammarAsync } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { InvalidArgumentError, MatcherStateError, TagmaskError } from "../../lib/errors.js";
import { applyTokenBitmask, maskedArgmax, maskedSample } from "../../lib/mask/cpu.js";
import { expandMaskRefs } from "../../lib/mask/refs.js";
import type { MaskStore } from "../../lib/mask/types.js";
import { native } from "../../lib/native.js";
import {
  DETACHED, arrayWithGetter, collect, detach, expectTypedError, resizable, shared, tinySetup, withGetter, type TinySetup,
} from "./hostile.js";

let t: TinySetup;
beforeAll(() => {
  t = tinySetup();
});

// ---- CPU masking ----------------------------------------------------------------------------

const VOCAB = 100;
const ROWS = 3;
const WORDS = Math.ceil(VOCAB / 32);

interface MaskArgs {
  logits: Float32Array;
  bitmask: Int32Array;
  indices: Int32Array;
  temperature: Float32Array;
  topK: Int32Array;
  topP: Float32Array;
  seed: BigUint64Array;
}

function maskArgs(): MaskArgs {
  const logits = new Float32Array(ROWS * VOCAB);
  for (let i = 0; i < logits.length; i++) logits[i] = Math.sin(i * 12.9898) * 10;
  const bitmask = new Int32Array(ROWS * WORDS);
  for (let i = 0; i < bitmask.length; i++) bitmask[i] = (i * 0x9e3779b1) | 1;
  return {
    logits, bitmask, indices: Int32Array.of(2, 0),
    temperature: Float32Array.of(0.7, 1), topK: Int32Array.of(5, 0), topP: Float32Array.of(0.9, 1), seed: BigUint64Array.of(1n, 2n),
  };
}

const SHAPE_HOOKS = ["vocabSize", "columns", "stride", "rows", "dtype", "compactBitmask", "indices"] as const;
const SAMPLE_HOOKS = [...SHAPE_HOOKS, "temperature", "topK", "topP", "seed"] as const;

type MaskFn = "applyTokenBitmask" | "maskedArgmax" | "maskedSample";

function options(a: MaskArgs, fn: MaskFn): Record<string, unknown> {
  const base: Record<string, unknown> = { vocabSize: VOCAB, columns: VOCAB, stride: VOCAB, rows: ROWS, dtype: "float32", compactBitmask: false, indices: a.indices };
  if (fn === "maskedSample") Object.assign(base, { temperature: a.temperature, topK: a.topK, topP: a.topP, seed: a.seed });
  return base;
}

function callMask(fn: MaskFn, a: MaskArgs, opts: Record<string, unknown>): unknown {
  if (fn === "applyTokenBitmask") return applyTokenBitmask(a.logits, a.bitmask, opts as never);
  if (fn === "maskedArgmax") return maskedArgmax(a.logits, a.bitmask, opts as never);
  return maskedSample(a.logits, a.bitmask, opts as never);
}

const maskCases: Array<[MaskFn, string, keyof MaskArgs]> = [];
for (const fn of ["applyTokenBitmask", "maskedArgmax", "maskedSample"] as const) {
  const hooks = fn === "maskedSample" ? SAMPLE_HOOKS : SHAPE_HOOKS;
  const buffers: Array<keyof MaskArgs> = fn === "maskedSample" ? ["logits", "bitmask", "indices", "temperature", "topK", "topP", "seed"] : ["logits", "bitmask", "indices"];
  for (const hook of hooks) for (const buffer of buffers) maskCases.push([fn, hook, buffer]);
}

describe("CPU masking: a getter detaches a buffer and collects garbage", () => {
  it.each(maskCases)("%s: options.%s detaches %s", (fn, hook, buffer) => {
    const a = maskArgs();
    const opts = withGetter(options(a, fn), hook, () => {
      detach(a[buffer]);
      collect();
    });
    expectTypedError(() => callMask(fn, a, opts), InvalidArgumentError, DETACHED);
    // Fresh buffers: the same call works, and equals a call without getters.
    const fresh = maskArgs();
    const again = maskArgs();
    expect(callMask(fn, fresh, options(fresh, fn))).toEqual(callMask(fn, again, options(again, fn)));
    expect(fresh.logits).toEqual(again.logits);
  });

  it.each(["applyTokenBitmask", "maskedArgmax", "maskedSample"] as const)("%s: a getter shrinks a resizable logits buffer to nothing", (fn) => {
    const a = maskArgs();
    const r = resizable(a.logits);
    const opts = withGetter(options(a, fn), "vocabSize", () => r.shrink());
    expectTypedError(() => callMask(fn, { ...a, logits: r.array }, opts), InvalidArgumentError, /logits/);
  });

  it.each(["applyTokenBitmask", "maskedArgmax", "maskedSample"] as const)("%s: arrays on a SharedArrayBuffer give the same result", (fn) => {
    const a = maskArgs();
    const s: MaskArgs = {
      logits: shared(a.logits), bitmask: shared(a.bitmask), indices: shared(a.indices), temperature: shared(a.temperature),
      topK: shared(a.topK), topP: shared(a.topP), seed: shared(a.seed),
    };
    expect(callMask(fn, s, options(s, fn))).toEqual(callMask(fn, a, options(a, fn)));
    expect(Array.from(s.logits)).toEqual(Array.from(a.logits));
  });
});

// ---- CPU masking through refs (resident masks) -----------------------------------------------

interface RefArgs {
  logits: Float32Array;
  bitmask: Int32Array;  // the compact rows
  refs: Int32Array;
  words: Int32Array;  // the store's rows
}

function refArgs(): RefArgs {
  const a = maskArgs();
  const words = new Int32Array(2 * WORDS);
  for (let i = 0; i < words.length; i++) words[i] = (i * 0x2545f491) ^ 0x5bd1e995;
  return { logits: a.logits, bitmask: a.bitmask, refs: Int32Array.of(1, ~0, 0), words };
}

function storeOf(a: RefArgs): MaskStore {
  return { count: 2, wordsPerMask: WORDS, vocabSize: VOCAB, words: a.words };
}

function refOptions(a: RefArgs, fn: MaskFn, store: MaskStore = storeOf(a)): Record<string, unknown> {
  const base: Record<string, unknown> = { vocabSize: VOCAB, rows: ROWS, refs: a.refs, maskStore: store };
  if (fn === "maskedSample") Object.assign(base, { temperature: 0.8, topK: 5, seed: 3n });
  return base;
}

function callRefs(fn: MaskFn, a: RefArgs, opts: Record<string, unknown>): unknown {
  return callMask(fn, { ...maskArgs(), logits: a.logits, bitmask: a.bitmask }, opts);
}

/** The same call with the dense rows the refs stand for, on fresh arguments. */
function denseResult(fn: MaskFn): { result: unknown; logits: Float32Array } {
  const a = refArgs();
  const dense = expandMaskRefs(a.refs, storeOf(a), a.bitmask);
  const opts = refOptions(a, fn);
  delete opts.refs;
  delete opts.maskStore;
  const result = callRefs(fn, { ...a, bitmask: dense }, opts);
  return { result, logits: a.logits };
}

const REF_BUFFERS = ["logits", "bitmask", "refs", "words"] as const;
const refCases: Array<[MaskFn, string, (typeof REF_BUFFERS)[number]]> = [];
for (const fn of ["applyTokenBitmask", "maskedArgmax", "maskedSample"] as const) {
  for (const hook of ["vocabSize", "refs", "maskStore", "maskStore.words", "maskStore.wordsPerMask"]) {
    for (const buffer of REF_BUFFERS) refCases.push([fn, hook, buffer]);
  }
}

describe("CPU masking through refs: a getter detaches a buffer and collects garbage", () => {
  it.each(refCases)("%s: %s detaches %s", (fn, hook, buffer) => {
    const a = refArgs();
    const effect = () => {
      detach(a[buffer]);
      collect();
    };
    const opts = hook.startsWith("maskStore.")
      ? refOptions(a, fn, withGetter(storeOf(a), hook.slice("maskStore.".length), effect))
      : withGetter(refOptions(a, fn), hook, effect);
    expectTypedError(() => callRefs(fn, a, opts), InvalidArgumentError, DETACHED);
    // Fresh buffers: the call through refs equals the call with the dense rows.
    const fresh = refArgs();
    const expected = denseResult(fn);
    expect(callRefs(fn, fresh, refOptions(fresh, fn))).toEqual(expected.result);
    expect(fresh.logits).toEqual(expected.logits);
  });

  it.each(["applyTokenBitmask", "maskedArgmax", "maskedSample"] as const)("%s: refs and store on SharedArrayBuffers give the same result", (fn) => {
    const a = refArgs();
    const s: RefArgs = { logits: shared(a.logits), bitmask: shared(a.bitmask), refs: shared(a.refs), words: shared(a.words) };
    const expected = denseResult(fn);
    expect(callRefs(fn, s, refOptions(s, fn))).toEqual(expected.result);
    expect(Array.from(s.logits)).toEqual(Array.from(expected.logits));
  });
});

// ---- matchers ---------------------------------------------------------------------------------

describe("GrammarMatcher with detached and shared buffers", () => {
  it("fillNextTokenBitmask into a detached Int32Array", () => {
    const m = t.matcherAt(2);
    const out = new Int32Array(Math.ceil(t.vocab.vocabSize / 32));
    detach(out);
    collect();
    expectTypedError(() => m.fillNextTokenBitmask(out), InvalidArgumentError, DETACHED);
    expect(m.nextTokenBitmask()).toEqual(t.matcherAt(2).nextTokenBitmask());
  });

  it("acceptString with a detached Uint8Array", () => {
    const m = t.matcherAt(1);
    const bytes = new TextEncoder().encode("ab");
    detach(bytes);
    expectTypedError(() => m.acceptString(bytes), InvalidArgumentError, DETACHED);
    expect(m.acceptString("ab")).toBe(true);
  });

  it("fillNextTokenBitmask and acceptString on SharedArrayBuffers", () => {
    const m = t.matcherAt(1);
    const out = shared(new Int32Array(Math.ceil(t.vocab.vocabSize / 32)));
    m.fillNextTokenBitmask(out);
    expect(Array.from(out)).toEqual(Array.from(t.matcherAt(1).nextTokenBitmask()));
    expect(m.acceptString(shared(new TextEncoder().encode("ab")))).toBe(true);
    expect(m.stepCount).toBe(2);
  });
});

// ---- batches ----------------------------------------------------------------------------------

function batchOf(n: number): BatchMatcher {
  return new BatchMatcher(Array.from({ length: n }, (_, i) => t.matcherAt(i % 4)));
}

function expectedFill(n: number): Int32Array {
  const batch = batchOf(n);
  const out = new Int32Array(n * batch.maskWords);
  expect(batch.fillNextTokenBitmasks(out)).toEqual([]);
  return out;
}

describe("BatchMatcher: getters in the arguments", () => {
  it("fillNextTokenBitmasks: a rows element detaches out", () => {
    const batch = batchOf(4);
    const out = new Int32Array(4 * batch.maskWords);
    const rows = arrayWithGetter([0, 1, 2, 3], 2, () => {
      detach(out);
      collect();
    });
    expectTypedError(() => batch.fillNextTokenBitmasks(out, rows), InvalidArgumentError, DETACHED);
    const fresh = new Int32Array(4 * batch.maskWords);
    expect(batch.fillNextTokenBitmasks(fresh, [0, 1, 2, 3])).toEqual([]);
    expect(fresh).toEqual(expectedFill(4));
  });

  it("fillNextTokenBitmasks: a rows element shrinks a resizable out", () => {
    const batch = batchOf(2);
    const r = resizable(new Int32Array(2 * batch.maskWords));
    expectTypedError(() => batch.fillNextTokenBitmasks(r.array, arrayWithGetter([0, 1], 0, () => r.shrink())), InvalidArgumentError, /out must have at least/);
  });

  it("detached typed arrays as rows, tokens and steps", () => {
    const batch = batchOf(2);
    const rows = Int32Array.of(0, 1);
    const tokens = Int32Array.of(-1, -1);
    const steps = Int32Array.of(0, 0);
    for (const a of [rows, tokens, steps]) detach(a);
    collect();
    expectTypedError(() => batch.fillNextTokenBitmasks(undefined, rows), InvalidArgumentError, DETACHED);
    expectTypedError(() => batch.fillNextTokenBitmasksAsync(rows), InvalidArgumentError, DETACHED);
    expectTypedError(() => batch.acceptTokens(tokens), InvalidArgumentError, DETACHED);
    expectTypedError(() => batch.acceptTokensAsync(tokens), InvalidArgumentError, DETACHED);
    expectTypedError(() => batch.rollback(steps), InvalidArgumentError, DETACHED);
    expectTypedError(() => batch.rollbackAsync(steps), InvalidArgumentError, DETACHED);
    expect(batch.busy).toBe(false);
    expect(batch.fillNextTokenBitmasks()).toEqual([]);
  });

  it("the batch's own bitmask transferred away: fills still write valid memory", async () => {
    const batch = batchOf(3);
    detach(batch.bitmask);
    collect();
    expect(batch.fillNextTokenBitmasks()).toEqual([]);
    const { errors } = await batch.fillNextTokenBitmasksAsync();
    expect(errors).toEqual([]);
    const out = new Int32Array(3 * batch.maskWords);
    batch.fillNextTokenBitmasks(out);
    expect(out).toEqual(expectedFill(3));
  });

  it("a getter that starts an asynchronous operation on the same batch: the call refuses, nothing runs twice", async () => {
    const batch = batchOf(4);
    let pending: Promise<unknown> | undefined;
    const rows = arrayWithGetter([0, 1], 1, () => {
      pending = batch.fillNextTokenBitmasksAsync();
    });
    expectTypedError(() => batch.fillNextTokenBitmasks(undefined, rows), MatcherStateError, /asynchronous batch operation is still running/);
    await pending;
    const tokens = arrayWithGetter(t.tokens.slice(0, 4).map(() => -1), 0, () => {
      pending = batch.rollbackAsync(0);
    });
    expectTypedError(() => batch.acceptTokens(tokens), MatcherStateError, /still running/);
    await pending;
    expect(batch.busy).toBe(false);
    const out = new Int32Array(4 * batch.maskWords);
    expect(batch.fillNextTokenBitmasks(out)).toEqual([]);
    expect(out).toEqual(expectedFill(4));
  });

  it("a getter that calls the same batch synchronously is refused (it would overwrite the arguments being read)", () => {
    const batch = batchOf(2);
    const rows = arrayWithGetter([0, 1], 0, () => batch.fillNextTokenBitmasks());
    expectTypedError(() => batch.fillNextTokenBitmasks(undefined, rows), MatcherStateError, /getter or valueOf/);
    expect(batch.fillNextTokenBitmasks(undefined, [1, 0])).toEqual([]);
  });

  it("a getter that starts another batch's operation on a shared matcher", async () => {
    const matchers = [t.matcherAt(1), t.matcherAt(2)];
    const a = new BatchMatcher(matchers);
    const b = new BatchMatcher([matchers[1]!]);
    let pending: Promise<unknown> | undefined;
    const steps = arrayWithGetter([0, 0], 1, () => {
      pending = b.fillNextTokenBitmasksAsync();
    });
    expectTypedError(() => a.rollback(steps), MatcherStateError, /matchers\[1\] is being stepped/);
    await pending;
    expect(a.rollback([0, 0])).toEqual([]);
  });

  it("a getter that steps one of the batch's matchers directly: the batch sees the new state", () => {
    const m = t.matcherAt(1);
    const batch = new BatchMatcher([m]);
    const tokens = arrayWithGetter([t.tokens[2]!], 0, () => {
      expect(m.acceptToken(t.tokens[1]!)).toBe(true);
    });
    const { accepted, errors } = batch.acceptTokens(tokens);
    expect(errors).toEqual([]);
    expect(Array.from(accepted)).toEqual([1]);
    expect(m.stepCount).toBe(3);
  });

  it("SharedArrayBuffer-backed out, rows, tokens and steps work", () => {
    const batch = batchOf(3);
    const out = shared(new Int32Array(3 * batch.maskWords));
    expect(batch.fillNextTokenBitmasks(out, shared(Int32Array.of(2, 0, 1)))).toEqual([]);
    expect(Array.from(out)).toEqual(Array.from(expectedFill(3)));
    const next = [0, 1, 2].map((r) => t.tokens[r % 4]!);
    const { accepted, errors } = batch.acceptTokens(shared(Int32Array.from(next)));
    expect(errors).toEqual([]);
    expect(Array.from(accepted)).toEqual([1, 1, 1]);
    expect(batch.rollback(shared(Int32Array.of(1, 1, 1)))).toEqual([]);
  });

  it("acceptTokens(Uint32Array) reports ids of 2^31 and more as out of range instead of skipping them", () => {
    const batch = batchOf(2);
    for (const id of [2 ** 31, 2 ** 32 - 1]) {
      expectTypedError(() => batch.acceptTokens(Uint32Array.of(t.tokens[0]!, id) as never), InvalidArgumentError, new RegExp(`tokens\\[1\\] = ${id} is out of range`));
    }
    expectTypedError(() => batch.acceptTokens(Int32Array.of(-2, 0)), InvalidArgumentError, /tokens\[0\] = -2 is out of range/);
    const { accepted } = batch.acceptTokens(Uint32Array.of(t.tokens[0]!, t.tokens[1]!) as never);
    expect(Array.from(accepted)).toEqual([1, 1]);
  });
});

describe("BatchMatcher.fillMaskRefs: getters in the arguments", () => {
  const N = 4;
  const fresh = (batch: BatchMatcher) => ({ refs: new Int32Array(N), compact: new Int32Array(N * batch.maskWords) });
  /** fillMaskRefs's refs, expanded with the grammar's store, equal fillNextTokenBitmasks's rows. */
  const expectRefsExact = (refs: Int32Array, compact: Int32Array) => {
    expect(Array.from(expandMaskRefs(refs, t.compiled.maskStore(), compact))).toEqual(Array.from(expectedFill(N)));
  };
  const works = (batch: BatchMatcher) => {
    expect(batch.busy).toBe(false);
    const { refs, compact } = fresh(batch);
    expect(batch.fillMaskRefs(refs, compact).errors).toEqual([]);
    expectRefsExact(refs, compact);
  };

  it.each(["refs", "compact"] as const)("a rows element detaches %s", (buffer) => {
    const batch = batchOf(N);
    const a = fresh(batch);
    const rows = arrayWithGetter([0, 1, 2, 3], 2, () => {
      detach(a[buffer]);
      collect();
    });
    expectTypedError(() => batch.fillMaskRefs(a.refs, a.compact, { rows }), InvalidArgumentError, DETACHED);
    works(batch);
  });

  it.each([["rows", "refs"], ["rows", "compact"], ["grammar", "refs"], ["grammar", "compact"]] as const)(
    "the options.%s getter detaches %s", (hook, buffer) => {
      const batch = batchOf(N);
      const a = fresh(batch);
      const opts = withGetter({ rows: [0, 1, 2, 3], grammar: t.compiled }, hook, () => {
        detach(a[buffer]);
        collect();
      });
      expectTypedError(() => batch.fillMaskRefs(a.refs, a.compact, opts), InvalidArgumentError, DETACHED);
      works(batch);
    });

  it("a rows element shrinks a resizable compact", () => {
    const batch = batchOf(2);
    const r = resizable(new Int32Array(2 * batch.maskWords));
    expectTypedError(() => batch.fillMaskRefs(new Int32Array(2), r.array, { rows: arrayWithGetter([0, 1], 0, () => r.shrink()) }),
      InvalidArgumentError, /compact must have at least/);
  });

  it("a rows element that starts an asynchronous operation, or calls the batch again: the call refuses", async () => {
    const batch = batchOf(N);
    const a = fresh(batch);
    let pending: Promise<unknown> | undefined;
    const rows = arrayWithGetter([0, 1], 1, () => {
      pending = batch.fillNextTokenBitmasksAsync();
    });
    expectTypedError(() => batch.fillMaskRefs(a.refs, a.compact, { rows }), MatcherStateError, /asynchronous batch operation is still running/);
    await pending;
    const again = arrayWithGetter([0, 1], 0, () => batch.fillMaskRefs(a.refs, a.compact));
    expectTypedError(() => batch.fillMaskRefs(a.refs, a.compact, { rows: again }), MatcherStateError, /getter or valueOf/);
    works(batch);
  });

  it("refs and compact on SharedArrayBuffers give the same refs", () => {
    const batch = batchOf(N);
    const refs = shared(new Int32Array(N));
    const compact = shared(new Int32Array(N * batch.maskWords));
    expect(batch.fillMaskRefs(refs, compact, { rows: shared(Int32Array.of(0, 1, 2, 3)) }).errors).toEqual([]);
    expectRefsExact(refs, compact);
  });

  it("detached refs or compact, without getters", () => {
    const batch = batchOf(N);
    for (const buffer of ["refs", "compact"] as const) {
      const a = fresh(batch);
      detach(a[buffer]);
      collect();
      expectTypedError(() => batch.fillMaskRefs(a.refs, a.compact), InvalidArgumentError, DETACHED);
    }
    works(batch);
  });
});

// ---- vocabularies and compilation ------------------------------------------------------------

const FIELDS = ["vocabSize", "bytes", "offsets", "kinds", "stopTokenIds"] as const;
const ARRAYS = ["bytes", "offsets", "kinds", "stopTokenIds"] as const;

describe("createTokenizerInfo: a getter of the data detaches one of its arrays", () => {
  const copyData = () => {
    const d = t.vocab.data;
    return { vocabSize: d.vocabSize, bytes: d.bytes.slice(), offsets: d.offsets.slice(), kinds: d.kinds.slice(), stopTokenIds: d.stopTokenIds.slice() };
  };
  const cases = FIELDS.flatMap((field) => ARRAYS.map((array) => [field, array] as const));
  it.each(cases)("the %s getter detaches %s", (field, array) => {
    const data = copyData();
    const hostile = withGetter(data, field, () => {
      detach(data[array]);
      collect();
    });
    expectTypedError(() => native().createTokenizerInfo(hostile as never), InvalidArgumentError, DETACHED);
  });

  it("arrays on SharedArrayBuffers give the same vocabulary", () => {
    const d = copyData();
    const a = native().createTokenizerInfo(d);
    const b = native().createTokenizerInfo({ ...d, bytes: shared(d.bytes), offsets: shared(d.offsets), kinds: shared(d.kinds), stopTokenIds: shared(d.stopTokenIds) });
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(b.tokenCount).toBe(a.tokenCount);
  });
});

describe("compileGrammar: options.threads detaches the IR", () => {
  it("sync and async", async () => {
    const ir = serializeGrammar(t.grammar);
    const bytes = () => ir.slice();
    const hostile = (b: Uint8Array) => withGetter({ threads: 1 }, "threads", () => {
      detach(b);
      collect();
    });
    const b1 = bytes();
    expectTypedError(() => compileGrammar(t.vocab, b1, hostile(b1)), InvalidArgumentError, DETACHED);
    const b2 = bytes();
    let error: unknown;
    try {
      await compileGrammarAsync(t.vocab, b2, hostile(b2));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(String(error)).toMatch(DETACHED);
    // The IR on a SharedArrayBuffer compiles to the same grammar.
    const compiled = compileGrammar(t.vocab, shared(bytes()));
    const m = new GrammarMatcher(compiled);
    for (const id of t.tokens) expect(m.acceptToken(id)).toBe(true);
  });

  it("a wrapped object behind a Proxy or made with Object.create is refused with a typed error", () => {
    const handle = t.compiled.handle;
    for (const fake of [new Proxy(handle, {}), Object.create(Object.getPrototypeOf(handle) as object) as object]) {
      let error: unknown;
      try {
        native().createMatcher(fake as never);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(TagmaskError);
      expect(String(error)).toMatch(/must be a native CompiledGrammar/);
    }
  });
});
