/**
 * Running a reproduction in its own Node process: a crash there (a signal, a sanitizer report,
 * an abort) is seen as such instead of taking the test runner down. Scripts import the package
 * from dist/ (see ensureBuiltCli) and inherit the environment, so under `npm run test:asan`
 * they run on the sanitized addon with the sanitizer runtime preloaded.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot } from "../../lib/package-root.js";

/** The file URL of a module of the built package, e.g. `dist("engine/batch.js")`. */
export function dist(module: string): string {
  return pathToFileURL(join(packageRoot(), "dist", "lib", module)).href;
}

/** The path of the built CLI. */
export const CLI = join(packageRoot(), "dist", "lib", "cli.js");

export interface ChildResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `node ...args` (killed after `timeoutMs`) and collects what it printed. */
export function runNode(args: readonly string[], options: { timeoutMs?: number; execArgv?: readonly string[] } = {}): Promise<ChildResult> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.execArgv ?? []), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, ms: performance.now() - t0 });
    });
  });
}

/** Runs an ES module given as text in a new Node process. */
export function runScript(source: string, options: { timeoutMs?: number; execArgv?: readonly string[] } = {}): Promise<ChildResult> {
  return runNode(["--input-type=module", "-e", source], options);
}

/** What a sanitizer writes when it finds something (AddressSanitizer, UBSan, TSan, LeakSanitizer). */
export const SANITIZER_REPORT = /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|WARNING: ThreadSanitizer/;

/** Runs `tasks` with at most `limit` at a time; results in order. */
export async function inBatches<T>(tasks: ReadonlyArray<() => Promise<T>>, limit = 2): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
