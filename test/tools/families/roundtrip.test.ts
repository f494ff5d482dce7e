/**
 * Round trip with the engine: for every family (and mistral variant), a few requests of
 * cases.ts compiled against a real vocabulary (Qwen3's for the Qwen families, Llama 3's with the
 * family's markers as special tokens for the others), seeded random generations from the
 * engine's masks (walk.ts); every completed output parses with the family's parser, its calls
 * validate against the tools' schemas with ajv and respect the tool choice, and the streaming
 * parser reports the same events however the output is cut.
 */
import { describe, expect, it } from "vitest";
import { lowerFormat } from "../../../lib/compile/lower.js";
import { compileGrammar } from "../../../lib/engine/compiled-grammar.js";
import { buildToolCallingFormat, createToolOutputParser, parseToolOutput, toolCallingFamily } from "../../../lib/tools/families.js";
import type { ToolOutputEvent, ToolOutputParserOptions } from "../../../lib/tools/types.js";
import { parserOptionsOf } from "../../../lib/integrations/node-llama-cpp/constrained-llama.js";
import { rng } from "../../helpers/random.js";
import { loadFamilyVocabulary } from "../../helpers/vocab.js";
import { FAMILY_VARIANTS, familyCases } from "./cases.js";
import { problems } from "./check.js";
import { generate, idsOf } from "./walk.js";

const GENERATIONS = 3;

/** Texts that end values, calls and sections in some family. */
const ENDINGS = [
  "</parameter>", "</\uff5cDSML\uff5cparameter>", "</arg_value>", "</cofl:value>", "<|close|>argument<|sep|>",
  "</function>\n</tool_call>", "</tool_call>", "</\uff5cDSML\uff5cinvoke>\n", "</invoke>\n", "</cofl:tool_call>",
  "</minimax:tool_call>", "</cofl:tool_calls>", "</\uff5cDSML\uff5cfunction_calls>", "</\uff5cDSML\uff5ctool_calls>",
  "</think>", "<|END_THINKING|>", "[/THINK]", "<|end|><|start|>assistant", "\n```<\uff5ctool\u2581call\u2581end\uff5c>",
  "<\uff5ctool\u2581call\u2581end\uff5c>", "<\uff5ctool\u2581calls\u2581end\uff5c>", "<|tool_call_end|>", "<|tool_calls_section_end|>", "]",
];
const BUDGET = 48;

/** The cases walked per family: one per tool_choice, reasoning modes spread over them. */
function walkedCases(family: string, variant: string | undefined) {
  const all = familyCases(family, variant);
  const pick = (prefix: string) => all.filter((c) => c.name.startsWith(prefix));
  const byMode = (list: typeof all, i: number) => list[Math.min(i, list.length - 1)]!;
  return [
    byMode(pick("choice-auto."), 0),
    byMode(pick("choice-required."), 2 * (pick("choice-required.").length > 2 ? 1 : 0)),
    byMode(pick("choice-named."), pick("choice-named.").length - 1),
    all.find((c) => c.name.startsWith("answer.auto"))!,
  ];
}

function events(family: string, text: string, options: ToolOutputParserOptions, cuts: number[]): ToolOutputEvent[] {
  const parser = createToolOutputParser(family, options);
  const out: ToolOutputEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    out.push(...parser.push(text.slice(from, cut)));
    from = cut;
  }
  out.push(...parser.end());
  return out;
}

describe.each(FAMILY_VARIANTS)("$label round trip with the engine", ({ family, variant }) => {
  const f = toolCallingFamily(family);
  const base = family.startsWith("qwen3") || family === "hermes" ? "qwen3" : "llama3";
  it.each(walkedCases(family, variant).map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const info = loadFamilyVocabulary(family === "hermes" ? "llama3" : base, f.markers, f.stops);
    const grammar = lowerFormat(buildToolCallingFormat(c.request)!);
    const compiled = compileGrammar(info, grammar);
    const prefer = {
      closers: idsOf(info, ['"', "}", "]", '"}', "}}", "\"]"]),
      markers: idsOf(info, [...f.markers, "<", "</", "[", ">", "\n"]),
      literals: idsOf(info, ["0", "1", "7", "true", "null", "a", " "]),
      other: idsOf(info, [",", ":", "{", "[", "=", "\""]),
      endings: ENDINGS,
    };
    const options = parserOptionsOf(c.request);
    const random = rng(1000 + c.name.length * 31 + family.length);
    const failures: string[] = [];
    let done = 0;
    for (let g = 0; g < GENERATIONS; g++) {
      const out = generate(compiled, info, random, prefer, BUDGET);
      if (out === null) continue;
      done++;
      let parsed;
      try {
        parsed = parseToolOutput(family, out.text, options);
      } catch (err) {
        failures.push(`${JSON.stringify(out.text)}: ${(err as Error).message}`);
        continue;
      }
      for (const p of problems(parsed, c.request)) failures.push(`${JSON.stringify(out.text)}: ${p}`);
      const whole = events(family, out.text, options, []);
      for (const cut of [Math.floor(out.text.length / 3), Math.floor((2 * out.text.length) / 3)]) {
        expect(events(family, out.text, options, [cut])).toEqual(whole);
      }
    }
    expect(failures).toEqual([]);
    expect(done).toBeGreaterThan(0);
  });
});
