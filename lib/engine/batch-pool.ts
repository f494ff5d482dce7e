/**
 * The native thread pool that batch mask fills and parallel grammar compilation share: one per
 * process, created on first use, shut down when the last Node environment that loaded the addon
 * goes away.
 */
import { InvalidArgumentError } from "../errors.js";
import { native } from "../native.js";

/**
 * Sets how many worker threads the shared native pool has. `0` restores the default: the
 * `TAGMASK_THREADS` environment variable when set, else the number of CPUs this process may
 * use. Work already queued on the old pool still runs. Returns the new size.
 */
export function setThreadPoolSize(threads: number): number {
  if (!Number.isInteger(threads) || threads < 0 || threads > 1024) {
    throw new InvalidArgumentError(
      `setThreadPoolSize(threads): expected an integer from 0 (default) to 1024, got ${String(threads)}`,
    );
  }
  return native().setThreadPoolSize(threads);
}

/** The number of worker threads of the shared native pool (or that it will have when created). */
export function threadPoolSize(): number {
  return native().threadPoolSize();
}
