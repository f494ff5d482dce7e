/**
 * `tagmask match`: checks text against a structural tag, a JSON Schema, a regex or an EBNF
 * grammar with the reference recognizer, and says where it stops matching.
 */
import { ebnfToIr } from "../compile/ebnf/index.js";
import { GrammarBuilder, type IrGrammar } from "../compile/ir.js";
import { lowerFormat } from "../compile/lower.js";
import { Recognizer } from "../compile/recognizer.js";
import { regexToIr } from "../compile/regex/index.js";
import type { Format, JsonSchema, StructuralTag } from "../format/types.js";
import { optional, parseArgs, UsageError } from "./args.js";
import type { CliCommand, CliIO } from "./command.js";
import { readOptionBytes, readOptionJson, readOptionText } from "./files.js";
import { compileSchemaOption } from "./schema-file.js";

const USAGE = [
  "tagmask match (--format FILE | --schema FILE | --regex PATTERN | --ebnf FILE) [--prefix] [--lenient] [--input FILE]",
  "",
  "  --format   a structural tag JSON file ({\"type\": \"structural_tag\", \"format\": ...}, or a bare format)",
  "  --schema   a JSON Schema file (one JSON value, no surrounding whitespace)",
  "  --regex    an ECMAScript regular expression (the whole text must match)",
  "  --ebnf     an EBNF/GBNF grammar file whose start rule is `root`",
  "  --prefix   a viable but incomplete text also succeeds (exit 0)",
  "  --lenient  with --schema: compile keywords that cannot be enforced anyway (listed on stderr)",
  "  --input    read the text from FILE instead of stdin",
  "",
  "Prints `match`, `prefix` (the text can still become a match) or `no match at byte N` (N: the",
  "0-based offset of the first byte no match can continue with). Exit code 0 for a match (or a",
  "prefix with --prefix), 1 otherwise, 2 for bad arguments or a bad grammar.",
].join("\n");

async function readStdin(stdin: NodeJS.ReadableStream): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** The grammar named by the one source option given. */
function grammarFrom(args: ReturnType<typeof parseArgs>, io: CliIO): IrGrammar {
  const sources = ["format", "schema", "regex", "ebnf"].filter((k) => args.values.has(k));
  if (sources.length !== 1) {
    throw new UsageError(sources.length === 0
      ? "give one of --format, --schema, --regex or --ebnf"
      : `give only one of --format, --schema, --regex or --ebnf (got ${sources.map((s) => `--${s}`).join(", ")})`);
  }
  if (args.flags.has("lenient") && sources[0] !== "schema") throw new UsageError("--lenient applies to --schema only");
  const value = optional(args, sources[0]!)!;
  switch (sources[0]) {
    case "format":
      return lowerFormat(readOptionJson(value, "--format") as StructuralTag | Format);
    case "schema": {
      const { grammar, unenforced } = compileSchemaOption(readOptionJson(value, "--schema") as JsonSchema, { lenient: args.flags.has("lenient") });
      for (const u of unenforced) io.stderr.write(`tagmask match: warning: not enforced: ${JSON.stringify(u)}\n`);
      return grammar;
    }
    case "regex":
      return { rules: [{ name: "root", body: regexToIr(value) }], root: 0 };
    default: {
      const b = new GrammarBuilder();
      // ebnfToIr refuses a grammar without `root` and returns a reference to it.
      const start = ebnfToIr(readOptionText(value, "--ebnf"), b);
      return { ...b.build("root"), root: start.rule };
    }
  }
}

export const command: CliCommand = {
  summary: "check text against a structural tag, JSON Schema, regex or EBNF grammar",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, {
      format: { type: "string" },
      schema: { type: "string" },
      regex: { type: "string" },
      ebnf: { type: "string" },
      input: { type: "string" },
      prefix: { type: "boolean" },
      lenient: { type: "boolean" },
    });
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
    const grammar = grammarFrom(args, io);
    const inputFile = optional(args, "input");
    const bytes = inputFile === undefined ? await readStdin(io.stdin) : readOptionBytes(inputFile, "--input");
    const r = new Recognizer(grammar);
    let state = r.initial();
    if (!r.viable(state)) {
      io.stdout.write("no match at byte 0\n");
      return 1;
    }
    for (let i = 0; i < bytes.length; i++) {
      const next = r.step(state, bytes[i]!);
      if (next === null) {
        io.stdout.write(`no match at byte ${i}\n`);
        return 1;
      }
      state = next;
    }
    if (r.accepts(state)) {
      io.stdout.write("match\n");
      return 0;
    }
    io.stdout.write("prefix\n");
    return args.flags.has("prefix") ? 0 : 1;
  },
};
