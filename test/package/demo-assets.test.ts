/**
 * What `npx tagmask demo` needs from the package: the packaged vocabulary file (written from Llama
 * 3's tokenizer.json, read back to the very same vocabulary, so the tiny model's GGUF is the same
 * whichever source it came from; damaged files are TokenizerErrors), and the per-user model cache
 * folder (TAGMASK_CACHE, XDG_CACHE_HOME, ~/.cache/tagmask).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { TokenizerError } from "../../lib/errors.js";
import { completeBpeVocabulary, readBpeTokenizerJson } from "../../lib/integrations/node-llama-cpp/gguf-vocabulary.js";
import { tinyModelCacheDir } from "../../lib/integrations/node-llama-cpp/tiny-model.js";
import { readVocabularyFile, writeVocabularyFile } from "../../lib/integrations/node-llama-cpp/vocabulary-file.js";
import { KIMI_K3_SPECIAL_TOKENS } from "../../lib/tokenizer/special-tokens.js";
import { tokenizerJsonPath } from "../helpers/vocab.js";

const dir = mkdtempSync(join(tmpdir(), "tagmask-assets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the packaged vocabulary file", () => {
  it("holds Llama 3's vocabulary in under 2 MB and reads back to the same GGUF vocabulary", () => {
    const source = tokenizerJsonPath("llama3");
    const base = readBpeTokenizerJson(source);
    const file = join(dir, "llama3.vocab");
    const bytes = writeVocabularyFile(file, base, "test");
    expect(bytes).toBeLessThan(2_000_000);
    const back = readVocabularyFile(file);
    expect(back.pre).toBe("llama-bpe");
    expect(back.tokens).toEqual(base.tokens);
    expect(back.types).toEqual(base.types);
    expect(back.merges).toEqual(base.merges);
    // What the tiny model is written from (vocabularyFromTokenizerJson is this on the tokenizer.json).
    expect(completeBpeVocabulary(back, KIMI_K3_SPECIAL_TOKENS)).toStrictEqual(completeBpeVocabulary(base, KIMI_K3_SPECIAL_TOKENS));
  }, 120_000);

  it("keeps unused ids unused and any text intact", () => {
    const file = join(dir, "small.vocab");
    const tokens = ["a", undefined, "b c", "\n", "ü", "<|x|>"];
    writeVocabularyFile(file, { pre: "default", tokens, types: [1, undefined, 1, 1, 1, 3], merges: ["a b", "b c"] });
    const back = readVocabularyFile(file);
    expect(back.tokens).toEqual(tokens);
    expect(back.types).toEqual([1, undefined, 1, 1, 1, 3]);
    expect(back.merges).toEqual(["a b", "b c"]);
    const full = completeBpeVocabulary(back, ["<|x|>", "<|y|>"]);
    expect(full.tokens).toEqual(["a", "[PAD1]", "b c", "\n", "ü", "<|x|>", "<|y|>"]);
    expect(full.types).toEqual([1, 5, 1, 1, 1, 3, 3]);
  });

  it.each([
    ["missing", null, /cannot read the vocabulary file \(ENOENT\)/],
    ["not ours", Buffer.from("GGUF...."), /not a tagmask vocabulary file/],
    ["not Brotli", Buffer.concat([Buffer.from("TMVOCAB1"), Buffer.from("garbage")]), /the vocabulary file is corrupt/],
  ])("%s → TokenizerError", (name, content, message) => {
    const file = join(dir, `${name}.vocab`);
    if (content) writeFileSync(file, content);
    expect(() => readVocabularyFile(file)).toThrow(TokenizerError);
    expect(() => readVocabularyFile(file)).toThrow(message);
  });

  it("a truncated payload is a TokenizerError naming where", () => {
    const good = join(dir, "small.vocab");
    writeVocabularyFile(good, { pre: "default", tokens: ["a", "b"], types: [1, 1], merges: ["a b"] });
    const payload = brotliDecompressSync(readFileSync(good).subarray(8));
    const cut = join(dir, "cut.vocab");
    writeFileSync(cut, Buffer.concat([Buffer.from("TMVOCAB1"), brotliCompressSync(payload.subarray(0, payload.length - 2))]));
    expect(() => readVocabularyFile(cut)).toThrow(/the vocabulary file is truncated at byte \d+/);
  });
});

describe("the model cache folder", () => {
  const withEnv = (env: Record<string, string | undefined>, f: () => void): void => {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    try {
      for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
      f();
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  };

  it("is ~/.cache/tagmask, $XDG_CACHE_HOME/tagmask, or TAGMASK_CACHE", () => {
    const xdg = join(tmpdir(), "xdg-cache");
    const models = join(tmpdir(), "models");
    withEnv({ TAGMASK_CACHE: undefined, XDG_CACHE_HOME: undefined }, () => expect(tinyModelCacheDir()).toBe(join(homedir(), ".cache", "tagmask")));
    withEnv({ TAGMASK_CACHE: undefined, XDG_CACHE_HOME: xdg }, () => expect(tinyModelCacheDir()).toBe(join(xdg, "tagmask")));
    withEnv({ TAGMASK_CACHE: undefined, XDG_CACHE_HOME: "relative" }, () => expect(tinyModelCacheDir()).toBe(join(homedir(), ".cache", "tagmask")));
    withEnv({ TAGMASK_CACHE: models, XDG_CACHE_HOME: xdg }, () => expect(tinyModelCacheDir()).toBe(models));
  });
});
