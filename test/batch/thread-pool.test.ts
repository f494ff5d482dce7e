import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../lib/errors.js";
import { setThreadPoolSize, threadPoolSize } from "../../lib/engine/batch-pool.js";
import { Worker } from "node:worker_threads";
import { addonCandidates } from "../../lib/native.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

function findCompiler(): string {
  for (const cxx of [process.env.CXX, "c++", "g++", "clang++"]) {
    if (!cxx) continue;
    const res = spawnSync(cxx, ["--version"], { stdio: "ignore" });
    if (!res.error && res.status === 0) return cxx;
  }
  throw new Error("no C++ compiler found (set CXX): the native addon needs one too");
}

describe("native thread pool (C++ test program)", () => {
  const dir = mkdtempSync(join(tmpdir(), "tagmask-pool-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("passes every case of test/batch/native/thread_pool_test.cpp", () => {
    const exe = join(dir, "thread_pool_test");
    const build = spawnSync(
      findCompiler(),
      [
        "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread",
        // Sanitizer flags when `npm run test:asan` / `test:tsan` runs this (scripts/test-sanitized.mjs).
        ...(process.env.TAGMASK_TEST_CXXFLAGS ?? "").split(" ").filter(Boolean),
        "-I", join(root, "native", "include"),
        join(root, "test", "batch", "native", "thread_pool_test.cpp"),
        join(root, "native", "core", "thread_pool.cpp"),
        join(root, "native", "core", "error.cpp"),
        "-o", exe,
      ],
      // The compiler itself need not run under a preloaded sanitizer runtime.
      { encoding: "utf8", env: { ...process.env, LD_PRELOAD: "" } },
    );
    expect(build.stderr, "compile errors").toBe("");
    expect(build.status).toBe(0);
    const run = spawnSync(exe, [], { encoding: "utf8", timeout: 60_000 });
    const lines = run.stdout.trim().split("\n");
    expect(lines.filter((l) => l.startsWith("FAIL"))).toEqual([]);
    expect(lines.filter((l) => l.startsWith("ok")).length).toBe(11);
    expect(run.status).toBe(0);
  });
});

describe("thread pool size from JS", () => {
  afterAll(() => setThreadPoolSize(0));

  it("resizes and restores the default", () => {
    expect(setThreadPoolSize(3)).toBe(3);
    expect(threadPoolSize()).toBe(3);
    const byDefault = setThreadPoolSize(0);
    expect(byDefault).toBeGreaterThanOrEqual(1);
    expect(threadPoolSize()).toBe(byDefault);
  });

  it.each([-1, 1.5, Number.NaN, 1025, Infinity])("rejects %s with InvalidArgumentError", (bad) => {
    expect(() => setThreadPoolSize(bad)).toThrow(InvalidArgumentError);
    expect(() => setThreadPoolSize(bad)).toThrow(/integer from 0 \(default\) to 1024/);
  });

  it("honours TAGMASK_THREADS for the default size, in a fresh process", () => {
    const addon = addonCandidates().find((c) => existsSync(c));
    const script = `process.stdout.write(String(require(${JSON.stringify(addon)}).threadPoolSize()))`;
    const res = spawnSync(process.execPath, ["-e", script], {
      env: { ...process.env, TAGMASK_THREADS: "5" },
      encoding: "utf8",
    });
    expect(res.stderr).toBe("");
    expect(res.stdout).toBe("5");
    expect(res.status).toBe(0);
  });

  it("survives a worker thread that loaded the addon and exited", async () => {
    const addon = addonCandidates().find((c) => existsSync(c));
    const worker = new Worker(
      `const a = require(${JSON.stringify(addon)}); a.setThreadPoolSize(2); require("worker_threads").parentPort.postMessage(a.threadPoolSize());`,
      { eval: true },
    );
    // Listen for the exit before anything is awaited: it may follow the message immediately.
    const exited = new Promise((res) => worker.once("exit", res));
    const seen = await new Promise<number>((res, rej) => {
      worker.once("message", res);
      worker.once("error", rej);
    });
    await exited;
    expect(seen).toBe(2);
    // The main environment still uses the addon: the pool is alive and resizable.
    expect(threadPoolSize()).toBe(2);
    expect(setThreadPoolSize(1)).toBe(1);
  });
});
