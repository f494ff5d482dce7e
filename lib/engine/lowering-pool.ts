/**
 * Lowering off the event loop: a few worker threads (lowering-worker.ts), started as jobs need
 * them and kept, that turn structural tags and formats into serialized grammar IR, jobs taken in
 * the order asked. A job goes to the oldest idle worker (its lowering cache has seen the most
 * tools); another worker starts only when all are busy, so one slow grammar does not hold up the
 * rest. Idle workers do not keep the process alive.
 *
 * Aborting a running job terminates its worker (the lowering is plain JavaScript with no
 * checkpoints inside a JSON Schema, so that is the prompt way to stop it and free its memory); a
 * fresh one starts when a job needs it. A job still waiting is just dropped.
 *
 * A worker that runs out of heap (a grammar too large to lower) ends its job with a GrammarError
 * that says so; the process and the other workers go on, and a fresh worker takes the next job.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { SimplifyOptions } from "../compile/simplify.js";
import { AbortError, GrammarError, InternalError, InvalidArgumentError } from "../errors.js";
import { hasRecordedNumberTexts, stringifyExact } from "../format/exact-numbers.js";
import { isStructuralTagObject, parseFormat, parseStructuralTag } from "../format/parse.js";
import { packageRoot } from "../package-root.js";
import { reviveError, type LoweringReply, type LoweringRequest } from "./lowering-protocol.js";

/** What {@link lowerOffThread} takes besides the format. */
export interface OffThreadLowering {
  simplify?: boolean | SimplifyOptions;
  cache?: boolean;
  undeclared?: "forbid" | "allow";
  signal?: AbortSignal | undefined;
  onProgress?: ((done: number, total: number) => void) | undefined;
}

interface Job {
  request: LoweringRequest;
  onProgress: ((done: number, total: number) => void) | undefined;
  resolve: (bytes: Uint8Array) => void;
  reject: (err: unknown) => void;
  settled: boolean;
}

/** The worker's script: next to this module when compiled; in dist/ when running from the sources. */
function workerScript(): URL {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(".js")) return new URL("./lowering-worker.js", import.meta.url);
  return pathToFileURL(join(packageRoot(), "dist", "lib", "engine", "lowering-worker.js"));
}

/** The abort reason as a tagmask AbortError (the reason stays its `cause`). */
export function abortErrorOf(signal: AbortSignal): AbortError {
  const reason: unknown = signal.reason;
  if (reason instanceof AbortError) return reason;
  const detail = reason instanceof Error ? `: ${reason.message}` : "";
  return new AbortError(`the compilation was aborted${detail}`, { cause: reason });
}

/** One worker thread and the job it is on. */
interface Slot {
  worker: Worker;
  current: Job | null;
  /** The heap limit the worker was started with (MB; null: Node's default). */
  heapLimitMb: number | null;
}

/** What {@link setLoweringWorkers} takes besides the count. */
export interface LoweringWorkerOptions {
  /**
   * Heap limit of each lowering worker in MB (V8's old generation), or null for Node's default.
   * A grammar that needs more fails with a GrammarError instead of holding that memory. Workers
   * already started keep their limit until their current job ends. Absent: unchanged.
   */
  heapLimitMb?: number | null;
}

/** The default number of lowering workers: one per spare core, at least 2 and at most 4. */
function defaultWorkerCount(): number {
  return Math.max(2, Math.min(4, availableParallelism() - 1));
}

class LoweringPool {
  /** Started workers, oldest first; a job goes to the first idle one, so the oldest (whose lowering cache has seen most) does most of the work. */
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private maxWorkers = defaultWorkerCount();
  private heapLimitMb: number | null = null;

  get workerLimit(): number {
    return this.maxWorkers;
  }

  get workerHeapLimit(): number | null {
    return this.heapLimitMb;
  }

  /** Sets the heap limit of workers started from now on; idle workers with another limit stop at the next pump. */
  setHeapLimit(mb: number | null): void {
    this.heapLimitMb = mb;
  }

  /** Sets how many workers may run at once; idle workers past the new limit stop now, busy ones when their job ends. */
  setWorkerLimit(count: number): void {
    this.maxWorkers = count;
    for (let i = this.slots.length - 1; i >= count; i--) {
      const slot = this.slots[i]!;
      if (slot.current === null) this.retire(slot);
    }
    this.pump();
  }

  lower(format: unknown, options: OffThreadLowering): Promise<Uint8Array> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortErrorOf(signal));
    return new Promise<Uint8Array>((resolve, reject) => {
      // Numbers as written survive only as JSON text (a structured clone keeps doubles).
      const request: LoweringRequest = hasRecordedNumberTexts() ? { id: this.nextId++, text: stringifyExact(format) } : { id: this.nextId++, format };
      if (options.simplify !== undefined) request.simplify = options.simplify;
      if (options.cache !== undefined) request.cache = options.cache;
      if (options.undeclared !== undefined) request.undeclared = options.undeclared;
      const job: Job = { request, onProgress: options.onProgress, resolve, reject, settled: false };
      const onAbort = (): void => this.abort(job, abortErrorOf(signal!));
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = (): void => signal?.removeEventListener("abort", onAbort);
      job.resolve = (bytes) => {
        done();
        resolve(bytes);
      };
      job.reject = (err) => {
        done();
        reject(err);
      };
      this.queue.push(job);
      this.pump();
    });
  }

  private settle(job: Job, outcome: { bytes: Uint8Array } | { error: unknown }): void {
    if (job.settled) return;
    job.settled = true;
    if ("bytes" in outcome) job.resolve(outcome.bytes);
    else job.reject(outcome.error);
  }

  /** Stops `job` (running or waiting) and rejects it with `error`. */
  private abort(job: Job, error: unknown): void {
    if (job.settled) return;
    const slot = this.slots.find((s) => s.current === job);
    if (slot !== undefined) {
      // Stop the work itself; the worker's state goes with it.
      slot.current = null;
      this.retire(slot);
    } else {
      const at = this.queue.indexOf(job);
      if (at >= 0) this.queue.splice(at, 1);
    }
    this.settle(job, { error });
    this.pump();
  }

  /** Removes a slot and terminates its worker (its exit then finds it gone and does nothing). */
  private retire(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    void slot.worker.terminate();
  }

  /** Hands waiting jobs to idle workers, starting workers up to the limit. */
  private pump(): void {
    // A worker started under another heap limit stops once idle; a fresh one takes its place.
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const slot = this.slots[i]!;
      if (slot.current === null && slot.heapLimitMb !== this.heapLimitMb) this.retire(slot);
    }
    while (this.queue.length > 0) {
      let slot = this.slots.find((s, i) => s.current === null && i < this.maxWorkers);
      if (slot === undefined) {
        if (this.slots.length >= this.maxWorkers) break;
        try {
          slot = this.start();
        } catch (err) {
          this.settle(this.queue.shift()!, { error: err });
          continue;
        }
      }
      this.send(slot, this.queue.shift()!);
    }
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const slot = this.slots[i]!;
      if (slot.current !== null) continue;
      if (i >= this.maxWorkers) this.retire(slot);
      else slot.worker.unref();
    }
  }

  private send(slot: Slot, job: Job): void {
    slot.worker.ref();
    slot.current = job;
    try {
      slot.worker.postMessage(job.request);
    } catch (err) {
      // Not cloneable (a function, a symbol…): no valid format holds such a value, and the
      // format reader says where it is.
      slot.current = null;
      let error: unknown = new InternalError(`the format cannot be sent to the lowering worker: ${(err as Error).message}`);
      try {
        const format = job.request.format;
        if (isStructuralTagObject(format)) parseStructuralTag(format);
        else parseFormat(format);
      } catch (formatError) {
        error = formatError;
      }
      this.settle(job, { error });
    }
  }

  private start(): Slot {
    const script = workerScript();
    if (!existsSync(fileURLToPath(script))) {
      throw new InternalError(`the lowering worker's script ${fileURLToPath(script)} is missing: build the package (npm run build)`);
    }
    const heapLimitMb = this.heapLimitMb;
    const worker = new Worker(script, heapLimitMb === null ? {} : { resourceLimits: { maxOldGenerationSizeMb: heapLimitMb } });
    const slot: Slot = { worker, current: null, heapLimitMb };
    worker.on("message", (reply: LoweringReply) => {
      const job = slot.current;
      if (job === null || job.request.id !== reply.id) return;
      if (reply.kind === "progress") {
        try {
          job.onProgress?.(reply.done, reply.total);
        } catch (err) {
          // A callback that throws ends its compilation with its error.
          this.abort(job, err);
        }
        return;
      }
      slot.current = null;
      this.settle(job, reply.kind === "done" ? { bytes: reply.bytes } : { error: reviveError(reply.error) });
      this.pump();
    });
    const fail = (error: Error): void => {
      const at = this.slots.indexOf(slot);
      if (at < 0) return;
      this.slots.splice(at, 1);
      const job = slot.current;
      slot.current = null;
      if (job) this.settle(job, { error });
      this.pump();
    };
    worker.on("error", (err: Error & { code?: unknown }) => {
      if (err.code !== "ERR_WORKER_OUT_OF_MEMORY") return fail(new InternalError(`the lowering worker stopped: ${err.message}`));
      const limit = heapLimitMb === null ? "Node's default heap limit" : `its heap limit of ${heapLimitMb} MB`;
      fail(new GrammarError(
        `the grammar is too large to lower: the lowering worker ran out of memory (${limit}); ` +
          "use fewer tools or smaller enums, length bounds and patterns, or raise the limit with setLoweringWorkers(count, { heapLimitMb })",
      ));
    });
    worker.on("exit", (code) => fail(new InternalError(`the lowering worker stopped: exit code ${code}`)));
    this.slots.push(slot);
    return slot;
  }
}

const pool = new LoweringPool();

/**
 * A format that goes through the costly first-use paths of the lowering: number bounds (the
 * numeral automata are built on first use), integers, string formats, patterns, enums, length
 * and item bounds, nested objects, free text with excludes and tag lists.
 */
const WARM_UP_FORMAT = {
  type: "structural_tag",
  format: {
    type: "triggered_tags",
    triggers: ["<call"],
    tags: [{
      type: "tag",
      begin: "<call>",
      content: {
        type: "json_schema",
        json_schema: {
          type: "object",
          properties: {
            count: { type: "integer", minimum: 1, maximum: 1000 },
            ratio: { type: "number", exclusiveMinimum: 0, maximum: 2.5, multipleOf: 0.5 },
            when: { type: "string", format: "date-time" },
            mail: { type: "string", format: "email" },
            code: { type: "string", pattern: "^[A-Z]{2}-[0-9]{3}$", maxLength: 16 },
            mode: { enum: ["fast", "slow", 3, null] },
            tags: { type: "array", items: { type: "string", minLength: 1 }, maxItems: 4 },
            nested: { type: "object", properties: { on: { type: "boolean" } }, additionalProperties: false },
          },
          required: ["count"],
        },
      },
      end: "</call>",
    }],
  },
};

/**
 * Starts the lowering worker and has it lower a format that builds the lowering's first-use
 * automata and warms its code, so that the first real request does not pay for them (hundreds
 * of milliseconds for a tool with number bounds). A server calls it at start-up.
 */
export function warmUpLowering(signal?: AbortSignal): Promise<void> {
  return pool.lower(WARM_UP_FORMAT, { signal, cache: false }).then(() => undefined);
}

/**
 * The serialized grammar IR of a structural tag or format (as lowerFormat, then serializeGrammar,
 * would make it), lowered on the worker thread. Rejects with the typed error of the lowering, or
 * an AbortError when `signal` aborts first.
 */
export function lowerOffThread(format: unknown, options: OffThreadLowering = {}): Promise<Uint8Array> {
  return pool.lower(format, options);
}

/**
 * Sets how many lowering worker threads may run at once (default: one per spare core, at least 2
 * and at most 4). With one, grammars are lowered strictly one after another; more let a quick
 * grammar pass a slow one. Each worker keeps its own lowering cache. Idle workers past a lowered
 * limit stop at once, busy ones when their job ends. `options.heapLimitMb` bounds each worker's
 * heap: a grammar that needs more is refused with a GrammarError (the process goes on).
 *
 * @example
 * setLoweringWorkers(1); // one worker, one lowering cache
 * setLoweringWorkers(2, { heapLimitMb: 512 }); // two workers of at most 512 MB heap each
 */
export function setLoweringWorkers(count: number, options: LoweringWorkerOptions = {}): void {
  if (!Number.isInteger(count) || count < 1 || count > 64) {
    throw new InvalidArgumentError(`setLoweringWorkers: count must be an integer in [1, 64], got ${String(count)}`);
  }
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError(`setLoweringWorkers: options must be an object, got ${options === null ? "null" : typeof options}`);
  }
  const heap = options.heapLimitMb;
  if (heap !== undefined && heap !== null && (!Number.isInteger(heap) || heap < 16 || heap > 65536)) {
    throw new InvalidArgumentError(`setLoweringWorkers: options.heapLimitMb must be null or an integer number of MB in [16, 65536], got ${String(heap)}`);
  }
  if (heap !== undefined) pool.setHeapLimit(heap);
  pool.setWorkerLimit(count);
}

/** The heap limit of each lowering worker in MB, or null for Node's default (see {@link setLoweringWorkers}). */
export function loweringHeapLimitMb(): number | null {
  return pool.workerHeapLimit;
}

/** How many lowering worker threads may run at once (see {@link setLoweringWorkers}). */
export function loweringWorkers(): number {
  return pool.workerLimit;
}
