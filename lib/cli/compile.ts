/**
 * `tagmask compile --schema FILE`: compiles a JSON Schema to the grammar IR and prints the
 * grammar's size and the compile time, or the refusal (keyword and schema path) with exit code 2.
 */
import type { Dialect, JsonSchemaOptions } from "../compile/json-schema/index.js";
import { DIALECTS } from "../compile/json-schema/resolve.js";
import { printGrammar, serializeGrammar, type IrExpr, type IrGrammar } from "../compile/ir.js";
import { SchemaError } from "../errors.js";
import type { JsonSchema } from "../format/types.js";
import { choiceOption, integerOption, parseArgs, required, UsageError } from "./args.js";
import type { CliCommand } from "./command.js";
import { readOptionJson } from "./files.js";
import { compileSchemaOption } from "./schema-file.js";

const USAGE = [
  "tagmask compile --schema FILE [--lenient] [--any-order] [--compact | --max-whitespace N] [--formats assert|ignore|openapi] [--draft D] [--print] [--json]",
  "",
  "  --schema          a JSON Schema file",
  "  --lenient         compile keywords that cannot be enforced anyway (listed on stderr)",
  "  --any-order       object members in any order (default: declared order)",
  "  --compact         no whitespace between tokens",
  "  --max-whitespace  at most N whitespace characters between tokens",
  "  --formats         'assert' (default) checks the enforced formats; 'ignore' treats format as an annotation;",
  "                    'openapi' also checks OpenAPI's int32 / int64 ranges",
  "  --draft           the draft of a schema without $schema: 2020-12 (default), 2019-09, draft-07, draft-06, draft-04",
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
  // The same reader as every other command: the package's JSON reader (depth-limited; it keeps
  // the written text of numbers no double holds, for exact bounds), strict UTF-8, regular files.
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
      draft: { type: "string" },
      print: { type: "boolean" },
      json: { type: "boolean" },
    });
    const file = required(args, "schema", "FILE");
    const options: JsonSchemaOptions = { lenient: args.flags.has("lenient"), anyOrder: args.flags.has("any-order") };
    if (args.flags.has("compact")) options.whitespace = "compact";
    const mw = integerOption(args, "max-whitespace", undefined, 0);
    if (mw !== undefined) {
      if (options.whitespace === "compact") throw new UsageError("--compact and --max-whitespace exclude each other");
      options.maxWhitespace = mw;
    }
    if (args.values.has("formats")) options.formats = choiceOption(args, "formats", ["assert", "ignore", "openapi"] as const, "assert");
    if (args.values.has("draft")) options.draft = choiceOption(args, "draft", DIALECTS as readonly Dialect[], "2020-12" as Dialect);
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
