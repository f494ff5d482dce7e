import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { KIMI_K3_SPECIAL_TOKENS } from "../../lib/tokenizer/special-tokens.js";
import { TokenKind } from "../../lib/tokenizer/vocabulary.js";
import { encodeForTest, loadTestVocabulary, referenceTokenizer, tokenizerJsonPath, type TestVocabularyName } from "../helpers/vocab.js";

/** GPT-2 byte decoder written out independently of the library (code point → byte). */
function referenceUnicodeToByte(): Map<string, number> {
  const printable = (b: number): boolean => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const map = new Map<string, number>();
  let next = 256;
  for (let b = 0; b < 256; b++) map.set(String.fromCodePoint(printable(b) ? b : next++), b);
  return map;
}

interface Expected {
  tokens: number;
  vocabSize: number;
  stops: string[];
  hello: number[];
  known: [string, number][];
}

const expected: Record<TestVocabularyName, Expected> = {
  llama3: {
    tokens: 128_256,
    vocabSize: 128_256,
    stops: ["<|end_of_text|>", "<|eot_id|>"],
    hello: [9906, 11, 1917, 0],
    known: [["Hello", 9906], [" world", 1917], ["<|begin_of_text|>", 128000], ["<|eot_id|>", 128009], [" ", 220], ["\n", 198]],
  },
  qwen3: {
    tokens: 151_669,
    vocabSize: 151_936,
    stops: ["<|endoftext|>", "<|im_end|>"],
    hello: [9707, 11, 1879, 0],
    known: [["Hello", 9707], [" world", 1879], ["<|im_start|>", 151644], ["<think>", 151667], ["\n", 198]],
  },
};

const realisticOutputs = [
  "Hello, world!",
  'Sure. <|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Zürich, CH<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  '<|open|>json type="object"<|sep|>{"y": -1.5e3, "x": 42, "items": ["a\\"b", "\\u00e9", "日本語"]}<|close|>json<|sep|>',
  "emoji 🤖🎉 and 中文字符 mixed with Ελληνικά and עברית\n\n\tindented    spaces  ",
  "  leading spaces, trailing newline\n",
];

describe.each(["llama3", "qwen3"] as const)("%s vocabulary", (name) => {
  const want = expected[name];
  const vocab = loadTestVocabulary(name);
  const k3 = loadTestVocabulary(name, { kimiMarkers: true });

  it("has the expected size, padding and stop tokens", () => {
    expect(vocab.vocabType).toBe("byte_level");
    expect(vocab.tokenCount).toBe(want.tokens);
    expect(vocab.vocabSize).toBe(want.vocabSize);
    expect([...vocab.stopTokenIds].map((id) => vocab.tokenText(id))).toEqual(want.stops);
    for (const [text, id] of want.known) expect(vocab.tokenId(text), text).toBe(id);
    expect(vocab.kind(want.vocabSize - 1)).toBe(want.vocabSize > want.tokens ? TokenKind.Control : vocab.kind(want.vocabSize - 1));
  });

  it("appends the Kimi K3 markers after the last token", () => {
    expect(loadTestVocabulary(name, { kimiMarkers: true })).toBe(k3);
    expect(k3.tokenCount).toBe(want.tokens + 4);
    expect(k3.vocabSize).toBe(Math.max(want.vocabSize, want.tokens + 4));
    expect(KIMI_K3_SPECIAL_TOKENS.map((m) => k3.tokenId(m))).toEqual([0, 1, 2, 3].map((i) => want.tokens + i));
    expect(KIMI_K3_SPECIAL_TOKENS.map((m) => k3.kind(k3.tokenId(m)!))).toEqual([TokenKind.SpecialText, TokenKind.SpecialText, TokenKind.SpecialText, TokenKind.Control]);
    expect([...k3.stopTokenIds].map((id) => k3.tokenText(id))).toEqual([...want.stops, "<|end_of_msg|>"]);
  });

  it("decodes every token's bytes like an independent reading of the file", () => {
    const json = JSON.parse(readFileSync(tokenizerJsonPath(name), "utf8")) as {
      model: { vocab: Record<string, number> };
      added_tokens: { id: number; content: string; special: boolean }[];
    };
    const byteOf = referenceUnicodeToByte();
    const seen = new Uint8Array(vocab.tokenCount);
    let mismatches = 0;
    for (const [token, id] of Object.entries(json.model.vocab)) {
      const bytes = Uint8Array.from([...token].map((ch) => byteOf.get(ch)!));
      if (Buffer.compare(Buffer.from(bytes), Buffer.from(vocab.tokenBytes(id))) !== 0) mismatches++;
      if (vocab.kind(id) !== TokenKind.Normal) mismatches++;
      seen[id] = 1;
    }
    for (const added of json.added_tokens) {
      expect(vocab.tokenText(added.id)).toBe(added.content);
      expect(vocab.kind(added.id), added.content).toBe(added.special ? TokenKind.Control : TokenKind.Normal);
      seen[added.id] = 1;
    }
    expect(mismatches).toBe(0);
    expect(seen.every((s) => s === 1)).toBe(true);
  });

  it("agrees with the npm tokenizer's decoding of single tokens", () => {
    const tok = referenceTokenizer(name);
    const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    let checked = 0;
    const differences: number[] = [];
    for (let id = 0; id < vocab.tokenCount; id += 3) {
      if (vocab.kind(id) !== TokenKind.Normal) continue;
      let text: string;
      try {
        text = fatal.decode(vocab.tokenBytes(id));
      } catch {
        continue; // a partial UTF-8 character: the reference decoder replaces it
      }
      checked++;
      if (tok.decode([id], { clean_up_tokenization_spaces: false }) !== text) differences.push(id);
    }
    expect(checked).toBeGreaterThan(vocab.tokenCount / 4);
    expect(differences).toEqual([]);
  });

  it("tokenizes realistic output to ids whose bytes are exactly the text", () => {
    expect(encodeForTest(name, "Hello, world!")).toEqual(want.hello);
    for (const text of realisticOutputs) {
      const ids = encodeForTest(name, text);
      const bytes = Buffer.concat(ids.map((id) => k3.tokenBytes(id)));
      expect(bytes.toString("utf8")).toBe(text);
      const markers = ids.filter((id) => id >= want.tokens);
      expect(markers.length).toBe(text.split(/<\|(?:open|sep|close|end_of_msg)\|>/).length - 1);
    }
  });
});
