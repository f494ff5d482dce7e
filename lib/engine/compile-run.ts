/**
 * A native compilation running on a worker thread, awaited by one caller or shared by several
 * (GrammarCompiler's in-flight sharing): each waiter has its own AbortSignal and progress
 * callback, and the compilation is cancelled natively once every waiter has given up.
 */
import { AbortError } from "../errors.js";
import { native, type NativeCompiledGrammar, type NativeCompileJob, type NativeTokenizerInfoHandle } from "../native.js";
import { abortErrorOf } from "./lowering-pool.js";

/** Where a compilation is: its phase and, where counted, the units done of the total. */
export interface CompileProgress {
  /**
   * `lower`: the structural tag or format becomes grammar IR (on a worker thread; units are the
   * tags of tag lists, a model's tool calls); `read`, `automaton`: the native front of the
   * compilation (not counted); `masks`: the mask cache (units are automaton states walked).
   */
  phase: "lower" | "read" | "automaton" | "masks";
  done: number;
  /** 0 when the phase is not counted. */
  total: number;
}

/** How often a waiter reads the native progress. */
const POLL_MS = 25;

export class NativeCompileRun {
  private readonly job: NativeCompileJob;
  private waiters = 0;
  private settled = false;
  private cancelledRun = false;

  constructor(tokenizer: NativeTokenizerInfoHandle, bytes: Uint8Array, options: { threads?: number }) {
    this.job = native().startCompile(tokenizer, bytes, options);
    const settle = (): void => {
      this.settled = true;
    };
    this.job.promise.then(settle, settle);
  }

  /** Whether the compilation has ended (compiled, failed or cancelled). */
  get finished(): boolean {
    return this.settled;
  }

  /** Whether the compilation was cancelled (every waiter gave up): new waiters need a new run. */
  get cancelled(): boolean {
    return this.cancelledRun;
  }

  /** Waits for the compilation; `signal` gives up on it (cancelling it if nobody else waits). */
  wait(signal?: AbortSignal, onProgress?: (p: CompileProgress) => void): Promise<NativeCompiledGrammar> {
    this.waiters++;
    return new Promise<NativeCompiledGrammar>((resolve, reject) => {
      let finished = false;
      let last = "";
      const poll = (): void => {
        const p = this.job.progress();
        if (p.phase === "waiting" || p.phase === "done") return;
        const key = `${p.phase}:${p.done}:${p.total}`;
        if (key === last) return;
        last = key;
        onProgress!({ phase: p.phase, done: p.done, total: p.total });
      };
      const timer = onProgress ? setInterval(() => guarded(poll), POLL_MS) : undefined;
      timer?.unref();
      const leave = (outcome: () => void): void => {
        if (finished) return;
        finished = true;
        if (timer) clearInterval(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiters--;
        outcome();
      };
      const giveUp = (err: unknown): void =>
        leave(() => {
          if (this.waiters === 0 && !this.settled) {
            this.cancelledRun = true;
            this.job.cancel();
          }
          reject(err);
        });
      // A progress callback that throws ends this waiter's compilation with its error.
      const guarded = (fn: () => void): void => {
        try {
          fn();
        } catch (err) {
          giveUp(err);
        }
      };
      const onAbort = (): void => giveUp(abortErrorOf(signal!));
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      // A compilation faster than the poll interval still reports its mask walk as complete.
      const finalProgress = (): void => {
        const p = this.job.progress();
        if (p.phase !== "done") return;
        const key = `masks:${p.total}:${p.total}`;
        if (key !== last) onProgress!({ phase: "masks", done: p.total, total: p.total });
      };
      this.job.promise.then(
        (handle) =>
          leave(() => {
            if (onProgress) {
              try {
                finalProgress();
              } catch (err) {
                reject(err);
                return;
              }
            }
            resolve(handle);
          }),
        (err: unknown) => leave(() => reject(err instanceof AbortError && signal?.aborted ? abortErrorOf(signal) : err)),
      );
    });
  }
}
