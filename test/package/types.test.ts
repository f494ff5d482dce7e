/**
 * The package as a consumer sees it: the public types compile under `strict` with
 * `skipLibCheck: false` in a project without node-llama-cpp (its integration is the separate
 * `tagmask/node-llama-cpp` entry), both entries load with `import` and with `require` (without
 * node-llama-cpp installed, too), and the tarball's file list holds what a user needs and no
 * source maps, tests or build intermediates.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../lib/package-root.js";
import { ensureBuiltCli } from "../helpers/cli.js";
import { consumerProject } from "./consumer.js";

beforeAll(ensureBuiltCli, 300_000);

describe("a consumer without node-llama-cpp", () => {
  const consumer = consumerProject("types");

  it("type-checks the main entry strictly, with the library check on; the node-llama-cpp entry needs node-llama-cpp", () => {
    consumer.write("main.ts", [
      'import * as tagmask from "tagmask";',
      'import { buildToolCallingFormat, parseToolOutput, printOutline, type FunctionTool, type ParsedToolOutput } from "tagmask";',
      "const tools: FunctionTool[] = [{ type: \"function\", function: { name: \"f\", parameters: { type: \"object\" } } }];",
      'const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: "required" });',
      "const outline: string | null = tag === null ? null : printOutline(tag);",
      'const parsed: ParsedToolOutput = parseToolOutput("kimi-k3", "hi<|close|>response<|sep|>");',
      "const names: string[] = Object.keys(tagmask);",
      "export { outline, parsed, names };",
      "",
    ].join("\n"));
    consumer.write("legacy.cts", [
      'import tagmask = require("tagmask");',
      'export const content: string = tagmask.parseToolOutput("kimi-k3", "x<|close|>response<|sep|>").content;',
      "",
    ].join("\n"));
    consumer.write("llama.ts", 'import { ConstrainedLlama } from "tagmask/node-llama-cpp";\nexport const create = ConstrainedLlama.create;\n');
    const { diagnostics } = consumer.typecheck();
    // Every diagnostic is about node-llama-cpp being absent, none is in main.ts or legacy.cts.
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.filter((d) => !d.includes("'node-llama-cpp'"))).toEqual([]);
    expect(diagnostics.filter((d) => d.startsWith("main.ts") || d.startsWith("legacy.cts"))).toEqual([]);
  });

  it("loads both entries with import and with require, printing nothing", () => {
    consumer.write("load.mjs", [
      'import { parseToolOutput, runtime } from "tagmask";',
      'import { ConstrainedLlama, ensureTinyModel } from "tagmask/node-llama-cpp";',
      'console.log(typeof parseToolOutput, typeof runtime, typeof ConstrainedLlama, typeof ensureTinyModel);',
      "",
    ].join("\n"));
    consumer.write("load.cjs", [
      'const { parseToolOutput } = require("tagmask");',
      'const { ConstrainedLlama } = require("tagmask/node-llama-cpp");',
      'console.log(parseToolOutput("kimi-k3", "ok<|close|>response<|sep|>").content, typeof ConstrainedLlama);',
      "",
    ].join("\n"));
    expect(consumer.run("load.mjs")).toEqual({ status: 0, stdout: "function function function function\n", stderr: "" });
    expect(consumer.run("load.cjs")).toEqual({ status: 0, stdout: "ok function\n", stderr: "" });
  });

  it("runs the command line without node-llama-cpp: --help, and demo says what to install (exit 3)", () => {
    const cli = join(consumer.dir, "node_modules", "tagmask", "dist", "lib", "cli.js");
    const help = consumer.run(cli, {}, ["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^  demo +generate a family's tool calls/m);
    const demo = consumer.run(cli, {}, ["demo"]);
    expect(demo.status).toBe(3);
    expect(demo.stderr).toMatch(/^tagmask demo: TagmaskError: the demo runs models with node-llama-cpp: npm install node-llama-cpp$/m);
  });

});

describe("the tarball's file list", () => {
  const root = packageRoot();
  const res = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
  const files = res.status === 0 ? (JSON.parse(res.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path) : [];

  it("has the compiled package, its types, the install and build files, and the license", () => {
    expect(res.status).toBe(0);
    for (const f of [
      "package.json", "README.md", "LICENSE", "CHANGELOG.md", "dist/lib/index.js", "dist/lib/index.d.ts", "dist/lib/node-llama-cpp.js",
      "dist/lib/node-llama-cpp.d.ts", "dist/lib/cli.js", "scripts/install.mjs", "scripts/build-addon.mjs", "scripts/native-sources.mjs",
      "CMakeLists.txt", "binding.gyp", "native/core/matcher.cpp", "native/include/tagmask/matcher.h", "native/binding/addon.cpp",
      "cuda/mask_kernels.cu",
    ]) expect(files).toContain(f);
  });

  it("has no source maps, sources of the TypeScript, tests, benchmarks or build folders", () => {
    const unwanted = files.filter((f) => /\.map$|^lib\/|^test\/|^bench\/|^build|^examples\/|^dist\/(?!lib\/)|\.ts$(?<!\.d\.ts)/.test(f));
    expect(unwanted).toEqual([]);
  });
});
