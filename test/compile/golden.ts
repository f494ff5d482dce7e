/**
 * Golden-file comparison for the compile tests: `expectGolden(name, text)` compares with
 * test/fixtures/compile/golden/NAME; with UPDATE_GOLDEN=1 in the environment it writes the file
 * instead (review the diff before committing).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const goldenDir = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "compile", "golden");

export function expectGolden(name: string, actual: string): void {
  const file = join(goldenDir, name);
  if (process.env.UPDATE_GOLDEN === "1") {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file)) throw new Error(`golden file ${name} is missing: run with UPDATE_GOLDEN=1 and review it`);
  expect(actual).toBe(readFileSync(file, "utf8"));
}
