/**
 * Shared setup of the engine benchmarks: the Llama 3 vocabulary with the Kimi K3 markers, the
 * seed grammars and their outputs tokenized like a model would produce them, a JSON schema with a
 * 1 KB string value, and @mlc-ai/web-xgrammar loaded as the peer with equivalent grammars.
 */
import type { IrGrammar } from "../lib/compile/ir.js";
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import { lowerFormat } from "../lib/compile/lower.js";
import { structuralTagToJSON } from "../lib/format/index.js";
import type { JsonSchema, StructuralTag } from "../lib/format/types.js";
import type { TokenizerInfo } from "../lib/tokenizer/tokenizer-info.js";
import { buildToolCallingFormat, KIMI_K3_MARKERS, KIMI_K3_STOP, type ToolChoice } from "../lib/tools/index.js";
import { seedTools } from "../test/helpers/seeds.js";
import { loadTestVocabulary, tokenizerJsonPath } from "../test/helpers/vocab.js";
import { readTokenList } from "../test/helpers/web-xgrammar.js";

export { loadWebXgrammar, type XgrCompiler } from "../test/helpers/web-xgrammar.js";

/** The Llama 3 vocabulary plus the Kimi K3 markers (special tokens). */
export function loadVocabulary(): TokenizerInfo {
  return loadTestVocabulary("llama3", { kimiMarkers: true });
}

/** Llama 3's token strings and stop ids, for the peer's TokenizerInfo. */
export function peerTokenList(): { tokens: string[]; stops: number[] } {
  const { tokens, added } = readTokenList(tokenizerJsonPath("llama3"));
  // The K3 markers as extra tokens after the last id, written with the byte-level space map
  // they do not need (they hold no spaces).
  tokens.push(...KIMI_K3_MARKERS);
  const stops = [added.find((t) => t.content === "<|eot_id|>")!.id, tokens.indexOf(KIMI_K3_STOP)];
  return { tokens, stops };
}

/**
 * The Kimi K3 structural tag of the seed tools for a tool_choice. `open` adds
 * `additionalProperties: true` to the tools' parameters (argument objects may carry undeclared
 * members; as written, declared parameters close them).
 */
export function seedTag(choice: ToolChoice, open = false): StructuralTag {
  const tools = seedTools();
  if (open) for (const t of tools) Object.assign(t.function.parameters ?? {}, { additionalProperties: true });
  const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: choice });
  if (!tag) throw new Error("no format");
  return tag;
}

export function seedGrammar(choice: ToolChoice, open = false): IrGrammar {
  return lowerFormat(seedTag(choice, open));
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
