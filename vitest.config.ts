import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The native addon and large vocabularies are shared per worker; keep workers few on
    // small CI machines.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"], exclude: ["test/**/*.gc.test.ts"] } },
      // Tests that force garbage collections (gc()) from getters run with --expose-gc.
      { extends: true, test: { name: "gc", include: ["test/**/*.gc.test.ts"], execArgv: ["--expose-gc"] } },
    ],
  },
});
