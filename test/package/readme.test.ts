/**
 * The README's TypeScript as a user would take it: every ```ts block type-checks under `strict`
 * with `skipLibCheck: false` in a consumer project (node-llama-cpp's own declarations do not pass
 * a library check; only tagmask's and the snippet's diagnostics count), and runs: the quick start
 * on the tiny model with node-llama-cpp, the sampler loop with the real Llama 3 tokenizer.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureTinyModel } from "../../lib/integrations/node-llama-cpp/tiny-model.js";
import { packageRoot } from "../../lib/package-root.js";
import { ensureBuiltCli } from "../helpers/cli.js";
import { tokenizerJsonPath } from "../helpers/vocab.js";
import { consumerProject, inNodeLlamaCpp, typescriptBlocks } from "./consumer.js";

const blocks = typescriptBlocks(readFileSync(join(packageRoot(), "README.md"), "utf8"));
const consumer = consumerProject("readme", { nodeLlamaCpp: true });

beforeAll(() => {
  ensureBuiltCli();
  // The quick start's model: the cached tiny model (the same file the integration tests use).
  ensureTinyModel();
  blocks.forEach((code, i) => consumer.write(`readme-${i + 1}.ts`, code));
}, 300_000);

describe("README.md", () => {
  it("has the quick start and the sampler loop", () => {
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain('from "tagmask/node-llama-cpp"');
    expect(blocks[1]).toContain("fillNextTokenBitmask");
  });

  it("type-checks under strict with the library check on", () => {
    const { diagnostics } = consumer.typecheck({ emit: true });
    expect(diagnostics.filter((d) => !inNodeLlamaCpp(d))).toEqual([]);
  });

  it("runs the quick start: a get_weather call from the tiny model", () => {
    const r = consumer.run(join("out", "readme-1.js"));
    // llama.cpp notes that the tiny model's end-of-message token is not a known end-of-generation
    // text (it adds it anyway); nothing else may appear.
    expect(r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("[node-llama-cpp] load: special_eos_id is not in special_eog_ids"))).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/<\|open\|>call tool="get_weather" index="\d+"<\|sep\|>/);
    expect(r.stdout).toMatch(/name: 'get_weather',\s+arguments: \{ city: '/);
  });

  it("runs the sampler loop: a JSON answer of the schema", () => {
    const r = consumer.run(join("out", "readme-2.js"), { TOKENIZER: tokenizerJsonPath("llama3") });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\{ answer: '(yes|no)', confidence: -?\d+ \}\n$/);
  });
});
