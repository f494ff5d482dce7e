/**
 * Lowering off the event loop: one worker thread (lowering-worker.ts), started on first use and
 * kept, that turns structural tags and formats into serialized grammar IR one at a time, in the
 * order asked. While it has nothing to do it does not keep the process alive.
 *
 * Aborting the job the worker is on terminates the worker (the lowering is plain JavaScript with
 * no checkpoints inside a JSON Schema, so that is the prompt way to stop it and free its memory);
 * the next job starts a fresh one. A job still waiting is just dropped.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { SimplifyOptions } from "../compile/simplify.js";
import { AbortError, InternalError } from "../errors.js";
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

class LoweringPool {
  private worker: Worker | null = null;
  private current: Job | null = null;
  private readonly queue: Job[] = [];
  private nextId = 1;

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
    if (this.current === job) {
      // Stop the work itself; the worker's state goes with it.
      this.current = null;
      const worker = this.worker;
      this.worker = null;
      void worker?.terminate();
    } else {
      const at = this.queue.indexOf(job);
      if (at >= 0) this.queue.splice(at, 1);
    }
    this.settle(job, { error });
    this.pump();
  }

  private pump(): void {
    if (this.current !== null) return;
    const job = this.queue.shift();
    if (job === undefined) {
      this.worker?.unref();
      return;
    }
    let worker: Worker;
    try {
      worker = this.worker ?? this.start();
    } catch (err) {
      this.settle(job, { error: err });
      this.pump();
      return;
    }
    worker.ref();
    this.current = job;
    try {
      worker.postMessage(job.request);
    } catch (err) {
      // Not cloneable (a function, a symbol…): no valid format holds such a value, and the
      // format reader says where it is.
      this.current = null;
      let error: unknown = new InternalError(`the format cannot be sent to the lowering worker: ${(err as Error).message}`);
      try {
        const format = job.request.format;
        if (isStructuralTagObject(format)) parseStructuralTag(format);
        else parseFormat(format);
      } catch (formatError) {
        error = formatError;
      }
      this.settle(job, { error });
      this.pump();
    }
  }

  private start(): Worker {
    const script = workerScript();
    if (!existsSync(fileURLToPath(script))) {
      throw new InternalError(`the lowering worker's script ${fileURLToPath(script)} is missing: build the package (npm run build)`);
    }
    const worker = new Worker(script);
    worker.on("message", (reply: LoweringReply) => {
      const job = this.current;
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
      this.current = null;
      this.settle(job, reply.kind === "done" ? { bytes: reply.bytes } : { error: reviveError(reply.error) });
      this.pump();
    });
    const fail = (why: string): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      const job = this.current;
      this.current = null;
      if (job) this.settle(job, { error: new InternalError(`the lowering worker stopped: ${why}`) });
      this.pump();
    };
    worker.on("error", (err) => fail(err.message));
    worker.on("exit", (code) => fail(`exit code ${code}`));
    this.worker = worker;
    return worker;
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
