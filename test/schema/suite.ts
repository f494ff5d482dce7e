/**
 * Runs the JSON Schema Test Suite (drafts 2020-12, 2019-09 and 7) against the compiler and the
 * reference recognizer. Shared by the conformance test and `bench/`-style scripts. A schema
 * without `$schema` is compiled under the draft of its folder (the `draft` option), as the
 * suite intends.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { SchemaError } from "../../lib/errors.js";
import { compileJsonSchema, type JsonSchemaOptions } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { numberText } from "../../lib/format/exact-numbers.js";
import { parseJsonText } from "../../lib/format/json-text.js";

/** The suite's folders this repository carries, and the draft each one tests. */
export const DRAFTS = {
  "draft2020-12": "2020-12",
  "draft2019-09": "2019-09",
  draft7: "draft-07",
} as const satisfies Record<string, NonNullable<JsonSchemaOptions["draft"]>>;
export type SuiteDraft = keyof typeof DRAFTS;

/** The folder of one draft's files. */
export function suiteDir(draft: SuiteDraft): string {
  return fileURLToPath(new URL(`../fixtures/json-schema-test-suite/${draft}/`, import.meta.url));
}

export const SUITE_DIR = suiteDir("draft2020-12");

export interface SuiteGroup {
  description: string;
  schema: unknown;
  tests: Array<{ description: string; data: unknown; valid: boolean }>;
}

/** Every suite file (relative path, e.g. `optional/format/date.json`), sorted. */
export function suiteFiles(dir = SUITE_DIR): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".json")) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

/**
 * The groups of one file, read with the package's JSON reader: numbers no double holds keep
 * their written text (exact-numbers.ts), for the schemas and for the instances alike.
 */
export function readSuiteFile(file: string, draft: SuiteDraft = "draft2020-12"): SuiteGroup[] {
  return parseJsonText(readFileSync(join(suiteDir(draft), file), "utf8")) as SuiteGroup[];
}

/** A number's JSON text as read (`container[key]`), or its shortest decimal. */
function numberAt(value: number, container: object | null, key: string | number): string {
  return (container === null ? undefined : numberText(container, key)) ?? JSON.stringify(value);
}

/** JSON text of `container[key]` with `sep` after every `:` and `,` (outside strings), numbers as written. */
function writeJson(value: unknown, container: object | null, key: string | number, sep: string): string {
  if (typeof value === "number") return numberAt(value, container, key);
  if (Array.isArray(value)) return `[${value.map((v, i) => writeJson(v === undefined ? null : v, value, i, sep)).join(`,${sep}`)}]`;
  if (value !== null && typeof value === "object") {
    const parts = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${sep}${writeJson(v, value, k, sep)}`);
    return `{${parts.join(`,${sep}`)}}`;
  }
  return JSON.stringify(value);
}

/** JSON text with one space after every `:` and `,` (outside strings). */
export function spacedJson(value: unknown): string {
  return writeJson(value, null, "", " ");
}

export interface FileResult {
  file: string;
  schemas: number;
  compiled: number;
  refused: number;
  /** Refusal keywords, one per refused schema. */
  refusedKeywords: string[];
  validAccepted: number;
  validTotal: number;
  invalidRejected: number;
  invalidTotal: number;
  /** Human-readable descriptions of every disagreement. */
  failures: string[];
}

/**
 * Compiles each schema of a file (strict) and checks every instance in both serializations.
 * `options.anyOrder` decides the property order; with declared order, valid instances whose
 * members come in another order may be rejected, so `checkValid` is off there.
 */
export function runSuiteFile(file: string, options: JsonSchemaOptions, checkValid: boolean, draft: SuiteDraft = "draft2020-12"): FileResult {
  const groups = readSuiteFile(file, draft);
  options = { draft: DRAFTS[draft], ...options };
  const r: FileResult = { file, schemas: groups.length, compiled: 0, refused: 0, refusedKeywords: [], validAccepted: 0, validTotal: 0, invalidRejected: 0, invalidTotal: 0, failures: [] };
  for (const g of groups) {
    let grammar;
    try {
      grammar = compileJsonSchema(g.schema as never, options).grammar;
    } catch (err) {
      if (err instanceof SchemaError) {
        r.refused++;
        r.refusedKeywords.push(err.keyword ?? "?");
        continue;
      }
      r.failures.push(`${g.description}: compile threw ${(err as Error).stack}`);
      continue;
    }
    r.compiled++;
    for (const t of g.tests) {
      const texts = [writeJson(t.data, t, "data", ""), writeJson(t.data, t, "data", " ")];
      const results = texts.map((x) => isMatch(grammar, x));
      if (t.valid) {
        if (!checkValid) continue;
        r.validTotal++;
        if (results.every(Boolean)) r.validAccepted++;
        else r.failures.push(`${g.description} / ${t.description}: valid instance rejected: ${texts[results.indexOf(false)]}`);
      } else {
        r.invalidTotal++;
        if (!results.some(Boolean)) r.invalidRejected++;
        else r.failures.push(`${g.description} / ${t.description}: INVALID instance accepted: ${texts[results.indexOf(true)]}`);
      }
    }
  }
  return r;
}
