/**
 * Our serialized structural tags are xgrammar's wire form: @mlc-ai/web-xgrammar (xgrammar 0.1.27
 * compiled to WebAssembly) compiles them. It knows only part of the format set (no optional /
 * star / plus / repeat, no lists of ends, no any_text options), so the corpus here stays inside
 * that part. A misspelled type is the control that shows xgrammar does check.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as f from "../../lib/format/build.js";
import { stringifyStructuralTag } from "../../lib/format/serialize.js";
import type { StructuralTag } from "../../lib/format/types.js";
import { loadWebXgrammar, type XgrCompiler } from "../helpers/web-xgrammar.js";

const call = (name: string, schema: Record<string, unknown>) => f.tag(`<function=${name}>`, f.jsonSchema(schema), "</function>");
const weather = call("get_weather", { type: "object", properties: { city: { type: "string" } }, required: ["city"] });
const time = call("get_time", { type: "object", properties: { tz: { enum: ["utc", "local"] } } });

const inXgrammarSubset: Array<[string, StructuralTag]> = [
  ["const_string, regex, grammar, or, sequence", f.structuralTag(f.sequence(f.constString("Answer: "), f.or(f.regex("(yes|no)"), f.grammar('root ::= "maybe"'))))],
  ["triggered_tags", f.structuralTag(f.triggeredTags(["<function="], [weather, time], { at_least_one: true, stop_after_first: false }))],
  ["tags_with_separator", f.structuralTag(f.tagsWithSeparator([weather, time], "\n", { at_least_one: true }))],
  // xgrammar refuses an unbounded any_text that is followed by more output, so it ends a tag here.
  ["any_text in a tag, tags inside a tag", f.structuralTag(f.sequence(f.tag("<think>", f.anyText(), "</think>"), f.tag("<tools>", f.tagsWithSeparator([weather], ","), "</tools>")))],
  ["json_schema true", f.structuralTag(f.tag("<json>", f.jsonSchema(true), "</json>"))],
];

describe("xgrammar accepts our wire form", () => {
  let compiler: XgrCompiler;
  beforeAll(async () => {
    const xg = loadWebXgrammar();
    // A tiny byte-level vocabulary is enough: only the structural tag's JSON is being checked.
    const vocab = ["</s>", "a", "b", "<", ">", "/", "{", "}", '"', ":", ",", " ", "0", "1", "\n"];
    compiler = await xg.GrammarCompiler.createGrammarCompiler(await xg.TokenizerInfo.createTokenizerInfo(vocab, "byte_level", false, vocab.length, [0]));
  });

  it.each(inXgrammarSubset)("%s", async (_name, tag) => {
    await expect(compiler.compileStructuralTag(stringifyStructuralTag(tag))).resolves.toBeDefined();
  });

  it("rejects a misspelled type (the control)", async () => {
    const text = stringifyStructuralTag(f.structuralTag(f.tagsWithSeparator([weather], ","))).replace("tags_with_separator", "tags_with_separators");
    await expect(compiler.compileStructuralTag(text)).rejects.toBeDefined();
  });
});
