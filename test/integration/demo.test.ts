/**
 * `tagmask demo`, run in process: the tiny model, the seed tools with tool_choice required, the
 * outline, the raw output, the parsed calls and the per-step mask time; options and bad input.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { seedOutline } from "../helpers/seeds.js";
import { tokenizerJsonPath } from "../helpers/vocab.js";

const requiredOutline = seedOutline("required");
const toolsFile = fileURLToPath(new URL("./fixtures/tools.json", import.meta.url));

interface DemoJson {
  outline: string;
  text: string;
  stopReason: string;
  toolCalls: { index: number; name: string; arguments: Record<string, unknown> }[] | null;
  parseError: string | null;
  route: string;
  stats: { maskMicros: number[]; tokens: number; sampledTokens: number; forcedTokens: number };
}

describe("tagmask demo", () => {
  it("prints the outline, the output, the tool calls and the mask time per step", async () => {
    const res = await runCli(["demo"]);
    // Nothing on stderr but the tiny model's progress when this run generated it.
    expect(res.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("tagmask demo: "))).toEqual([]);
    expect(res.code).toBe(0);
    expect(res.stdout.startsWith(`== outline ==\n${requiredOutline.trimEnd()}\n`)).toBe(true);
    for (const section of ["== raw output (", "== tool calls ==", "== mask time per step ==", "fill (engine): median ", "per step, µs: ", "masking route: "]) {
      expect(res.stdout).toContain(section);
    }
    expect(res.stdout).toMatch(/== tool calls ==\n\d+\. (get_weather|add) \{/);
  });

  it("reports JSON for the seed tools with tool_choice required", async () => {
    const res = await runCli(["demo", "--json", "--seed", "7"]);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as DemoJson;
    expect(out.outline).toBe(requiredOutline);
    expect(out.parseError).toBeNull();
    expect(out.toolCalls!.length).toBeGreaterThan(0);
    expect(["grammar-end", "stop-token"]).toContain(out.stopReason);
    expect(out.stats.maskMicros.length).toBeGreaterThan(0);
    expect(out.stats.tokens).toBeGreaterThan(0);
  });

  it("takes a tools file, a named tool choice and --no-parallel", async () => {
    const res = await runCli(["demo", "--json", "--tools", toolsFile, "--tool-choice", "set_alarm", "--no-parallel", "--seed", "2", "--route", "bias-object"]);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as DemoJson;
    expect(out.route).toBe("bias-object");
    expect(out.toolCalls!.length).toBe(1);
    expect(out.toolCalls![0]!.name).toBe("set_alarm");
    expect(out.outline).toContain('tag `<|open|>call tool="set_alarm" index="`');
  });

  // One family here; family-tool-calls.test.ts runs qwen3, llama3 and harmony end to end.
  it.each([["llama3"]])("--family %s: the family's tiny model, grammar and parser", async (family) => {
    const res = await runCli(["demo", "--json", "--family", family, "--tools", toolsFile, "--seed", "3", "--max-tokens", "300"]);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as DemoJson;
    expect(out.parseError).toBeNull();
    expect(out.toolCalls!.length).toBeGreaterThan(0);
    expect(["grammar-end", "stop-token"]).toContain(out.stopReason);
  });

  it.each([
    [["--family", "gpt-9"], "unknown --family 'gpt-9'"],
    [["--tool-choice", "nope"], "tool_choice"],
    [["--route", "fastest"], "--route must be one of auto, "],
    [["--max-tokens", "0"], "--max-tokens must be an integer ≥ 1"],
    [["--temperature", "-1"], "--temperature must be a number ≥ 0"],
    [["--tools", "/nonexistent/tools.json"], "--tools /nonexistent/tools.json: cannot read the file"],
    [["--model", "/nonexistent/model.gguf"], "node-llama-cpp could not load /nonexistent/model.gguf"],
    [["extra"], "unexpected argument \"extra\""],
    [["--model", "/nonexistent/model.gguf", "--tokenizer", "t.json"], "--tokenizer sets the tiny model's vocabulary; a --model has its own"],
    [["--tokenizer", "/nonexistent/tokenizer.json"], "cannot read the tokenizer"],
  ])("%j → exit 2 with a one-line reason", async (args, message) => {
    const res = await runCli(["demo", ...args]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(message);
    expect(res.stderr.trim().split("\n")[0]).toContain(message);
  });
});

describe("tagmask demo --tokenizer", () => {
  // Writing a GGUF for a 151k-token vocabulary and loading it: ~15 s alone on a 2-core CI machine,
  // several times that on a shared one.
  it("generates the tiny model on another vocabulary (Qwen3), with progress on stderr, in TAGMASK_CACHE", async () => {
    const cache = mkdtempSync(join(tmpdir(), "tagmask-demo-cache-"));
    const saved = process.env.TAGMASK_CACHE;
    process.env.TAGMASK_CACHE = cache;
    try {
      const res = await runCli(["demo", "--json", "--tokenizer", tokenizerJsonPath("qwen3"), "--seed", "3"]);
      expect(res.stderr).toMatch(new RegExp(`^tagmask demo: generating the tiny model \\(first run only\\) into ${cache.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/tiny-custom-[0-9a-f]+\\.gguf\n`));
      expect(res.stderr).toMatch(/^tagmask demo: vocabulary: 151\d{3} tokens, \d+ merges from .*tokenizer\.json$/m);
      expect(res.stderr).toMatch(/^tagmask demo: checking that node-llama-cpp loads it$/m);
      expect(res.code).toBe(0);
      const out = JSON.parse(res.stdout) as DemoJson & { model: string };
      expect(out.model.startsWith(cache)).toBe(true);
      expect(out.parseError).toBeNull();
      expect(out.toolCalls!.length).toBeGreaterThan(0);
    } finally {
      if (saved === undefined) delete process.env.TAGMASK_CACHE;
      else process.env.TAGMASK_CACHE = saved;
      rmSync(cache, { recursive: true, force: true });
    }
  }, 180_000);
});
