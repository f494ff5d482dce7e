/**
 * JSON Schema compile coverage on JSONSchemaBench (../shared/data/jsonschemabench): per set, how
 * many schemas compile in strict mode, the refusal reasons ranked, and compile time p50 / p99.
 * Used by json-schema-coverage.bench.ts; docs/json-schema.md quotes its output.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileJsonSchema, type JsonSchemaOptions } from "../lib/compile/json-schema/index.js";
import { serializeGrammar } from "../lib/compile/ir.js";
import { SchemaError } from "../lib/errors.js";

/** The folder of JSONSchemaBench, found from the source tree or from dist/. */
export function benchDir(): string | null {
  for (const rel of ["../../shared/data/jsonschemabench/", "../../../shared/data/jsonschemabench/"]) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) return p;
  }
  return null;
}

export interface SetResult {
  set: string;
  total: number;
  compiled: number;
  refused: number;
  /** Schemas that are not valid JSON at all. */
  unreadable: number;
  /** keyword → count of refused schemas. */
  reasons: Map<string, number>;
  /** One example message per keyword. */
  examples: Map<string, string>;
  /** Compile times of compiled schemas, milliseconds, sorted. */
  timesMs: number[];
  /** Serialized grammar sizes in bytes of compiled schemas. */
  sizes: number[];
  /** Unexpected errors (bugs), file: message. */
  errors: string[];
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** Compiles every schema of one set. */
export function runSet(dir: string, set: string, options: JsonSchemaOptions = {}): SetResult {
  const r: SetResult = { set, total: 0, compiled: 0, refused: 0, unreadable: 0, reasons: new Map(), examples: new Map(), timesMs: [], sizes: [], errors: [] };
  const folder = join(dir, set);
  for (const file of readdirSync(folder).filter((f) => f.endsWith(".json")).sort()) {
    r.total++;
    let schema: unknown;
    try {
      schema = JSON.parse(readFileSync(join(folder, file), "utf8"));
    } catch {
      r.unreadable++;
      continue;
    }
    const t0 = performance.now();
    try {
      const { grammar } = compileJsonSchema(schema as never, options);
      const bytes = serializeGrammar(grammar);
      r.timesMs.push(performance.now() - t0);
      r.sizes.push(bytes.length);
      r.compiled++;
    } catch (err) {
      if (err instanceof SchemaError) {
        r.refused++;
        const k = err.keyword ?? "(none)";
        r.reasons.set(k, (r.reasons.get(k) ?? 0) + 1);
        if (!r.examples.has(k)) r.examples.set(k, `${set}/${file}: ${err.message}`);
      } else {
        r.errors.push(`${set}/${file}: ${(err as Error).stack ?? String(err)}`);
      }
    }
  }
  r.timesMs.sort((a, b) => a - b);
  r.sizes.sort((a, b) => a - b);
  return r;
}

export const SETS = ["Glaiveai2K", "Github_easy", "Github_medium", "Snowplow"];

/** A markdown report of the results. */
export function report(results: SetResult[]): string {
  const lines: string[] = [];
  lines.push("| set | schemas | compiled (strict) | rate | refused | not JSON | compile p50 ms | compile p99 ms | grammar p50 bytes |");
  lines.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    const readable = r.total - r.unreadable;
    lines.push(
      `| ${r.set} | ${r.total} | ${r.compiled} | ${((100 * r.compiled) / readable).toFixed(1)}% | ${r.refused} | ${r.unreadable} | ${percentile(r.timesMs, 50).toFixed(2)} | ${percentile(r.timesMs, 99).toFixed(2)} | ${percentile(r.sizes, 50)} |`,
    );
  }
  const all = new Map<string, number>();
  const examples = new Map<string, string>();
  for (const r of results) {
    for (const [k, n] of r.reasons) all.set(k, (all.get(k) ?? 0) + n);
    for (const [k, e] of r.examples) if (!examples.has(k)) examples.set(k, e);
  }
  lines.push("", "Refusals by keyword (all sets):", "", "| keyword | schemas | example |", "|---|---:|---|");
  for (const [k, n] of [...all].sort((a, b) => b[1] - a[1])) lines.push(`| \`${k}\` | ${n} | ${(examples.get(k) ?? "").replace(/\|/g, "\\|").slice(0, 200)} |`);
  return lines.join("\n");
}
