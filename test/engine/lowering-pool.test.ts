/**
 * The lowering workers: a quick grammar is not held up behind a slow one (a second worker takes
 * it), the number of workers is bounded and settable, and lowering it keeps jobs running.
 *
 * The workers run the compiled package (dist/), which beforeAll brings up to date.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deserializeGrammar, serializeGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { loweringHeapLimitMb, loweringWorkers, lowerOffThread, setLoweringWorkers } from "../../lib/engine/lowering-pool.js";
import { AbortError, GrammarError, InvalidArgumentError } from "../../lib/errors.js";
import type { StructuralTag } from "../../lib/format/types.js";
import { buildToolCallingFormat, type FunctionTool } from "../../lib/tools/index.js";
import { ensureBuiltCli } from "../helpers/cli.js";
import { sixParameterTools } from "../helpers/many-tools.js";
import { seeds } from "../helpers/seeds.js";

const k3 = (tools: FunctionTool[]): StructuralTag => buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: "auto" })!;

const defaultWorkers = loweringWorkers();

beforeAll(() => ensureBuiltCli(), 300_000);
afterAll(() => setLoweringWorkers(defaultWorkers, { heapLimitMb: null }));

interface SlowLowering {
  pending: Promise<Uint8Array>;
  settled: () => boolean;
  abort: () => void;
  /** Resolves when the worker has lowered `count` of the tools. */
  reached: (count: number) => Promise<void>;
}

/** Starts a lowering of 1,000 tools (seconds of work) that only an abort ends in a test's time. */
function slowLowering(): SlowLowering {
  const controller = new AbortController();
  let settled = false;
  let done = 0;
  const waiting: { count: number; resolve: () => void }[] = [];
  const pending = lowerOffThread(k3(sixParameterTools(1000)), {
    signal: controller.signal,
    onProgress: (n) => {
      done = n;
      for (const w of waiting) if (n >= w.count) w.resolve();
    },
  });
  pending.then(() => (settled = true), () => (settled = true));
  const reached = (count: number): Promise<void> => done >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve }));
  return { pending, settled: () => settled, abort: () => controller.abort(), reached };
}

describe("lowering workers", () => {
  it("runs at least two by default, and at most four", () => {
    expect(defaultWorkers).toBeGreaterThanOrEqual(2);
    expect(defaultWorkers).toBeLessThanOrEqual(4);
  });

  it.each([0, -1, 1.5, 65, Number.NaN, "2" as unknown as number])("refuses %s workers with the range it takes", (count) => {
    expect(() => setLoweringWorkers(count)).toThrow(InvalidArgumentError);
    expect(() => setLoweringWorkers(count)).toThrow(/count must be an integer in \[1, 64\]/);
    expect(loweringWorkers()).toBe(defaultWorkers);
  });

  it("lowers a quick grammar on a second worker while a slow one runs", async () => {
    setLoweringWorkers(2);
    const slow = slowLowering();
    const quick = await lowerOffThread(seeds.named);
    // The same IR as lowering it here: a second worker is a full lowering, not a shortcut.
    expect(deserializeGrammar(quick)).toEqual(deserializeGrammar(serializeGrammar(lowerFormat(seeds.named))));
    expect(slow.settled()).toBe(false);
    slow.abort();
    await expect(slow.pending).rejects.toBeInstanceOf(AbortError);
  }, 60_000);

  it("with one worker, lowers in the order asked and goes on after a lowered limit", async () => {
    setLoweringWorkers(2);
    const slow = slowLowering();
    let quickDone = false;
    const quick = lowerOffThread(seeds.required).then((bytes) => {
      quickDone = true;
      return bytes;
    });
    // Down to one worker while two are busy: both jobs finish, then only one worker is left.
    setLoweringWorkers(1);
    expect(loweringWorkers()).toBe(1);
    expect((await quick).length).toBeGreaterThan(0);
    expect(quickDone).toBe(true);
    slow.abort();
    await expect(slow.pending).rejects.toBeInstanceOf(AbortError);

    // One worker: the second job waits for the first; aborting the first lets it through.
    const first = slowLowering();
    let secondDone = false;
    const second = lowerOffThread(seeds.auto).then((bytes) => {
      secondDone = true;
      return bytes;
    });
    // Well into the first job, the second has not started (with two workers it took milliseconds).
    await first.reached(100);
    expect(secondDone).toBe(false);
    expect(first.settled()).toBe(false);
    first.abort();
    await expect(first.pending).rejects.toBeInstanceOf(AbortError);
    expect((await second).length).toBeGreaterThan(0);
  }, 60_000);

  it("refuses a grammar that outgrows the workers' heap limit with a GrammarError, and goes on", async () => {
    expect(loweringHeapLimitMb()).toBe(null);
    for (const bad of [0, 15, 1.5, 65537, "64", Number.NaN]) {
      expect(() => setLoweringWorkers(1, { heapLimitMb: bad as number })).toThrow(/options\.heapLimitMb must be null or an integer number of MB in \[16, 65536\]/);
    }
    expect(() => setLoweringWorkers(1, null as unknown as object)).toThrow(InvalidArgumentError);
    setLoweringWorkers(1, { heapLimitMb: 32 });
    expect(loweringHeapLimitMb()).toBe(32);
    // A small grammar lowers under the limit.
    expect((await lowerOffThread(seeds.required)).length).toBeGreaterThan(0);
    // 400,000 enum values need far more than 32 MB to lower.
    const values = Array.from({ length: 400_000 }, (_, i) => `value-number-${i}-with-some-padding`);
    const big: StructuralTag = { type: "structural_tag", format: { type: "json_schema", json_schema: { enum: values } } };
    const refused = await lowerOffThread(big).then(() => null, (err: unknown) => err);
    expect(refused).toBeInstanceOf(GrammarError);
    expect((refused as GrammarError).message).toMatch(/too large to lower: the lowering worker ran out of memory \(its heap limit of 32 MB\).*setLoweringWorkers\(count, \{ heapLimitMb \}\)/);
    // A fresh worker takes the next job; the count alone leaves the limit as it was.
    expect((await lowerOffThread(seeds.auto)).length).toBeGreaterThan(0);
    setLoweringWorkers(2);
    expect(loweringHeapLimitMb()).toBe(32);
    setLoweringWorkers(defaultWorkers, { heapLimitMb: null });
    expect(loweringHeapLimitMb()).toBe(null);
    expect((await lowerOffThread(seeds.required)).length).toBeGreaterThan(0);
  }, 60_000);
});
