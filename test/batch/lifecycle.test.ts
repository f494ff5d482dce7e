/**
 * Lifetimes around asynchronous batch operations: a worker thread terminated while its batch
 * fill runs, a process that exits with one in flight, and one that simply ends (the pending
 * fill keeps it alive until settled). None may crash or hang.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serializeGrammar } from "../../lib/compile/ir.js";
import { BatchMatcher } from "../../lib/engine/batch.js";
import { addonCandidates } from "../../lib/native.js";
import { midGenerationMatchers, seedSetup, type SeedSetup } from "./fixtures.js";

let setup: SeedSetup;
let addon: string;
const dir = mkdtempSync(join(tmpdir(), "tagmask-batch-life-"));
beforeAll(() => {
  setup = seedSetup();
  addon = addonCandidates().find((c) => existsSync(c))!;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Plain JS run in another environment: builds the seed grammar's matchers from the raw addon
// and keeps asynchronous fills of 1024 rows going.
const body = `
  const tok = addon.createTokenizerInfo(data.vocab);
  const grammar = addon.compileGrammar(tok, data.ir);
  const matchers = [];
  for (let i = 0; i < 1024; i++) matchers.push(addon.createMatcher(grammar));
  const batch = new addon.BatchMatcher(matchers, {});
  const again = () => batch.fillAsync().then(again);
  again();
`;

describe("asynchronous batches and environment teardown", () => {
  it("a worker thread terminated during a batch fill", async () => {
    const worker = new Worker(
      `const { workerData: data, parentPort } = require("node:worker_threads");
       const addon = require(data.addon);
       ${body}
       parentPort.postMessage("started");`,
      { eval: true, workerData: { addon, vocab: setup.vocab.data, ir: serializeGrammar(setup.grammar) } },
    );
    await new Promise<void>((resolve, reject) => {
      worker.once("message", () => resolve());
      worker.once("error", reject);
    });
    await new Promise((r) => setTimeout(r, 5));
    const code = await worker.terminate();
    expect(code).toBe(1); // terminated, not crashed
    // This environment is unaffected.
    const { matchers } = midGenerationMatchers(setup, 8);
    const { errors } = await new BatchMatcher(matchers).fillNextTokenBitmasksAsync();
    expect(errors).toEqual([]);
  });

  // The pool thread may be anywhere in a job when the worker goes away: before the fill, inside
  // it, settling it. Under ASan (npm run test:asan) a job touching freed memory is a report.
  it.each([0, 1, 2, 4, 8])("a worker thread terminated %i ms into a batch fill", async (delay) => {
    const worker = new Worker(
      `const { workerData: data, parentPort } = require("node:worker_threads");
       const addon = require(data.addon);
       ${body}
       parentPort.postMessage("started");`,
      { eval: true, workerData: { addon, vocab: setup.vocab.data, ir: serializeGrammar(setup.grammar) } },
    );
    await new Promise<void>((resolve, reject) => {
      worker.once("message", () => resolve());
      worker.once("error", reject);
    });
    await new Promise((r) => setTimeout(r, delay));
    expect(await worker.terminate()).toBe(1);
  });

  const encode = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");
  function childScript(ending: string): string {
    const file = join(dir, "data.json");
    const v = setup.vocab.data;
    writeFileSync(file, JSON.stringify({
      vocabSize: v.vocabSize, bytes: encode(v.bytes), offsets: encode(v.offsets), kinds: encode(v.kinds),
      stopTokenIds: encode(v.stopTokenIds), ir: encode(serializeGrammar(setup.grammar)),
    }));
    return `
      const raw = JSON.parse(require("node:fs").readFileSync(${JSON.stringify(file)}, "utf8"));
      const buf = (s) => { const b = Buffer.from(s, "base64"); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength); };
      const data = {
        vocab: { vocabSize: raw.vocabSize, bytes: new Uint8Array(buf(raw.bytes)), offsets: new Uint32Array(buf(raw.offsets)),
                 kinds: new Uint8Array(buf(raw.kinds)), stopTokenIds: new Uint32Array(buf(raw.stopTokenIds)) },
        ir: new Uint8Array(buf(raw.ir)),
      };
      const addon = require(${JSON.stringify(addon)});
      ${ending}`;
  }

  it("process.exit() while a batch fill is in flight", () => {
    const res = spawnSync(process.execPath, ["-e", childScript(`${body}; process.stdout.write("exiting"); process.exit(0);`)], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(res.stderr).toBe("");
    expect(res.stdout).toBe("exiting");
    expect(res.status).toBe(0);
  });

  it("a pending fill keeps the process alive until it settles, then it exits", () => {
    const res = spawnSync(
      process.execPath,
      ["-e", childScript(`
        const tok = addon.createTokenizerInfo(data.vocab);
        const grammar = addon.compileGrammar(tok, data.ir);
        const matchers = [];
        for (let i = 0; i < 256; i++) matchers.push(addon.createMatcher(grammar));
        const batch = new addon.BatchMatcher(matchers, {});
        batch.fillAsync().then((r) => process.stdout.write("settled " + r.errors.length));`)],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(res.stderr).toBe("");
    expect(res.stdout).toBe("settled 0");
    expect(res.status).toBe(0);
  });
});
