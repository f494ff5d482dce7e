/**
 * examples/: every example type-checks (examples/tsconfig.json, strict; it imports the package by
 * its own name, `tagmask`) and runs to the output it promises, on the real Llama 3 vocabulary and
 * the tiny model with node-llama-cpp.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureTinyModel } from "../../lib/integrations/node-llama-cpp/tiny-model.js";
import { packageRoot } from "../../lib/package-root.js";
import { ensureBuiltCli } from "../helpers/cli.js";

const root = packageRoot();
const examples = readdirSync(join(root, "examples")).filter((f) => f.endsWith(".ts")).map((f) => f.replace(/\.ts$/, ""));
let tsc: { status: number | null; stdout: string };

beforeAll(() => {
  ensureBuiltCli();
  ensureTinyModel();
  const res = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "examples", "tsconfig.json"), "--pretty", "false"], { encoding: "utf8" });
  tsc = { status: res.status, stdout: res.stdout };
}, 300_000);

function run(name: string): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, [join(root, "dist", "examples", `${name}.js`)], { encoding: "utf8", timeout: 240_000 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** What each example must print. */
const EXPECTED: Record<string, RegExp[]> = {
  "tool-calling": [/^route (sampler-arrays|bias-object|gbnf), \d+ tokens, stopped by (stop-token|grammar-end)$/m, /^call (get_weather|set_alarm) \{"/m],
  "custom-sampler": [/^generated: .*<\|open\|>call tool="set_alarm" index="\d+"<\|sep\|>/m, /^call set_alarm \{"hour":\d+,"repeat":(true|false)\}$/m],
  "json-schema": [/^output \(\d+ tokens, stopped by (grammar-end|stop-token)\): \{/m, /^city ".*", [1-7] day\(s\), (metric|imperial)$/m],
  "batch-masks": [...Array.from({ length: 8 }, (_, row) => new RegExp(`^row ${row}: \\{"answer":"(yes|no|maybe)","confidence":.+\\} → (yes|no|maybe) \\(\\d+\\)$`, "m"))],
  "stream-parse": [/^call #\d+ get_weather opens$/m, /^call #\d+ get_weather done: \{"location":/m, /^\d+ events; the generation stopped by (stop-token|grammar-end) after \d+ tokens$/m],
};

describe("examples/", () => {
  it("every example is listed here and type-checks", () => {
    expect(examples.sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(tsc.stdout).toBe("");
    expect(tsc.status).toBe(0);
  });

  it.each(Object.keys(EXPECTED))("%s runs", (name) => {
    const r = run(name);
    // The tiny model's end-of-message token draws one llama.cpp note where node-llama-cpp logs at its default level.
    expect(r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("[node-llama-cpp] load: special_eos_id is not in special_eog_ids"))).toEqual([]);
    expect(r.status).toBe(0);
    for (const pattern of EXPECTED[name]!) expect(r.stdout).toMatch(pattern);
  });
});
