/**
 * Compiling off the event loop: structural tags lowered on the lowering worker and compiled
 * natively on libuv's pool give the same grammar as the synchronous path; progress comes in
 * phase order; an AbortSignal stops the work in every phase (the native compilation included) and
 * rejects with an AbortError; errors keep their class across the worker; the event loop keeps
 * ticking while a 100-tool grammar compiles.
 *
 * The lowering worker runs the compiled package (dist/), which beforeAll brings up to date.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { lowerFormat } from "../../lib/compile/lower.js";
import { serializeGrammar } from "../../lib/compile/ir.js";
import { compileGrammar, compileGrammarAsync, warmUpCompiler } from "../../lib/engine/compiled-grammar.js";
import type { CompileProgress } from "../../lib/engine/compile-run.js";
import { GrammarCompiler } from "../../lib/engine/grammar-compiler.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { AbortError, FormatError, GrammarError, InvalidArgumentError, SchemaError } from "../../lib/errors.js";
import { parseStructuralTag } from "../../lib/format/parse.js";
import type { StructuralTag } from "../../lib/format/types.js";
import { native, type NativeTokenizerInfoHandle } from "../../lib/native.js";
import { buildToolCallingFormat, type FunctionTool } from "../../lib/tools/index.js";
import { ensureBuiltCli } from "../helpers/cli.js";
import { sixParameterTools } from "../helpers/many-tools.js";
import { seeds } from "../helpers/seeds.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";

const vocab = loadTestVocabulary("llama3", { kimiMarkers: true });

const k3 = (tools: FunctionTool[]): StructuralTag => buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: "auto" })!;

/** The largest gap between ticks of a 5 ms interval while `work` runs. */
async function largestTimerGap(work: () => Promise<unknown> | unknown): Promise<number> {
  let last = performance.now();
  let largest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    largest = Math.max(largest, now - last);
    last = now;
  }, 5);
  try {
    await work();
    // The tick that a blocked loop owes comes right after the work.
    await new Promise((resolve) => setTimeout(resolve, 15));
  } finally {
    clearInterval(timer);
  }
  return largest;
}

beforeAll(() => ensureBuiltCli(), 300_000);

describe("compileGrammarAsync", () => {
  it("compiles a structural tag to the same automaton and masks as the synchronous path", async () => {
    const sync = compileGrammar(vocab, lowerFormat(seeds.required), { threads: 1 });
    const off = await compileGrammarAsync(vocab, seeds.required, { threads: 1 });
    expect(off.stateCount).toBe(sync.stateCount);
    const text = '<|open|>response<|sep|>Hi.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>';
    const a = new GrammarMatcher(sync);
    const b = new GrammarMatcher(off);
    for (const id of encodeForTest("llama3", text)) {
      expect(b.nextTokenBitmask()).toEqual(a.nextTokenBitmask());
      expect(a.acceptToken(id)).toBe(true);
      expect(b.acceptToken(id)).toBe(true);
    }
  });

  it("reports progress phase by phase, each count reaching its total", async () => {
    const seen: CompileProgress[] = [];
    await compileGrammarAsync(vocab, k3(sixParameterTools(6)), { threads: 1, onProgress: (p) => seen.push(p) });
    const phases = [...new Set(seen.map((p) => p.phase))];
    const order = ["lower", "read", "automaton", "masks"];
    expect(phases[0]).toBe("lower");
    expect(phases).toContain("masks");
    expect(phases.map((p) => order.indexOf(p))).toEqual([...phases.map((p) => order.indexOf(p))].sort((x, y) => x - y));
    const lower = seen.filter((p) => p.phase === "lower");
    expect(lower.at(-1)).toEqual({ phase: "lower", done: 6, total: 6 });
    for (const p of seen) expect(p.total === 0 || p.done <= p.total).toBe(true);
    const masks = seen.filter((p) => p.phase === "masks");
    expect(masks.at(-1)!.done).toBe(masks.at(-1)!.total);
  });

  it("reports the mask walk complete even when the compilation ends before the first poll", async () => {
    const seen: CompileProgress[] = [];
    await compileGrammarAsync(vocab, { type: "structural_tag", format: { type: "const_string", value: "ok" } }, { threads: 1, onProgress: (p) => seen.push(p) });
    const last = seen.at(-1)!;
    expect(last.phase).toBe("masks");
    expect(last.total).toBeGreaterThan(0);
    expect(last.done).toBe(last.total);
  });

  it("rejects at once when the signal has aborted already, with the reason as cause", async () => {
    const controller = new AbortController();
    const reason = new Error("client went away");
    controller.abort(reason);
    const err = await compileGrammarAsync(vocab, seeds.auto, { signal: controller.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect((err as AbortError).code).toBe("TAGMASK_ABORTED");
    expect((err as AbortError).cause).toBe(reason);
    expect((err as Error).message).toBe("the compilation was aborted: client went away");
  });

  it("stops lowering at once when aborted; the next compilation in line goes on", async () => {
    const controller = new AbortController();
    let rejected = false;
    let settledBeforeNextTurn: boolean | undefined;
    let reportsAfterAbort = 0;
    const pending = compileGrammarAsync(vocab, k3(sixParameterTools(80, { only: 3, variant: 7 })), {
      signal: controller.signal,
      onProgress: (p) => {
        if (controller.signal.aborted) reportsAfterAbort++;
        if (p.phase === "lower" && p.done === 2) {
          controller.abort();
          // Settled by the abort itself (its promise chain runs before the next event-loop turn),
          // not by a worker that finishes the other 78 tools first.
          setImmediate(() => (settledBeforeNextTurn = rejected));
        }
      },
    });
    pending.catch(() => (rejected = true));
    const queued = compileGrammarAsync(vocab, seeds.named, { threads: 1 });
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect((await queued).stateCount).toBeGreaterThan(1);
    expect(settledBeforeNextTurn).toBe(true);
    expect(reportsAfterAbort).toBe(0);
  });

  it("cancels the native compilation: it stops at a checkpoint and frees the work", async () => {
    // Large enough that its mask walk spans many polls even as the engine gets faster.
    const bytes = serializeGrammar(lowerFormat(k3(sixParameterTools(100))));
    const handle = vocab.native() as NativeTokenizerInfoHandle;
    const job = native().startCompile(handle, bytes, { threads: 1 });
    let atCancel = job.progress();
    while (!(atCancel.phase === "masks" && atCancel.done > 0) && atCancel.phase !== "done") {
      await new Promise((resolve) => setTimeout(resolve, 1));
      atCancel = job.progress();
    }
    expect(atCancel.phase).toBe("masks");
    job.cancel();
    await expect(job.promise).rejects.toBeInstanceOf(AbortError);
    // Stopped inside the walk, not after it.
    const after = job.progress();
    expect(after.phase).toBe("masks");
    expect(after.done).toBeLessThan(after.total);
    // Through the API: the promise rejects as soon as the signal aborts.
    const controller = new AbortController();
    const pending = compileGrammarAsync(vocab, bytes, { threads: 1, signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(pending).rejects.toThrow(AbortError);
  });

  it("keeps the class and fields of errors raised on the lowering worker", async () => {
    const tools = sixParameterTools(2);
    (tools[1]!.function.parameters as { properties: Record<string, unknown> }).properties["limit"] = { type: "integer", minimum: "one" };
    const schemaErr = await compileGrammarAsync(vocab, k3(tools)).catch((e: unknown) => e);
    expect(schemaErr).toBeInstanceOf(SchemaError);
    expect((schemaErr as SchemaError).schemaPath).toBe("#/minimum");
    const formatErr = await compileGrammarAsync(vocab, { type: "structural_tag", format: { type: "sequence", elements: [] } } as never).catch((e: unknown) => e);
    expect(formatErr).toBeInstanceOf(FormatError);
    expect((formatErr as FormatError).path).toBe("format.elements");
    const regexErr = await compileGrammarAsync(vocab, { type: "regex", pattern: "a(b" }).catch((e: unknown) => e);
    expect(regexErr).toBeInstanceOf(GrammarError);
    expect((regexErr as GrammarError).position).toBe(1);
    expect((regexErr as Error).message).toBe("format.pattern: regex error at position 1: unterminated group: the '(' at position 1 has no matching ')'");
  });

  it("keeps numbers as written across the worker (digits a double cannot hold)", async () => {
    const tag = parseStructuralTag(
      '{"type":"structural_tag","format":{"type":"triggered_tags","triggers":["<f"],"tags":[{"begin":"<f>","content":{"type":"json_schema","json_schema":{"type":"integer","maximum":9007199254740993}},"end":"</f>"}]}}',
    );
    const off = await compileGrammarAsync(vocab, tag, { threads: 1 });
    const accepts = (text: string): boolean => {
      const m = new GrammarMatcher(off);
      return m.acceptString(text) && m.canTerminate();
    };
    expect(accepts("<f>9007199254740993</f>")).toBe(true);
    expect(accepts("<f>9007199254740994</f>")).toBe(false);
    // A value no format holds is refused where it stands, as the synchronous path does.
    const withFunction = { type: "const_string", value: () => "x" } as never;
    await expect(compileGrammarAsync(vocab, withFunction)).rejects.toThrow(FormatError);
  });

  it("ends the compilation with the error a progress callback throws", async () => {
    const boom = new Error("progress display crashed");
    await expect(compileGrammarAsync(vocab, seeds.auto, { onProgress: () => { throw boom; } })).rejects.toBe(boom);
    // The native compile must outlast one progress poll (25 ms): the seed compiles in ~10 ms once
    // warm, so a 40-tool grammar (hundreds of milliseconds) is the one that must report.
    await expect(compileGrammarAsync(vocab, serializeGrammar(lowerFormat(k3(sixParameterTools(40)))), { onProgress: () => { throw boom; } })).rejects.toBe(boom);
  });

  it("warms up the lowering worker ahead of the first request, and can be aborted", async () => {
    await expect(warmUpCompiler()).resolves.toBeUndefined();
    const controller = new AbortController();
    controller.abort();
    await expect(warmUpCompiler(controller.signal)).rejects.toBeInstanceOf(AbortError);
    await expect(warmUpCompiler({} as AbortSignal)).rejects.toThrow("warmUpCompiler: signal must be an AbortSignal");
    expect((await compileGrammarAsync(vocab, k3(sixParameterTools(1)), { threads: 1 })).stateCount).toBeGreaterThan(1);
  });

  it("checks its options", async () => {
    await expect(compileGrammarAsync(vocab, seeds.auto, { signal: {} as AbortSignal })).rejects.toThrow(InvalidArgumentError);
    await expect(compileGrammarAsync(vocab, seeds.auto, { onProgress: 5 as never })).rejects.toThrow("options.onProgress must be a function");
    await expect(compileGrammarAsync(vocab, 42 as never)).rejects.toThrow(InvalidArgumentError);
  });

  it("keeps the event loop ticking while a 100-tool grammar compiles", async () => {
    const tag = k3(sixParameterTools(100));
    // Synchronously, the loop is blocked for the whole compilation: the yardstick.
    let blocked = 0;
    const syncGap = await largestTimerGap(() => {
      const t0 = performance.now();
      compileGrammar(vocab, tag, { threads: 1, lowering: { cache: false } });
      blocked = performance.now() - t0;
    });
    const asyncGap = await largestTimerGap(() => compileGrammarAsync(vocab, tag, { threads: 1, lowering: { cache: false } }));
    // Loose enough for a loaded 2-core machine, where a ready thread can wait a scheduler slice
    // or two; the synchronous compilation (hundreds of ms at least) fails it.
    // The yardstick must show the blocking it is meant to show, whatever the engine's speed.
    expect(syncGap).toBeGreaterThan(blocked * 0.9);
    expect(asyncGap).toBeLessThan(Math.max(150, blocked / 4));
    expect(asyncGap).toBeLessThan(blocked / 2);
  });
});

describe("GrammarCompiler.compileAsync", () => {
  it("lowers structural tags off the event loop and caches by the grammar's bytes", async () => {
    const compiler = new GrammarCompiler();
    const a = await compiler.compileAsync(vocab, seeds.named);
    const b = await compiler.compileAsync(vocab, lowerFormat(seeds.named));
    expect(b).toBe(a);
    expect(compiler.cacheStats).toMatchObject({ entries: 1, hits: 1, misses: 1 });
  });

  it("keeps a shared compilation going for the callers that did not abort", async () => {
    const compiler = new GrammarCompiler();
    const tag = k3(sixParameterTools(12, { only: 0, variant: 3 }));
    const controller = new AbortController();
    const quitter = compiler.compileAsync(vocab, tag, { signal: controller.signal });
    const stayer = compiler.compileAsync(vocab, tag);
    // Both wait for one native compilation once lowered; then the first gives up.
    const progress: string[] = [];
    const third = compiler.compileAsync(vocab, tag, { onProgress: (p) => progress.push(p.phase) });
    setTimeout(() => controller.abort(), 1);
    await expect(quitter).rejects.toBeInstanceOf(AbortError);
    const [kept, also] = await Promise.all([stayer, third]);
    expect(also).toBe(kept);
    expect(compiler.cacheStats.entries).toBe(1);
    expect(progress).toContain("lower");
  });

  it("cancels a compilation every caller gave up on, and compiles anew for the next one", async () => {
    const compiler = new GrammarCompiler();
    const bytes = serializeGrammar(lowerFormat(k3(sixParameterTools(30, { only: 1, variant: 4 }))));
    const controller = new AbortController();
    const a = compiler.compileAsync(vocab, bytes, { signal: controller.signal });
    const b = compiler.compileAsync(vocab, bytes, { signal: controller.signal });
    // Once both wait for the one native compilation.
    setTimeout(() => controller.abort(), 0);
    await expect(a).rejects.toBeInstanceOf(AbortError);
    await expect(b).rejects.toBeInstanceOf(AbortError);
    const c = await compiler.compileAsync(vocab, bytes);
    expect(c.stateCount).toBeGreaterThan(1);
    expect(compiler.cacheStats.misses).toBe(2);
  });
});
