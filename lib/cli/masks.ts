/**
 * `tagmask masks`: walks a text through the engine token by token, as a model would produce it,
 * and prints for each step the token, whether the grammar allowed it, how many tokens the mask
 * allowed and how long the fill took. The tool to reach for when generation gets stuck.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { IrGrammar } from "../compile/ir.js";
import { lowerFormat } from "../compile/lower.js";
import { compileGrammar } from "../engine/compiled-grammar.js";
import { GrammarMatcher } from "../engine/matcher.js";
import { InvalidArgumentError } from "../errors.js";
import type { Format, JsonSchema, StructuralTag } from "../format/types.js";
import { popcount32 } from "../mask/types.js";
import { KIMI_K3_SPECIAL_TOKENS } from "../tokenizer/special-tokens.js";
import { TokenizerInfo } from "../tokenizer/tokenizer-info.js";
import { buildToolCallingFormat, toolCallingFamilies, toolCallingFamily } from "../tools/families.js";
import type { FunctionTool, ReasoningMode } from "../tools/types.js";
import { integerOption, optional, parseArgs, required, UsageError } from "./args.js";
import type { CliCommand, CliIO } from "./command.js";
import { readOptionBytes, readOptionJson, readOptionText } from "./files.js";
import { compileSchemaOption } from "./schema-file.js";
import { readToolsFile, toolChoiceArg } from "./tool-args.js";

const USAGE = [
  "tagmask masks (--format FILE | --schema FILE | --family F --tools FILE [--tool-choice C] [--reasoning M] [--variant V])",
  "              --tokenizer tokenizer.json [--special TOKEN ...] [--vocab-size N] --input FILE [--quiet | --json]",
  "",
  "  --format       a structural tag JSON file",
  "  --schema       a JSON Schema file (the output is one JSON value)",
  "  --family       a model family (" + toolCallingFamilies().join(", ") + ") with --tools (a JSON list of",
  "                 OpenAI-style tools, or an object with a \"tools\" list) and --tool-choice (auto (default),",
  "                 required, none, a tool name or a tool_choice object as JSON text); the family's markers",
  "                 are added to the vocabulary as special tokens (where the tokenizer lacks them) standing for their text;",
  "                 --reasoning and --variant as for tagmask outline",
  "  --tokenizer    a Hugging Face tokenizer.json",
  "  --special      a special token to add (repeatable), e.g. --special '<|open|>'",
  "  --vocab-size   the model's vocabulary size when larger than the tokenizer's",
  "  --input        the output text to walk",
  "  --quiet        print the totals only",
  "  --json         print one JSON object: the steps (token id and text, allowed, tokens the mask allowed,",
  "                 fill µs), whether every token was allowed, where the walk stopped, the totals",
  "",
  "Prints one line per step: the step, the token, `ok` or `REJECTED`, the tokens the mask allowed",
  "before it, and the fill time; then the totals. Special tokens written in the text become their",
  "ids. Exit code 0 when every token was allowed, 1 when one was rejected (the walk stops there and",
  "shows some allowed tokens), 2 for bad arguments.",
].join("\n");

/** The grammar of the one source given, and the special tokens it implies. */
function grammarFrom(args: ReturnType<typeof parseArgs>): { grammar: IrGrammar; specials: string[]; textSpecials?: string[] } {
  const sources = ["format", "schema", "family"].filter((k) => args.values.has(k));
  if (sources.length !== 1) {
    throw new UsageError(sources.length === 0 ? "give one of --format, --schema or --family" : `give only one of --format, --schema or --family (got ${sources.map((s) => `--${s}`).join(", ")})`);
  }
  if (sources[0] !== "family" && (args.values.has("tools") || args.values.has("tool-choice"))) {
    throw new UsageError("--tools and --tool-choice go with --family");
  }
  switch (sources[0]) {
    case "format":
      return { grammar: lowerFormat(readOptionJson(optional(args, "format")!, "--format") as StructuralTag | Format), specials: [] };
    case "schema":
      return { grammar: compileSchemaOption(readOptionJson(optional(args, "schema")!, "--schema") as JsonSchema).grammar, specials: [] };
    default: {
      const family = optional(args, "family")!;
      const tools = readToolsFile(required(args, "tools", "FILE (a JSON list of tools)")) as FunctionTool[];
      const reasoning = optional(args, "reasoning");
      const variant = optional(args, "variant");
      const tag = buildToolCallingFormat({
        family, tools, tool_choice: toolChoiceArg(optional(args, "tool-choice")),
        ...(reasoning === undefined ? {} : { reasoning: reasoning as ReasoningMode }),
        ...(variant === undefined ? {} : { variant }),
      });
      if (tag === null) throw new InvalidArgumentError(`--family ${family}: this request constrains nothing (no grammar to walk)`);
      const f = toolCallingFamily(family);
      return { grammar: lowerFormat(tag), specials: family === "kimi-k3" ? [...KIMI_K3_SPECIAL_TOKENS] : [...f.markers, ...f.stops], textSpecials: [...f.markers] };
    }
  }
}

interface Encoder {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
}

/**
 * The tokenizer.json's own encoder (the transformers.js port the test vocabularies ship with),
 * or null when that package is not installed.
 */
async function loadEncoder(path: string): Promise<Encoder | null> {
  let loader: { fromPreTrained(params: { tokenizerJSON: unknown; tokenizerConfig: unknown }): Encoder };
  try {
    ({ TokenizerLoader: loader } = (await import("@lenml/tokenizers" as string)) as { TokenizerLoader: typeof loader });
  } catch {
    return null;
  }
  const configPath = join(dirname(path), "tokenizer_config.json");
  const config = existsSync(configPath) ? JSON.parse(readFileSync(configPath, "utf8")) : { tokenizer_class: "PreTrainedTokenizerFast" };
  return loader.fromPreTrained({ tokenizerJSON: JSON.parse(readFileSync(path, "utf8")), tokenizerConfig: config });
}

/** Greedy longest-match tokenization over the vocabulary: a stand-in when no encoder is available. */
function greedyTokens(info: TokenizerInfo, bytes: Uint8Array): number[] {
  const byFirst = new Map<number, number[]>();
  for (let id = 0; id < info.tokenCount; id++) {
    const t = info.tokenBytes(id);
    if (t.length === 0 || info.kind(id) === 2) continue;
    const list = byFirst.get(t[0]!) ?? [];
    list.push(id);
    byFirst.set(t[0]!, list);
  }
  const out: number[] = [];
  for (let at = 0; at < bytes.length;) {
    let best = -1;
    let bestLen = 0;
    for (const id of byFirst.get(bytes[at]!) ?? []) {
      const t = info.tokenBytes(id);
      if (t.length <= bestLen || at + t.length > bytes.length) continue;
      let k = 0;
      while (k < t.length && t[k] === bytes[at + k]) k++;
      if (k === t.length) {
        best = id;
        bestLen = t.length;
      }
    }
    if (best < 0) throw new InvalidArgumentError(`--input: byte ${at} (0x${bytes[at]!.toString(16)}) starts no token of the vocabulary`);
    out.push(best);
    at += bestLen;
  }
  return out;
}

async function tokenize(info: TokenizerInfo, path: string, text: string, specials: string[], io: CliIO): Promise<number[]> {
  const encoder = await loadEncoder(path);
  if (!encoder) io.stderr.write("tagmask masks: note: @lenml/tokenizers is not installed; tokenizing by longest match instead of the model's own tokenization\n");
  const ids: number[] = [];
  const pattern = specials.length === 0 ? null : new RegExp(`(${specials.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`);
  for (const part of pattern ? text.split(pattern) : [text]) {
    if (part === "") continue;
    const special = specials.includes(part) ? info.tokenId(part) : undefined;
    if (special !== undefined) ids.push(special);
    else if (encoder) ids.push(...encoder.encode(part, { add_special_tokens: false }));
    else ids.push(...greedyTokens(info, new TextEncoder().encode(part)));
  }
  return ids;
}

function countBits(mask: Int32Array): number {
  return mask.reduce((n, word) => n + popcount32(word), 0);
}

function showToken(info: TokenizerInfo, id: number): string {
  return id < info.tokenCount ? JSON.stringify(info.tokenText(id)) : `#${id}`;
}

async function run(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, {
    format: { type: "string" },
    schema: { type: "string" },
    family: { type: "string" },
    tools: { type: "string" },
    "tool-choice": { type: "string" },
    reasoning: { type: "string" },
    variant: { type: "string" },
    tokenizer: { type: "string" },
    special: { type: "string", multiple: true },
    "vocab-size": { type: "string" },
    input: { type: "string" },
    quiet: { type: "boolean" },
    json: { type: "boolean" },
  });
  if (args.flags.has("quiet") && args.flags.has("json")) throw new UsageError("--quiet and --json exclude each other");
  const tokenizerPath = required(args, "tokenizer", "FILE (a tokenizer.json)");
  const inputPath = required(args, "input", "FILE (the text to walk)");
  const vocabSize = integerOption(args, "vocab-size", undefined, 1);
  const { grammar, specials: familySpecials, textSpecials } = grammarFrom(args);
  const specials = [...new Set([...familySpecials, ...(args.values.get("special") ?? [])])];
  // Read here, with the checks every option file gets (a regular file, size-capped).
  const tokenizerBytes = readOptionBytes(tokenizerPath, "--tokenizer");
  const info = TokenizerInfo.fromTokenizerJson(tokenizerBytes, {
    addedTokens: specials,
    ...(textSpecials === undefined ? {} : { textSpecialTokens: textSpecials }),
    ...(vocabSize === undefined ? {} : { vocabSize }),
  });
  const text = readOptionText(inputPath, "--input");
  const tokens = await tokenize(info, tokenizerPath, text, specials, io);

  const t0 = performance.now();
  const compiled = compileGrammar(info, grammar);
  const compileMs = performance.now() - t0;
  const matcher = new GrammarMatcher(compiled);
  const mask = new Int32Array(Math.ceil(info.vocabSize / 32));
  const quiet = args.flags.has("quiet");
  const json = args.flags.has("json");
  const steps: { step: number; token: number; text: string | null; allowed: boolean; maskAllowed: number; fillMicros: number }[] = [];
  let rejectedAt = -1;
  const allowedHere: number[] = [];
  for (let step = 0; step < tokens.length; step++) {
    const id = tokens[step]!;
    const f0 = performance.now();
    matcher.fillNextTokenBitmask(mask);
    const us = (performance.now() - f0) * 1000;
    const allowed = matcher.acceptToken(id);
    const record = { step, token: id, text: id < info.tokenCount ? info.tokenText(id) : null, allowed, maskAllowed: countBits(mask), fillMicros: us };
    steps.push(record);
    if (!json && (!quiet || !allowed)) {
      io.stdout.write(`${String(step).padStart(5)}  ${showToken(info, id).padEnd(28)} ${allowed ? "ok      " : "REJECTED"}  ${String(record.maskAllowed).padStart(6)} allowed  ${us.toFixed(2)} µs\n`);
    }
    if (!allowed) {
      rejectedAt = step;
      for (let t = 0; t < info.vocabSize && allowedHere.length < 12; t++) if ((mask[t >>> 5]! >>> (t & 31)) & 1) allowedHere.push(t);
      if (!json) io.stdout.write(`       the grammar allowed here: ${allowedHere.map((t) => showToken(info, t)).join(", ")}${record.maskAllowed > allowedHere.length ? ", …" : ""}\n`);
      break;
    }
  }
  const sorted = steps.map((s) => s.fillMicros).sort((a, b) => a - b);
  const median = sorted.length === 0 ? 0 : sorted[sorted.length >> 1]!;
  const max = sorted.length === 0 ? 0 : sorted[sorted.length - 1]!;
  const stats = compiled.stats();
  const accepted = rejectedAt < 0 ? tokens.length : rejectedAt;
  if (json) {
    io.stdout.write(`${JSON.stringify({
      allAllowed: rejectedAt < 0, accepted, tokens: tokens.length, rejectedAt: rejectedAt < 0 ? null : rejectedAt,
      canTerminate: rejectedAt < 0 ? matcher.canTerminate() : null, allowedAtRejection: rejectedAt < 0 ? null : allowedHere.map((t) => ({ token: t, text: t < info.tokenCount ? info.tokenText(t) : null })),
      fill: { medianMicros: median, maxMicros: max },
      compile: { ms: compileMs, states: stats.states, distinctMasks: stats.distinctMasks, keptRules: stats.keptRules },
      steps,
    })}\n`);
    return rejectedAt < 0 ? 0 : 1;
  }
  io.stdout.write(
    `\n${accepted} of ${tokens.length} tokens allowed; ` +
      `${rejectedAt < 0 ? (matcher.canTerminate() ? "the grammar can end here" : "the grammar cannot end here yet") : `token ${rejectedAt} was rejected`}\n` +
      `fill: median ${median.toFixed(2)} µs, max ${max.toFixed(2)} µs over ${steps.length} steps\n` +
      `compile: ${compileMs.toFixed(1)} ms (${stats.states} states, ${stats.distinctMasks} distinct masks, rules kept as calls: ${stats.keptRules.join(", ")})\n`,
  );
  return rejectedAt < 0 ? 0 : 1;
}

export const command: CliCommand = {
  summary: "walk a text through the engine token by token: allowed or not, mask size, fill time",
  usage: USAGE,
  run,
};
