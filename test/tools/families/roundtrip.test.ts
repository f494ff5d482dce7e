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
import { COHERE, FLAT_STYLES } from "../../../lib/compile/styles/index.js";
import type { Format } from "../../../lib/format/types.js";
import { compileGrammar } from "../../../lib/engine/compiled-grammar.js";
import { buildToolCallingFormat, createToolOutputParser, parseToolOutput, toolCallingFamily } from "../../../lib/tools/families.js";
import type { ToolOutputEvent, ToolOutputParserOptions } from "../../../lib/tools/types.js";
import { parserOptionsOf } from "../../../lib/integrations/node-llama-cpp/constrained-llama.js";
import { rng } from "../../helpers/random.js";
import { loadFamilyVocabulary } from "../../helpers/vocab.js";
import { FAMILY_VARIANTS, familyCases } from "./cases.js";
import { problems } from "./check.js";
import { generate, idsOf } from "./walk.js";

const GENERATIONS = 2;

/** The fixed texts of a structural tag (tag begins and ends, literals, separators, argument-style markers): what opens and closes its parts. */
function structureTexts(format: Format, out: Set<string> = new Set()): Set<string> {
  const add = (t: string) => {
    if (t !== "") out.add(t);
  };
  switch (format.type) {
    case "const_string":
      add(format.value);
      break;
    case "tag":
      if (typeof format.begin === "string") add(format.begin);
      for (const e of typeof format.end === "string" ? [format.end] : Array.isArray(format.end) ? format.end : []) add(e);
      structureTexts(format.content, out);
      break;
    case "sequence":
    case "or":
      format.elements.forEach((e, i) => {
        structureTexts(e, out);
        // A literal and the tag after it (DeepSeek's blank line before its block) as one text.
        const next = format.elements[i + 1];
        if (format.type === "sequence" && e.type === "const_string" && next?.type === "tag" && typeof next.begin === "string") add(e.value + next.begin);
      });
      break;
    case "optional":
    case "star":
    case "plus":
    case "repeat":
      structureTexts(format.content, out);
      break;
    case "tags_with_separator":
      add(format.separator);
      for (const t of format.tags) structureTexts(t, out);
      break;
    case "triggered_tags":
      for (const t of format.tags) structureTexts(t, out);
      break;
    case "json_schema": {
      const style = format.style ?? "json";
      if (style in FLAT_STYLES) {
        const st = FLAT_STYLES[style as keyof typeof FLAT_STYLES];
        add(st.close);
        add(st.valueOpen.replace(/\n/g, ""));
      } else if (style === "cohere_xml") {
        add(COHERE.close);
      }
      break;
    }
    default:
      break;
  }
  return out;
}
const BUDGET = 48;

/** The cases walked per family: auto, required (reasoning modes spread over them) and an answer constraint; named tools run end to end and in the goldens. */
function walkedCases(family: string, variant: string | undefined) {
  const all = familyCases(family, variant);
  const pick = (prefix: string) => all.filter((c) => c.name.startsWith(prefix));
  const byMode = (list: typeof all, i: number) => list[Math.min(i, list.length - 1)]!;
  return [
    byMode(pick("choice-auto."), 0),
    byMode(pick("choice-required."), 2 * (pick("choice-required.").length > 2 ? 1 : 0)),
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
    const tag = buildToolCallingFormat(c.request)!;
    const grammar = lowerFormat(tag);
    const compiled = compileGrammar(info, grammar);
    const prefer = {
      closers: idsOf(info, ['"', "}", "]", '"}', "}}", "\"]"]),
      markers: idsOf(info, [...f.markers, "<", "</", "[", ">", "\n"]),
      literals: idsOf(info, ["0", "1", "7", "true", "null", "a", " "]),
      other: idsOf(info, [",", ":", "{", "[", "=", "\""]),
      endings: [...structureTexts(tag.format), ...f.markers],
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
