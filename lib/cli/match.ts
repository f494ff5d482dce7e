/**
 * `tagmask match`: checks text against a structural tag, a JSON Schema, a regex or an EBNF
 * grammar with the reference recognizer, and says where it stops matching. With `--tokens` the
 * input is a list of tokens instead (ids, or texts of a vocabulary), for grammars with
 * token-level formats: each token is taken through its bytes or, as a whole, by a token node.
 */
import { ebnfToIr } from "../compile/ebnf/index.js";
import { GrammarBuilder, type IrGrammar } from "../compile/ir.js";
import { lowerFormat } from "../compile/lower.js";
import { Recognizer, type RecognizerState, type TokenUniverse } from "../compile/recognizer.js";
import { regexToIr } from "../compile/regex/index.js";
import { parseJsonText } from "../format/json-text.js";
import { TokenizerInfo } from "../tokenizer/tokenizer-info.js";
import { tokenUniverse } from "../tokenizer/token-universe.js";
import { TokenKind } from "../tokenizer/vocabulary.js";
import type { Format, JsonSchema, StructuralTag } from "../format/types.js";
import { choiceOption, optional, parseArgs, UsageError } from "./args.js";
import type { CliCommand, CliIO } from "./command.js";
import { readOptionBytes, readOptionJson, readOptionText, readStdinBytes } from "./files.js";
import { compileSchemaOption } from "./schema-file.js";

const USAGE = [
  "tagmask match (--format FILE | --schema FILE | --regex PATTERN | --ebnf FILE) [--prefix] [--lenient] [--undeclared forbid|allow] [--input FILE] [--json]",
  "              [--tokens (--vocab FILE | --tokenizer FILE)]",
  "",
  "  --format   a structural tag JSON file ({\"type\": \"structural_tag\", \"format\": ...}, or a bare format)",
  "  --schema   a JSON Schema file (one JSON value, no surrounding whitespace)",
  "  --regex    an ECMAScript regular expression (the whole text must match)",
  "  --ebnf     an EBNF/GBNF grammar file whose start rule is `root`",
  "  --prefix   a viable but incomplete text also succeeds (exit 0)",
  "  --lenient  with --schema: compile keywords that cannot be enforced anyway (listed on stderr)",
  "  --undeclared forbid|allow  object members and array items a schema does not declare",
  "             (no additionalProperties / items): refused as xgrammar's structural tags do",
  "             (\"forbid\", the default with --format) or allowed as JSON Schema says",
  "             (\"allow\", the default with --schema)",
  "  --input    read the text from FILE instead of stdin",
  "  --tokens   the input is a JSON list of tokens: a number is a token id; a string is the token",
  "             with exactly that text when the vocabulary has one, otherwise plain text",
  "  --vocab    with --tokens: the vocabulary as a JSON list of token texts (ids by position;",
  "             stop tokens such as \"</s>\" detected by name)",
  "  --tokenizer  with --tokens: the vocabulary of a Hugging Face tokenizer.json",
  "  --json     print {\"result\": \"match\"|\"prefix\"|\"no match\", \"offset\": N|null, \"bytes\": N} instead",
  "             (with --tokens: \"token\": N|null, the index in the list, instead of \"offset\")",
  "",
  "Prints `match`, `prefix` (the text can still become a match) or `no match at byte N` (N: the",
  "0-based offset of the first byte no match can continue with; with --tokens `no match at token",
  "N`, the index in the list). Exit code 0 for a match (or a prefix with --prefix), 1 otherwise,",
  "2 for bad arguments or a bad grammar.",
].join("\n");

/** How far `bytes` get through the grammar: a match, a viable prefix, or the offset of the first byte no match continues with. */
function matchBytes(r: Recognizer, bytes: Uint8Array): { result: "match" | "prefix" | "no match"; offset: number | null } {
  let state = r.initial();
  if (!r.viable(state)) return { result: "no match", offset: 0 };
  for (let i = 0; i < bytes.length; i++) {
    const next = r.step(state, bytes[i]!);
    if (next === null) return { result: "no match", offset: i };
    state = next;
  }
  return r.accepts(state) ? { result: "match", offset: null } : { result: "prefix", offset: null };
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
  if (args.values.has("undeclared") && sources[0] !== "schema" && sources[0] !== "format") throw new UsageError("--undeclared applies to --format and --schema only");
  const value = optional(args, sources[0]!)!;
  switch (sources[0]) {
    case "format": {
      const undeclared = choiceOption(args, "undeclared", ["forbid", "allow"] as const, "forbid");
      return lowerFormat(readOptionJson(value, "--format") as StructuralTag | Format, { undeclared });
    }
    case "schema": {
      const undeclared = choiceOption(args, "undeclared", ["allow", "forbid"] as const, "allow");
      const { grammar, unenforced } = compileSchemaOption(readOptionJson(value, "--schema") as JsonSchema, { lenient: args.flags.has("lenient"), undeclared });
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

/** The vocabulary of --vocab or --tokenizer. */
function vocabularyFrom(args: ReturnType<typeof parseArgs>): TokenizerInfo {
  const vocabFile = optional(args, "vocab");
  const tokenizerFile = optional(args, "tokenizer");
  if ((vocabFile === undefined) === (tokenizerFile === undefined)) throw new UsageError("--tokens needs one vocabulary: --vocab FILE (a JSON list of token texts) or --tokenizer tokenizer.json");
  if (tokenizerFile !== undefined) return TokenizerInfo.fromTokenizerJson(tokenizerFile);
  const list = readOptionJson(vocabFile!, "--vocab");
  if (!Array.isArray(list) || !list.every((t) => typeof t === "string")) throw new UsageError("--vocab: expected a JSON list of token texts");
  return TokenizerInfo.fromTokens(list as string[], { vocabType: "raw" });
}

/** One item of a --tokens input: a token id, or text (bytes only). */
type TokenItem = { id: number } | { text: Uint8Array };

function tokenItems(bytes: Uint8Array, vocab: TokenizerInfo, universe: TokenUniverse): TokenItem[] {
  let list: unknown;
  try {
    list = parseJsonText(new TextDecoder().decode(bytes));
  } catch (err) {
    throw new UsageError(`--tokens: the input is not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(list)) throw new UsageError("--tokens: expected the input to be a JSON list of token ids and texts");
  return list.map((item: unknown, i): TokenItem => {
    if (typeof item === "number") {
      if (!Number.isInteger(item) || item < 0 || item >= vocab.vocabSize) throw new UsageError(`--tokens: item ${i}: ${item} is not a token id of the vocabulary (0..${vocab.vocabSize - 1})`);
      return { id: item };
    }
    if (typeof item !== "string") throw new UsageError(`--tokens: item ${i}: expected a token id or a string, found ${JSON.stringify(item)}`);
    try {
      return { id: universe.resolve(item) };
    } catch {
      return { text: new TextEncoder().encode(item) };
    }
  });
}

/** Steps --tokens items; returns the index of the first item no match can continue with, or -1. */
function walkTokens(r: Recognizer, items: TokenItem[], vocab: TokenizerInfo, states: RecognizerState[]): { stop: number; states: RecognizerState[] } {
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const next: RecognizerState[] = [];
    const add = (s: RecognizerState | null) => {
      if (s !== null && !next.includes(s)) next.push(s);
    };
    if ("id" in item && vocab.isStopToken(item.id)) {
      // A stop token ends the output: it fits where the output may end, and nothing may follow.
      if (i !== items.length - 1 || !states.some((s) => r.accepts(s))) return { stop: i, states };
      return { stop: -1, states: states.filter((s) => r.accepts(s)) };
    }
    for (const s of states) {
      if ("text" in item) add(r.stepBytes(s, item.text));
      else {
        if (vocab.kind(item.id) !== TokenKind.Control) add(r.stepBytes(s, vocab.tokenBytes(item.id)));
        if (r.hasTokenNodes) add(r.stepToken(s, item.id));
      }
    }
    if (next.length === 0) return { stop: i, states };
    states = next;
  }
  return { stop: -1, states };
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
      undeclared: { type: "string" },
      tokens: { type: "boolean" },
      vocab: { type: "string" },
      tokenizer: { type: "string" },
      json: { type: "boolean" },
    });
    const tokenMode = args.flags.has("tokens");
    if (!tokenMode && (args.values.has("vocab") || args.values.has("tokenizer"))) throw new UsageError("--vocab and --tokenizer go with --tokens");
    const grammar = grammarFrom(args, io);
    const inputFile = optional(args, "input");
    const bytes = inputFile === undefined ? await readStdinBytes(io.stdin) : readOptionBytes(inputFile, "--input");
    const json = args.flags.has("json");
    const exitCode = (result: "match" | "prefix" | "no match"): number =>
      result === "match" || (result === "prefix" && args.flags.has("prefix")) ? 0 : 1;
    if (tokenMode) {
      const vocab = vocabularyFrom(args);
      const universe = tokenUniverse(vocab);
      const r = new Recognizer(grammar, { tokens: universe });
      const { stop, states } = walkTokens(r, tokenItems(bytes, vocab, universe), vocab, [r.initial()]);
      const result = stop >= 0 ? "no match" : states.some((s) => r.accepts(s)) ? "match" : "prefix";
      if (json) io.stdout.write(`${JSON.stringify({ result, token: stop >= 0 ? stop : null })}\n`);
      else io.stdout.write(result === "no match" ? `no match at token ${stop}\n` : `${result}\n`);
      return exitCode(result);
    }
    const r = new Recognizer(grammar);
    if (r.hasTokenNodes) io.stderr.write("tagmask match: note: the grammar has token-level formats, which text cannot reach; give the input as tokens with --tokens and --vocab or --tokenizer\n");
    const { result, offset } = matchBytes(r, bytes);
    if (json) io.stdout.write(`${JSON.stringify({ result, offset, bytes: bytes.length })}\n`);
    else io.stdout.write(result === "no match" ? `no match at byte ${offset}\n` : `${result}\n`);
    return exitCode(result);
  },
};
