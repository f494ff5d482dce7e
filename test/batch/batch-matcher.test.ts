import { beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError, MatcherStateError } from "../../lib/errors.js";
import { BatchMatcher } from "../../lib/engine/batch.js";
import { setThreadPoolSize } from "../../lib/engine/batch-pool.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { loadTestVocabulary } from "../helpers/vocab.js";
import { midGenerationMatchers, nestedBracketsGrammar, seedSetup, type SeedSetup } from "./fixtures.js";

let setup: SeedSetup;
beforeAll(() => {
  setup = seedSetup();
});

function individualMasks(matchers: readonly GrammarMatcher[], words: number): Int32Array {
  const out = new Int32Array(matchers.length * words);
  matchers.forEach((m, r) => m.fillNextTokenBitmask(out, r));
  return out;
}

function firstDifference(a: Int32Array, b: Int32Array, words: number): string | null {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `row ${Math.floor(i / words)}, word ${i % words}`;
  return null;
}

describe("BatchMatcher masks equal the per-matcher masks", () => {
  const modes: Array<[string, { parallel?: boolean }, number]> = [
    ["parallel, pool of 2", {}, 2],
    ["parallel, pool of 3", {}, 3],
    ["serial", { parallel: false }, 2],
  ];
  it.each(modes)("%s: sync and async, 16 and 64 rows", async (_name, options, threads) => {
    setThreadPoolSize(threads);
    try {
      for (const n of [16, 64]) {
        const { matchers } = midGenerationMatchers(setup, n);
        const batch = new BatchMatcher(matchers, options);
        const words = batch.maskWords;
        expect(words).toBe(Math.ceil(setup.vocab.data.vocabSize / 32));
        const expected = individualMasks(matchers, words);

        const out = new Int32Array(n * words).fill(0x5a5a5a5a);
        expect(batch.fillNextTokenBitmasks(out)).toEqual([]);
        expect(firstDifference(out, expected, words)).toBeNull();

        const { bitmask, errors } = await batch.fillNextTokenBitmasksAsync();
        expect(errors).toEqual([]);
        expect(bitmask).toBe(batch.bitmask);
        expect(firstDifference(bitmask, expected, words)).toBeNull();
      }
    } finally {
      setThreadPoolSize(0);
    }
  });

  it("fills only the listed rows (sync and async)", async () => {
    const { matchers } = midGenerationMatchers(setup, 10);
    const batch = new BatchMatcher(matchers);
    const words = batch.maskWords;
    const expected = individualMasks(matchers, words);
    const out = new Int32Array(10 * words).fill(7);
    expect(batch.fillNextTokenBitmasks(out, [8, 2, 5])).toEqual([]);
    for (let r = 0; r < 10; r++) {
      const row = out.subarray(r * words, (r + 1) * words);
      if ([8, 2, 5].includes(r)) expect(firstDifference(row, expected.subarray(r * words, (r + 1) * words), words)).toBeNull();
      else expect(row.every((w) => w === 7)).toBe(true);
    }
    batch.bitmask.fill(9);
    await batch.fillNextTokenBitmasksAsync(Int32Array.of(1));
    expect(firstDifference(batch.bitmask.subarray(words, 2 * words), expected.subarray(words, 2 * words), words)).toBeNull();
    expect(batch.bitmask.subarray(0, words).every((w) => w === 9)).toBe(true);
    expect(batch.fillNextTokenBitmasks(out, [])).toEqual([]);
  });
});

describe("BatchMatcher accept and rollback", () => {
  it("accepts N tokens like N acceptToken calls, and rolls back exactly", async () => {
    const n = 24;
    const { matchers, next } = midGenerationMatchers(setup, n);
    const twins = matchers.map((m) => m.fork());
    const batch = new BatchMatcher(matchers);
    const words = batch.maskWords;
    const before = individualMasks(matchers, words);
    // Row 3 skips; row 5 proposes a token the grammar rejects (a stop token mid-output).
    const tokens = Int32Array.from(next);
    tokens[3] = -1;
    const stop = setup.vocab.data.stopTokenIds[0]!;
    tokens[5] = stop;
    const expectAccepted = Array.from(tokens, (t, r) => (t < 0 ? 0 : twins[r]!.acceptToken(t) ? 1 : 0));
    const { accepted, errors } = batch.acceptTokens(tokens);
    expect(errors).toEqual([]);
    expect(Array.from(accepted)).toEqual(expectAccepted);
    expect(accepted[3]).toBe(0);
    expect(firstDifference(individualMasks(matchers, words), individualMasks(twins, words), words)).toBeNull();

    // Roll back exactly the rows that advanced.
    const steps = Int32Array.from(accepted);
    expect(await batch.rollbackAsync(steps)).toEqual([]);
    expect(firstDifference(individualMasks(matchers, words), before, words)).toBeNull();

    // The async accept does the same.
    const again = await batch.acceptTokensAsync(Array.from(tokens));
    expect(Array.from(again.accepted)).toEqual(expectAccepted);
    expect(batch.rollback(steps)).toEqual([]);
    expect(firstDifference(individualMasks(matchers, words), before, words)).toBeNull();
  });
});

describe("a failing row does not fail the others", () => {
  it("reports error-state matchers, bad token ids and over-long rollbacks per row", async () => {
    const vocab = loadTestVocabulary("llama3", { kimiMarkers: true });
    const nested = compileGrammar(vocab, nestedBracketsGrammar());
    const broken = new GrammarMatcher(nested, { maxStackDepth: 2 });
    expect(() => broken.acceptString("[[[[")).toThrow(MatcherStateError);
    const { matchers, next } = midGenerationMatchers(setup, 6);
    const rows = [matchers[0]!, matchers[1]!, broken, matchers[2]!, matchers[3]!, matchers[4]!];
    const batch = new BatchMatcher(rows);
    const words = batch.maskWords;
    const good = individualMasks(matchers.slice(0, 5), words);

    for (const run of [
      () => batch.fillNextTokenBitmasks(),
      async () => (await batch.fillNextTokenBitmasksAsync()).errors,
    ]) {
      batch.bitmask.fill(-1);
      const errors = await run();
      expect(errors.map((e) => e.row)).toEqual([2]);
      expect(errors[0]!.error).toBeInstanceOf(MatcherStateError);
      expect(errors[0]!.error.message).toMatch(/^row 2: .*error state.*maxStackDepth = 2/);
      expect(batch.bitmask.subarray(2 * words, 3 * words).every((w) => w === 0)).toBe(true);
      const rowOf = (r: number) => batch.bitmask.subarray(r * words, (r + 1) * words);
      expect(firstDifference(rowOf(0), good.subarray(0, words), words)).toBeNull();
      expect(firstDifference(rowOf(5), good.subarray(4 * words, 5 * words), words)).toBeNull();
    }

    const tokens = [next[0]!, 1 << 30, next[2]!, next[2]!, next[3]!, -1];
    const stepsBefore = matchers[0]!.handle.stepCount;
    const { accepted, errors } = batch.acceptTokens(tokens);
    expect(errors.map((e) => e.row).sort()).toEqual([1, 2]);
    expect(errors.find((e) => e.row === 1)!.error).toBeInstanceOf(InvalidArgumentError);
    expect(accepted[0]).toBe(1);

    const rolled = batch.rollback([1, 0, 0, 0, 5000, 0]);
    expect(rolled.map((e) => e.row)).toEqual([4]);
    expect(rolled[0]!.error).toBeInstanceOf(InvalidArgumentError);
    // Row 0 accepted one token and rolled it back.
    expect(matchers[0]!.handle.stepCount).toBe(stepsBefore);
  });
});

describe("the event loop stays responsive", () => {
  it("runs a callback while a long asynchronous batch fill is in flight", async () => {
    // 2048 rows of ~16 KB masks: milliseconds of native work. A fill that blocked the main
    // thread could never let the immediate see the batch busy; a non-blocking one does unless
    // the OS parks the main thread for the whole fill, hence a few attempts on a loaded machine.
    const { matchers } = midGenerationMatchers(setup, 64);
    const rows = Array.from({ length: 2048 }, (_, i) => matchers[i % 64]!.fork());
    const batch = new BatchMatcher(rows);
    let sawBusy = false;
    let refusal: unknown;
    for (let attempt = 0; attempt < 5 && !sawBusy; attempt++) {
      // Nothing synchronous between starting the fill and yielding to the event loop: the
      // callback has to run while the pool works, not after a slow main thread.
      const timer = new Promise<boolean>((resolve) =>
        setImmediate(() => {
          const busy = batch.busy;
          if (busy) {
            try {
              batch.acceptTokens(new Int32Array(rows.length).fill(-1));
            } catch (e) {
              refusal = e;
            }
          }
          resolve(busy);
        }),
      );
      const fill = batch.fillNextTokenBitmasksAsync();
      sawBusy = await timer;
      const { errors } = await fill;
      expect(errors).toEqual([]);
      expect(batch.busy).toBe(false);
    }
    expect(sawBusy).toBe(true);
    expect(refusal).toBeInstanceOf(MatcherStateError);
    expect((refusal as Error).message).toMatch(/still running; await it/);
    // And the result is right.
    const words = batch.maskWords;
    const expected = new Int32Array(words);
    rows[100]!.fillNextTokenBitmask(expected);
    expect(firstDifference(batch.bitmask.subarray(100 * words, 101 * words), expected, words)).toBeNull();
  });
});

describe("matchers held by an asynchronous batch operation", () => {
  it("refuse direct calls and other batches until it settles, and are intact afterwards", async () => {
    // As above: a fill long enough that an immediate usually runs while the pool works.
    const { matchers } = midGenerationMatchers(setup, 64);
    const rows = Array.from({ length: 2048 }, (_, i) => matchers[i % 64]!.fork());
    const member = rows[7]!;
    const batch = new BatchMatcher(rows);
    const other = new BatchMatcher([member, new GrammarMatcher(setup.compiled)]);
    const steps = member.stepCount;
    const words = batch.maskWords;
    const before = member.nextTokenBitmask();
    const calls: Array<[string, () => unknown]> = [
      ["acceptToken", () => member.acceptToken(0)],
      ["fillNextTokenBitmask", () => member.fillNextTokenBitmask(new Int32Array(words))],
      ["rollback", () => member.rollback(1)],
      ["reset", () => member.reset()],
      ["fork", () => member.fork()],
      ["stepCount", () => member.stepCount],
      ["another batch's fill", () => other.fillNextTokenBitmasks()],
      ["another batch's async accept", () => other.acceptTokensAsync([0, 0])],
    ];
    let refusals: unknown[] = [];
    for (let attempt = 0; attempt < 5 && refusals.length === 0; attempt++) {
      const probe = new Promise<unknown[]>((resolve) =>
        setImmediate(() => {
          if (!batch.busy) return resolve([]);
          const seen: unknown[] = [];
          for (const [, call] of calls) {
            try {
              call();
              seen.push("no error");
            } catch (e) {
              seen.push(e);
            }
          }
          resolve(seen);
        }),
      );
      const fill = batch.fillNextTokenBitmasksAsync();
      refusals = await probe;
      expect((await fill).errors).toEqual([]);
    }
    expect(refusals).toHaveLength(calls.length);
    refusals.forEach((e, i) => {
      const name = calls[i]![0];
      expect({ name, type: e instanceof MatcherStateError }).toEqual({ name, type: true });
      expect((e as Error).message).toMatch(/asynchronous operation/);
    });
    // Settled: the member answers again, unchanged, and the other batch runs.
    expect(member.stepCount).toBe(steps);
    expect(firstDifference(member.nextTokenBitmask(), before, words)).toBeNull();
    expect(firstDifference(batch.bitmask.subarray(7 * words, 8 * words), before, words)).toBeNull();
    expect(other.fillNextTokenBitmasks()).toEqual([]);
  });
});

describe("BatchMatcher argument checks", () => {
  it.each([
    ["an empty batch", () => new BatchMatcher([]), /matchers is empty/],
    ["not a matcher", () => new BatchMatcher([{} as never]), /matchers\[0\] is not a GrammarMatcher/],
    ["a repeated matcher", () => {
      const m = new GrammarMatcher(setup.compiled);
      return new BatchMatcher([m, new GrammarMatcher(setup.compiled), m]);
    }, /matchers\[2\] appears twice/],
    ["a short out", () => new BatchMatcher([new GrammarMatcher(setup.compiled)]).fillNextTokenBitmasks(new Int32Array(10)), /out must have at least N\*ceil\(V\/32\) = 1\*4009 = 4009 int32 words, got 10/],
    ["a bad row", () => new BatchMatcher([new GrammarMatcher(setup.compiled)]).fillNextTokenBitmasks(undefined, [1]), /rows\[0\] = 1 is not a row of the batch/],
    ["a repeated row", () => new BatchMatcher([new GrammarMatcher(setup.compiled), new GrammarMatcher(setup.compiled)]).fillNextTokenBitmasks(undefined, [1, 1]), /rows\[1\] = 1 appears twice/],
    ["tokens of the wrong length", () => new BatchMatcher([new GrammarMatcher(setup.compiled)]).acceptTokens([1, 2]), /one entry per row|array of 1 token ids/],
    ["a negative rollback", () => new BatchMatcher([new GrammarMatcher(setup.compiled)]).rollback(Int32Array.of(-1)), /steps\[0\] = -1 is negative/],
  ])("%s → InvalidArgumentError", (_name, call, message) => {
    expect(call).toThrow(InvalidArgumentError);
    expect(call).toThrow(message);
  });

  it("rejects matchers of different vocabularies", () => {
    const other = loadTestVocabulary("qwen3");
    const qwen = compileGrammar(other, nestedBracketsGrammar());
    expect(() => new BatchMatcher([new GrammarMatcher(setup.compiled), new GrammarMatcher(qwen)])).toThrow(/every matcher must use one vocabulary/);
  });
});
