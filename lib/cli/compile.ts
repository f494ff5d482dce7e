/**
 * `tagmask compile --schema FILE`: compiles a JSON Schema to the grammar IR and prints the
 * grammar's size and the compile time, or the refusal (keyword and schema path) with exit code 2.
 */
import type { JsonSchemaOptions } from "../compile/json-schema/index.js";
import { printGrammar, serializeGrammar, type IrExpr, type IrGrammar } from "../compile/ir.js";
import { SchemaError } from "../errors.js";
import type { JsonSchema } from "../format/types.js";
import { optional, parseArgs, required, UsageError } from "./args.js";
import type { CliCommand } from "./command.js";
import { readOptionJson } from "./files.js";
import { compileSchemaOption } from "./schema-file.js";

const USAGE = [
  "tagmask compile --schema FILE [--lenient] [--any-order] [--compact | --max-whitespace N] [--formats assert|ignore] [--print] [--json]",
  "",
  "  --schema          a JSON Schema file",
  "  --lenient         compile keywords that cannot be enforced anyway (listed on stderr)",
  "  --any-order       object members in any order (default: declared order)",
  "  --compact         no whitespace between tokens",
  "  --max-whitespace  at most N whitespace characters between tokens",
  "  --formats         'assert' (default) checks the enforced formats; 'ignore' treats format as an annotation",
  "  --print           print the grammar (one rule per line)",
  "  --json            print the figures as JSON",
  "",
  "Prints the grammar's size (rules, IR nodes, serialized bytes) and the compile time. A schema the",
  "compiler refuses prints the keyword and its schema path, exit code 2.",
].join("\n");

function countNodes(grammar: IrGrammar): number {
  const seen = new Set<IrExpr>();
  const visit = (e: IrExpr): void => {
    if (seen.has(e)) return;
    seen.add(e);
    if (e.kind === "seq" || e.kind === "choice") e.items.forEach(visit);
    else if (e.kind === "repeat") visit(e.item);
  };
  for (const r of grammar.rules) visit(r.body);
  return seen.size;
}

function readSchema(file: string): JsonSchema {
  // The same reader as every other command: depth-limited, strict UTF-8, regular files only.
  return readOptionJson(file, "--schema") as JsonSchema;
}

export const command: CliCommand = {
  summary: "compile a JSON Schema to a grammar: size and compile time, or the refusal",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, {
      schema: { type: "string" },
      lenient: { type: "boolean" },
      "any-order": { type: "boolean" },
      compact: { type: "boolean" },
      "max-whitespace": { type: "string" },
      formats: { type: "string" },
      print: { type: "boolean" },
      json: { type: "boolean" },
    });
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
    const file = required(args, "schema", "FILE");
    const options: JsonSchemaOptions = { lenient: args.flags.has("lenient"), anyOrder: args.flags.has("any-order") };
    if (args.flags.has("compact")) options.whitespace = "compact";
    const mw = optional(args, "max-whitespace");
    if (mw !== undefined) {
      if (!/^(0|[1-9][0-9]*)$/.test(mw)) throw new UsageError(`--max-whitespace expects a non-negative integer, got ${JSON.stringify(mw)}`);
      if (options.whitespace === "compact") throw new UsageError("--compact and --max-whitespace exclude each other");
      options.maxWhitespace = Number(mw);
    }
    const formats = optional(args, "formats");
    if (formats !== undefined) {
      if (formats !== "assert" && formats !== "ignore") throw new UsageError(`--formats expects assert or ignore, got ${JSON.stringify(formats)}`);
      options.formats = formats;
    }
    const schema = readSchema(file);
    const t0 = performance.now();
    let result;
    try {
      result = compileSchemaOption(schema, options);
    } catch (err) {
      if (!(err instanceof SchemaError)) throw err;
      if (args.flags.has("json")) io.stdout.write(`${JSON.stringify({ refused: true, keyword: err.keyword ?? null, schemaPath: err.schemaPath, message: err.message })}\n`);
      io.stderr.write(`tagmask compile: refused: keyword ${err.keyword ?? "(none)"} at ${err.schemaPath}: ${err.message}\n`);
      return 2;
    }
    const bytes = serializeGrammar(result.grammar);
    const ms = performance.now() - t0;
    for (const u of result.unenforced) io.stderr.write(`tagmask compile: warning: not enforced: keyword ${u.keyword} at ${u.schemaPath}: ${u.reason}\n`);
    const figures = { rules: result.grammar.rules.length, nodes: countNodes(result.grammar), bytes: bytes.length, compileMs: Math.round(ms * 100) / 100, unenforced: result.unenforced };
    if (args.flags.has("json")) io.stdout.write(`${JSON.stringify(figures)}\n`);
    else io.stdout.write(`compiled ${file}: ${figures.rules} rules, ${figures.nodes} IR nodes, ${figures.bytes} bytes serialized, ${figures.compileMs} ms\n`);
    if (args.flags.has("print")) io.stdout.write(printGrammar(result.grammar));
    return 0;
  },
};
