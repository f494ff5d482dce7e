/**
 * Masks for a changing set of sequences, one batch fill per decoding step. This is the
 * continuous-batching form of the integration's fixed-size BatchMaskScheduler: requests join and
 * leave while others generate.
 *
 * Every generating sequence asks for its next mask once it has accepted its token; the batcher
 * waits until every member has asked, then fills all of their rows in one synchronous call of a
 * {@link BatchMatcher} (the calling thread and the native pool together) into one buffer
 * allocated once for the server's parallelism. The sequences then hand their next tokens to
 * node-llama-cpp in the same tick, so they share the next decode. A sequence that joins asks for
 * its first mask at once and is served with the others at the next step; one that finishes
 * leaves, and nobody waits for it. The BatchMatcher is rebuilt only when the membership changed.
 *
 * A mask row stays valid until the member asks again: the next fill happens only once every
 * member has asked, i.e. has finished with its previous row.
 */
import { BatchMatcher } from "../engine/batch.js";
import type { GrammarMatcher } from "../engine/matcher.js";
import { InternalError, InvalidArgumentError } from "../errors.js";
import type { MaskSource } from "../integrations/node-llama-cpp/generate.js";

/** One member's handle: its mask source, and `leave()` once its generation is over. */
export interface MaskMember extends MaskSource {
  leave(): void;
}

/** What one fill did, for metrics. */
export interface MaskFill {
  /** Rows filled (the members at that step). */
  rows: number;
  /** Wall time of the fill, microseconds. */
  micros: number;
  /**
   * CPU time the process spent during the fill (every thread: the calling one and the pool's),
   * microseconds — the fill's work, less affected than wall time by a loaded machine.
   */
  cpuMicros: number;
  /**
   * Microseconds from the end of the previous fill to the start of this one — the rest of the
   * decoding step (node-llama-cpp's decode and sampling, tagmask's per-sequence accept and bias
   * work) — when the batch had members all along; absent after an idle period.
   */
  sinceLastMicros?: number;
  /** Whether the membership had changed, so that the batch was rebuilt for this fill. */
  rebuilt: boolean;
}

interface Waiter {
  resolve(row: Int32Array): void;
  reject(err: Error): void;
}

interface Member {
  matcher: GrammarMatcher;
  waiter: Waiter | null;
}

/** Coalesces the mask requests of up to `capacity` concurrently generating sequences. */
export class MaskBatcher {
  private readonly members = new Map<number, Member>();
  private nextId = 0;
  private batch: BatchMatcher | null = null;
  private rowOf = new Map<number, number>();
  private stale = true;
  private readonly out: Int32Array;
  private lastFillEnd: number | undefined;
  private readonly words: number;

  constructor(
    /** Most members at once (the server's parallel sequences). */
    readonly capacity: number,
    vocabSize: number,
    /** Called after every fill. */
    private readonly onFill: (fill: MaskFill) => void = () => {},
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new InvalidArgumentError(`MaskBatcher: capacity must be a positive integer, got ${capacity}`);
    this.words = Math.ceil(vocabSize / 32);
    this.out = new Int32Array(capacity * this.words);
  }

  /** Members generating now. */
  get size(): number {
    return this.members.size;
  }

  /** Adds a sequence's matcher; the returned source gives its masks until `leave()`. */
  join(matcher: GrammarMatcher): MaskMember {
    if (this.members.size >= this.capacity) throw new InternalError(`MaskBatcher: more than ${this.capacity} members`);
    const id = this.nextId++;
    this.members.set(id, { matcher, waiter: null });
    this.stale = true;
    return {
      next: () => this.request(id),
      leave: () => this.leave(id),
    };
  }

  private leave(id: number): void {
    const member = this.members.get(id);
    if (!member) return;
    this.members.delete(id);
    this.stale = true;
    if (this.members.size === 0) this.lastFillEnd = undefined;
    // A member leaving while it waits (its generation failed elsewhere) is told so.
    member.waiter?.reject(new InternalError("MaskBatcher: the sequence left while waiting for its mask"));
    this.maybeFill();
  }

  private request(id: number): Promise<Int32Array> {
    const member = this.members.get(id);
    if (!member) return Promise.reject(new InternalError("MaskBatcher: a sequence asked for a mask after leaving"));
    if (member.waiter) return Promise.reject(new InternalError("MaskBatcher: a sequence asked twice for one step's mask"));
    return new Promise((resolve, reject) => {
      member.waiter = { resolve, reject };
      this.maybeFill();
    });
  }

  private maybeFill(): void {
    if (this.members.size === 0) return;
    for (const m of this.members.values()) if (!m.waiter) return;
    this.fill();
  }

  private fill(): void {
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    const ids = [...this.members.keys()];
    const waiters = ids.map((id) => this.members.get(id)!.waiter!);
    for (const id of ids) this.members.get(id)!.waiter = null;
    let rows: (Int32Array | Error)[];
    const rebuilt = this.stale || !this.batch;
    try {
      let batch = this.batch;
      if (rebuilt || !batch) {
        batch = this.batch = new BatchMatcher(ids.map((id) => this.members.get(id)!.matcher));
        this.rowOf = new Map(ids.map((id, row) => [id, row]));
        this.stale = false;
      }
      const batchRows = ids.map((id) => this.rowOf.get(id)!);
      const errors = batch.fillNextTokenBitmasks(this.out, batchRows);
      const failed = new Map<number, Error>(errors.map((e) => [e.row, e.error]));
      rows = batchRows.map((r) => failed.get(r) ?? this.out.subarray(r * this.words, (r + 1) * this.words));
    } catch (err) {
      rows = ids.map(() => err as Error);
    }
    const ended = performance.now();
    const cpu = process.cpuUsage(cpuStart);
    const fill: MaskFill = { rows: ids.length, micros: (ended - started) * 1000, cpuMicros: cpu.user + cpu.system, rebuilt };
    if (this.lastFillEnd !== undefined) fill.sinceLastMicros = (started - this.lastFillEnd) * 1000;
    this.lastFillEnd = ended;
    this.onFill(fill);
    waiters.forEach((w, k) => {
      const row = rows[k]!;
      if (row instanceof Int32Array) w.resolve(row);
      else w.reject(row);
    });
  }
}
