/**
 * Running the `tagmask` command in tests: in process through the dispatcher (every option and
 * error path, fast), or as a real process from dist/lib/cli.js (exit codes, bytes on stdout),
 * and a scratch folder for the files the commands read.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll } from "vitest";
import { main } from "../../lib/cli.js";
import { packageRoot } from "../../lib/package-root.js";

/** What an in-process run returned and printed. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `tagmask ...argv` in process; stdin holds `input` and is ended. */
export async function runCli(argv: string[], input: string | Uint8Array = ""): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  stdin.end(input);
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const code = await main(argv, { stdout, stderr, stdin });
  return { code, stdout: out, stderr: err };
}

const root = packageRoot();
const cli = join(root, "dist", "lib", "cli.js");

/** The newest modification time of the `.ts` files under `dir`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Compiles the package (tsc -p tsconfig.json) when dist/lib/cli.js is missing or older than a
 * source under lib/; for a beforeAll of the process tests (allow it a few minutes).
 */
export function ensureBuiltCli(): void {
  if (existsSync(cli) && statSync(cli).mtimeMs >= newestSource(join(root, "lib"))) return;
  // tsc still writes dist/ when unrelated files have type errors; only its exit code says so.
  spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "tsconfig.json")], { stdio: "ignore" });
}

/** What a process run exited with and printed. */
export interface CliProcessResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/lib/cli.js ...argv` with `input` on stdin (see {@link ensureBuiltCli}). */
export function runCliProcess(argv: string[], input: string | Uint8Array = ""): CliProcessResult {
  const r = spawnSync(process.execPath, [cli, ...argv], { input, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A scratch folder, removed after the test file, and a writer of files into it. */
export interface Scratch {
  dir: string;
  /** Writes `content` to `name` in the folder and returns its path. */
  file(name: string, content: string | Uint8Array): string;
}

/** A new scratch folder `tagmask-PREFIX-…` in the system's temporary folder. */
export function scratchDir(prefix: string): Scratch {
  const dir = mkdtempSync(join(tmpdir(), `tagmask-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    file(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
  };
}
