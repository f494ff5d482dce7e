/**
 * Generated instances: for a sample of compiled schemas (the JSON Schema Test Suite and
 * JSONSchemaBench), random strings of the grammar (random walks with the reference recognizer)
 * must be JSON that ajv accepts. ajv checks numbers after JSON.parse (the compiler accepts a
 * numeral only if it satisfies by decimal value and by double), `multipleOf` exactly by decimal
 * value (exact-ajv.ts); formats are left to the test-suite test (ajv has no format validators
 * without ajv-formats).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { SchemaError } from "../../lib/errors.js";
import { exactAjv, parseInstance } from "./exact-ajv.js";
import { randomWalk, rng } from "./random-walk.js";
import { readSuiteFile, suiteFiles } from "./suite.js";

/** A deterministic, bounded workload that a loaded 2-core machine can take minutes over. */
const HEAVY_TIMEOUT_MS = 300_000;

const BENCH = fileURLToPath(new URL("../../../shared/data/jsonschemabench/", import.meta.url));
const decoder = new TextDecoder("utf-8", { fatal: true });
const WALKS = 3;

function validator(schema: unknown, draft: "2020" | "07"): ((x: unknown) => boolean) & { errors?: unknown } {
  return exactAjv(draft).compile(schema);
}

interface Sample {
  name: string;
  schema: unknown;
  draft: "2020" | "07";
}

function suiteSamples(): Sample[] {
  const out: Sample[] = [];
  for (const file of suiteFiles()) {
    // Formats are not checked by ajv here; refRemote needs documents ajv does not have.
    if (file.includes("format") || file.startsWith("refRemote") || file.includes("dynamicRef") || file.includes("vocabulary")) continue;
    readSuiteFile(file).forEach((g, i) => out.push({ name: `${file}#${i} ${g.description}`, schema: g.schema, draft: "2020" }));
  }
  return out;
}

function benchSamples(): Sample[] {
  if (!existsSync(BENCH)) return [];
  const out: Sample[] = [];
  for (const [set, count] of [["Glaiveai2K", 80], ["Github_easy", 80], ["Github_medium", 60]] as const) {
    const files = readdirSync(join(BENCH, set)).sort();
    // An even spread over the set.
    for (let k = 0; k < count; k++) {
      const f = files[Math.floor((k * files.length) / count)]!;
      const schema = JSON.parse(readFileSync(join(BENCH, set, f), "utf8")) as Record<string, unknown>;
      const declared = typeof schema.$schema === "string" ? schema.$schema : "";
      if (declared.includes("draft-04") || declared.includes("draft-03")) continue; // ajv here speaks 2020-12 and draft-07
      out.push({ name: `${set}/${f}`, schema, draft: declared.includes("2020-12") || declared.includes("2019-09") ? "2020" : "07" });
    }
  }
  return out;
}

function check(sample: Sample, seed: number): { walks: number; skipped?: string } {
  let grammar;
  try {
    grammar = compileJsonSchema(sample.schema as never).grammar;
  } catch (err) {
    if (err instanceof SchemaError) return { walks: 0, skipped: "refused" };
    throw err;
  }
  let validate;
  try {
    validate = validator(sample.schema, sample.draft);
  } catch (err) {
    return { walks: 0, skipped: `ajv cannot compile it: ${(err as Error).message}` };
  }
  const random = rng(seed);
  let walks = 0;
  for (let i = 0; i < WALKS; i++) {
    const bytes = randomWalk(grammar, random);
    if (bytes === null) continue;
    walks++;
    const text = decoder.decode(bytes);
    let value: unknown;
    try {
      value = parseInstance(text);
    } catch {
      throw new Error(`${sample.name}: generated text is not JSON: ${text}`);
    }
    if (!validate(value)) {
      throw new Error(`${sample.name}: generated instance rejected by ajv: ${text}\n${JSON.stringify(validate.errors)}`);
    }
  }
  return { walks };
}

describe("random strings of compiled grammars validate with ajv", () => {
  it("JSON Schema Test Suite schemas", () => {
    let walks = 0;
    let schemas = 0;
    suiteSamples().forEach((s, i) => {
      const r = check(s, 1000 + i);
      if (r.walks > 0) schemas++;
      walks += r.walks;
    });
    process.stdout.write(`test suite: ${walks} generated instances from ${schemas} schemas, all valid\n`);
    expect(schemas).toBeGreaterThan(250);
  }, HEAVY_TIMEOUT_MS);
  it.skipIf(!existsSync(BENCH))("JSONSchemaBench sample (skipped when ../shared/data/jsonschemabench is absent)", () => {
    let walks = 0;
    let schemas = 0;
    const skipped = new Map<string, number>();
    const samples = benchSamples();
    samples.forEach((s, i) => {
      const r = check(s, 5000 + i);
      if (r.walks > 0) schemas++;
      if (r.skipped) skipped.set(r.skipped.slice(0, 60), (skipped.get(r.skipped.slice(0, 60)) ?? 0) + 1);
      walks += r.walks;
    });
    process.stdout.write(`JSONSchemaBench: ${walks} generated instances from ${schemas} of ${samples.length} sampled schemas, all valid; skipped: ${JSON.stringify([...skipped])}\n`);
    expect(schemas).toBeGreaterThan(120);
  }, HEAVY_TIMEOUT_MS);
});
