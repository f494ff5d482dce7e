/**
 * The JSON Schema Test Suite (drafts 2020-12, 2019-09 and 7, with optional/ and
 * optional/format/): every schema is compiled strictly under its folder's draft; when it
 * compiles, every valid instance (JSON.stringify and with spaces after `:` and `,`) must match
 * and every invalid one must not. Refused schemas are counted per file against the committed
 * baselines (test/fixtures/schema/test-suite-baseline*.json), which may only improve.
 * `UPDATE_BASELINE=1` rewrites them.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DRAFTS, runSuiteFile, suiteDir, suiteFiles, type FileResult, type SuiteDraft } from "./suite.js";

/** The baseline of one draft (2020-12 keeps the original file name). */
const baselineFile = (draft: SuiteDraft): string =>
  fileURLToPath(new URL(`../fixtures/schema/test-suite-baseline${draft === "draft2020-12" ? "" : `-${draft}`}.json`, import.meta.url));

type Baseline = Record<string, { compiled: number; refused: number }>;

/**
 * format.json tests each draft's default (format only annotates); optional/format/ tests format
 * as an assertion, the compiler's default. Each file runs under the mode it specifies.
 */
const formatMode = (file: string): "assert" | "ignore" => (file === "format.json" ? "ignore" : "assert");

/**
 * Files not run, with the reason: they test optional behaviour the compiler does not choose.
 * Listed under each draft's table.
 */
const NOT_RUN: Record<string, string> = {
  "draft7/optional/content.json":
    "contentMediaType / contentEncoding are annotations (asserting them is optional in draft-07; 2019-09 and later never assert them)",
};

for (const draft of Object.keys(DRAFTS) as SuiteDraft[]) {
const baseline = existsSync(baselineFile(draft)) ? (JSON.parse(readFileSync(baselineFile(draft), "utf8")) as Baseline) : {};
const results: FileResult[] = [];

describe(`JSON Schema Test Suite ${draft}, any property order (exact: valid accepted, invalid rejected)`, () => {
  for (const file of suiteFiles(suiteDir(draft)).filter((f) => NOT_RUN[`${draft}/${f}`] === undefined)) {
    it(file, () => {
      const r = runSuiteFile(file, { anyOrder: true, formats: formatMode(file) }, true, draft);
      results.push(r);
      expect(r.failures).toEqual([]);
      const base = baseline[file];
      if (base && !process.env.UPDATE_BASELINE) {
        // Refusals may only go down.
        expect({ file, compiled: r.compiled >= base.compiled ? "ok" : `${r.compiled} < baseline ${base.compiled}` }).toEqual({ file, compiled: "ok" });
      }
    });
  }
});

describe(`JSON Schema Test Suite ${draft}, declared property order (sound: invalid rejected)`, () => {
  for (const file of suiteFiles(suiteDir(draft)).filter((f) => NOT_RUN[`${draft}/${f}`] === undefined)) {
    it(file, () => {
      const r = runSuiteFile(file, { formats: formatMode(file) }, false, draft);
      expect(r.failures).toEqual([]);
    });
  }
});

afterAll(() => {
  if (results.length === 0) return;
  results.sort((a, b) => (a.file < b.file ? -1 : 1));
  const pad = (s: string | number, n: number): string => String(s).padStart(n);
  const lines = [
    `${"file".padEnd(44)} ${pad("schemas", 7)} ${pad("compiled", 8)} ${pad("refused", 7)} ${pad("valid ok", 11)} ${pad("invalid ok", 11)}  refused keywords`,
  ];
  const total = { schemas: 0, compiled: 0, refused: 0, va: 0, vt: 0, ir: 0, it: 0 };
  for (const r of results) {
    total.schemas += r.schemas;
    total.compiled += r.compiled;
    total.refused += r.refused;
    total.va += r.validAccepted;
    total.vt += r.validTotal;
    total.ir += r.invalidRejected;
    total.it += r.invalidTotal;
    const kw = [...new Set(r.refusedKeywords)].join(",");
    lines.push(
      `${r.file.padEnd(44)} ${pad(r.schemas, 7)} ${pad(r.compiled, 8)} ${pad(r.refused, 7)} ${pad(`${r.validAccepted}/${r.validTotal}`, 11)} ${pad(`${r.invalidRejected}/${r.invalidTotal}`, 11)}  ${kw}`,
    );
  }
  lines.push(
    `${"TOTAL".padEnd(44)} ${pad(total.schemas, 7)} ${pad(total.compiled, 8)} ${pad(total.refused, 7)} ${pad(`${total.va}/${total.vt}`, 11)} ${pad(`${total.ir}/${total.it}`, 11)}`,
  );
  for (const [k, why] of Object.entries(NOT_RUN)) if (k.startsWith(`${draft}/`)) lines.push(`${k.slice(draft.length + 1).padEnd(44)} not run: ${why}`);
  process.stdout.write(`\n${draft}\n${lines.join("\n")}\n`);
  if (process.env.UPDATE_BASELINE) {
    const out: Baseline = {};
    for (const r of results) out[r.file] = { compiled: r.compiled, refused: r.refused };
    writeFileSync(baselineFile(draft), `${JSON.stringify(out, null, 2)}\n`);
  }
});
}
