/**
 * `tagmask request` (the vLLM / SGLang request bodies) and `tagmask serve` (arguments, a real
 * process on the tiny model answering the `openai` client, a graceful exit on SIGTERM).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { parseStructuralTag } from "../../lib/format/parse.js";
import { buildToolCallingFormat } from "../../lib/tools/families.js";
import { structuralTagToJSON } from "../../lib/format/serialize.js";
import { packageRoot } from "../../lib/package-root.js";
import { ensureBuiltCli, runCli, scratchDir } from "../helpers/cli.js";
import { TOOLS } from "./server-helpers.js";

const scratch = scratchDir("server-cli");
const toolsFile = scratch.file("tools.json", JSON.stringify(TOOLS));

describe("tagmask request", () => {
  it("prints both servers' bodies with the structural tag in their documented fields", async () => {
    const r = await runCli(["request", "--family", "kimi-k3", "--tools", toolsFile, "--tool-choice", "required", "--model", "my-model"]);
    expect(r.code, r.stderr).toBe(0);
    const { vllm, sglang } = JSON.parse(r.stdout) as Record<string, Record<string, unknown>>;
    const expected = structuralTagToJSON(buildToolCallingFormat({ family: "kimi-k3", tools: TOOLS, tool_choice: "required" })!);
    for (const body of [vllm!, sglang!]) {
      expect(body.model).toBe("my-model");
      expect(body.tools).toEqual(TOOLS);
      // The structural tag enforces the choice; "required" would make the server add its own constraint.
      expect(body.tool_choice).toBe("auto");
      expect(body.messages).toEqual([{ role: "user", content: "<your message>" }]);
    }
    const tagText = (vllm!.structured_outputs as { structural_tag: string }).structural_tag;
    expect(typeof tagText).toBe("string");
    expect(JSON.parse(tagText)).toEqual(expected);
    expect(sglang!.response_format).toEqual(expected);
    // Both load as xgrammar structural tags.
    expect(() => parseStructuralTag(JSON.parse(tagText))).not.toThrow();
  });

  it("prints one server's body, with the given messages, reasoning mode and answer format", async () => {
    const messages = scratch.file("messages.json", JSON.stringify([{ role: "user", content: "Hi" }]));
    const rf = scratch.file("rf.json", JSON.stringify({ type: "json_object" }));
    const r = await runCli(["request", "--family", "kimi-k3", "--tools", toolsFile, "--server", "sglang", "--messages", messages, "--response-format", rf, "--reasoning", "think", "--no-parallel"]);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(body.messages).toEqual([{ role: "user", content: "Hi" }]);
    expect(body.parallel_tool_calls).toBe(false);
    expect(body.response_format).toEqual(structuralTagToJSON(buildToolCallingFormat({
      family: "kimi-k3", tools: TOOLS, parallel_tool_calls: false, reasoning: "think", response_format: { type: "json_object" },
    })!));
  });

  it("says when nothing is constrained, and refuses bad arguments with exit code 2", async () => {
    const none = await runCli(["request", "--family", "kimi-k3", "--tools", toolsFile, "--tool-choice", "none", "--server", "vllm"]);
    expect(none.code).toBe(0);
    expect(none.stderr).toMatch(/nothing to constrain/);
    expect(JSON.parse(none.stdout)).not.toHaveProperty("structured_outputs");
    for (const [argv, message] of [
      [["request", "--tools", toolsFile], /--family FAMILY is required/],
      [["request", "--family", "nope", "--tools", toolsFile], /unknown --family 'nope'/],
      [["request", "--family", "kimi-k3"], /--tools FILE is required/],
      [["request", "--family", "kimi-k3", "--tools", toolsFile, "--server", "tgi"], /--server must be one of vllm, sglang/],
      [["request", "--family", "kimi-k3", "--tools", toolsFile, "--bogus"], /unknown option --bogus \(known options: --family, /],
      [["request", "--family", "kimi-k3", "--tools", toolsFile, "--tool-choice", "nope"], /no tool named "nope"/],
    ] as const) {
      const r = await runCli([...argv]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe("tagmask serve", () => {
  beforeAll(() => ensureBuiltCli(), 300_000);

  it("refuses bad arguments with exit code 2", async () => {
    for (const [argv, message] of [
      [["serve"], /--model FILE.gguf is required/],
      [["serve", "--tiny", "--model", "x.gguf"], /exclude each other/],
      [["serve", "--tiny", "--parallel", "0"], /--parallel must be an integer ≥ 1/],
      [["serve", "--tiny", "--lowering-workers", "65"], /--lowering-workers must be an integer in \[1, 64\]/],
      [["serve", "--tiny", "--lowering-heap-mb", "8"], /--lowering-heap-mb must be an integer in \[16, 65536\]/],
      [["serve", "--tiny", "--family", "gpt-9"], /unknown --family 'gpt-9'/],
      [["serve", "--tiny", "--route", "magic"], /--route must be auto or one of/],
      [["serve", "--model", join(scratch.dir, "missing.gguf")], /could not load|no such file|ENOENT/i],
    ] as const) {
      const r = await runCli([...argv]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it("serves the tiny model to the openai client and exits 0 on SIGTERM", async () => {
    const child = spawn(process.execPath, [join(packageRoot(), "dist", "lib", "cli.js"), "serve", "--tiny", "--port", "0", "--parallel", "2", "--context", "512"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) {
            clearInterval(timer);
            resolve(m[1]!);
          }
          if (child.exitCode !== null) {
            clearInterval(timer);
            reject(new Error(`serve exited: ${err}`));
          }
        }, 50);
      });
      expect(out).toMatch(/family kimi-k3, 2 sequences × 512 tokens/);
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
      const res = await client.chat.completions.create({ model: "tagmask-tiny", messages: [{ role: "user", content: "Hi" }], tools: TOOLS, tool_choice: "required", reasoning_effort: "none", max_tokens: 200, seed: 1 });
      expect(res.choices[0]!.message.tool_calls?.length).toBeGreaterThan(0);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(out).toMatch(/shut down/);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
