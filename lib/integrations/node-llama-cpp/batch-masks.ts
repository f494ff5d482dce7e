/**
 * Masks for many sequences of one context, computed together. node-llama-cpp decodes the
 * sequences of a context in one batch and then samples each; between one batch's tokens and the
 * next batch's sampling, every sequence that has accepted its token asks for its next mask. The
 * scheduler waits until every sequence still generating has asked, then fills all of their rows
 * in one call of the batch path, into one `[rows, ceil(V/32)]` buffer. Waiting costs nothing:
 * the sequences then also hand their next tokens to node-llama-cpp together, so they share the
 * next decode batch instead of trickling into separate ones. No sequence can be kept waiting
 * forever: each one still generating either asks for a mask after its next token, or finishes
 * (and {@link BatchMaskScheduler.finish} takes it out of the count).
 */
import { InvalidArgumentError } from "../../errors.js";
import type { MaskSource } from "./generate.js";

/**
 * Fills the masks of the sequences `indices` in one call of the batch path: one entry per index,
 * the mask row or the error of that row alone (directly, or as a promise for an asynchronous fill).
 */
export type BatchFill = (indices: readonly number[]) => (Int32Array | Error)[] | Promise<(Int32Array | Error)[]>;

/** Timings of the batched fills. */
export interface BatchMaskStats {
  /** Batch fill calls. */
  fills: number;
  /** Rows filled in all calls. */
  rows: number;
  /** Per call: wall microseconds of the fill. */
  fillMicros: number[];
}

/** Coalesces mask requests of concurrently generating sequences into batch fills. */
export class BatchMaskScheduler {
  readonly stats: BatchMaskStats = { fills: 0, rows: 0, fillMicros: [] };
  private pending = new Map<number, { resolve: (row: Int32Array) => void; reject: (err: Error) => void }>();
  private readonly active = new Set<number>();
  private scheduled = false;

  constructor(
    readonly size: number,
    private readonly fill: BatchFill,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new InvalidArgumentError(`batch size must be a positive integer, got ${size}`);
    for (let i = 0; i < size; i++) this.active.add(i);
  }

  /** Sequence `index` has finished generating: the others no longer wait for it. */
  finish(index: number): void {
    this.active.delete(index);
    this.maybeFlush();
  }

  private maybeFlush(): void {
    if (this.scheduled || this.pending.size === 0) return;
    for (const i of this.active) if (!this.pending.has(i)) return;
    // Everyone still generating has asked: fill now.
    this.scheduled = true;
    this.flush();
  }

  /** The mask source of sequence `index` (one request at a time per index). */
  source(index: number): MaskSource {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) throw new InvalidArgumentError(`sequence index ${index} is out of range [0, ${this.size})`);
    return {
      next: () => {
        if (!this.active.has(index)) throw new InvalidArgumentError(`sequence ${index} has finished; it gets no more masks`);
        return this.request(index);
      },
    };
  }

  private request(index: number): Promise<Int32Array> {
    return new Promise((resolve, reject) => {
      this.pending.set(index, { resolve, reject });
      this.maybeFlush();
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = new Map();
    const indices = [...batch.keys()];
    const t0 = performance.now();
    const settle = (rows: (Int32Array | Error)[]): void => {
      this.stats.fillMicros.push((performance.now() - t0) * 1000);
      this.stats.fills++;
      this.stats.rows += indices.length;
      // Requests made while resolving belong to the next round.
      this.scheduled = false;
      indices.forEach((index, k) => {
        const waiter = batch.get(index)!;
        const row = rows[k];
        if (row instanceof Int32Array) waiter.resolve(row);
        else waiter.reject(row ?? new Error(`no mask for sequence ${index}`));
      });
      this.maybeFlush();
    };
    let result: (Int32Array | Error)[] | Promise<(Int32Array | Error)[]>;
    try {
      result = this.fill(indices);
    } catch (err) {
      result = indices.map(() => err as Error);
    }
    if (Array.isArray(result)) settle(result);
    else result.then(settle, (err: unknown) => settle(indices.map(() => err as Error)));
  }
}
