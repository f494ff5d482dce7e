import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TokenizerError } from "../../lib/errors.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { TokenKind } from "../../lib/tokenizer/vocabulary.js";

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}.tokenizer.json`, import.meta.url));
const hex = (s: string): string => Buffer.from(s, "latin1").toString("hex");
const utf8 = (s: string): string => Buffer.from(s, "utf8").toString("hex");
const { Normal: N, Control: C } = TokenKind;

/** [id, expected bytes as hex, kind] rows per hand-made file. */
const expectations: Record<string, { vocabType: string; count: number; stops: number[]; rows: [number, string, TokenKind][] }> = {
  "sentencepiece-bpe": {
    vocabType: "sentencepiece",
    count: 17,
    stops: [2],
    rows: [
      [0, utf8("<unk>"), C],
      [1, utf8("<s>"), C],
      [2, utf8("</s>"), C],
      [3, "00", N],
      [4, "0a", N],
      [5, "22", N],
      [6, "c3", N],
      [7, "a9", N],
      [8, "ff", N],
      [9, "20", N],
      [10, utf8(" the"), N],
      [11, "2020", N],
      [12, utf8("café"), N],
      [13, utf8(' "'), N],
      [14, utf8("<0xZZ>"), N],
      [15, utf8("你好"), N],
      [16, utf8("} "), N],
    ],
  },
  unigram: {
    vocabType: "sentencepiece",
    count: 8,
    stops: [1],
    rows: [
      [0, utf8("<pad>"), C],
      [1, utf8("</s>"), C],
      [2, utf8("<unk>"), C],
      [3, "20", N],
      [4, utf8(" hello"), N],
      [5, utf8("X"), N],
      [6, utf8("é"), N],
      [7, utf8("  world"), N],
    ],
  },
  raw: {
    vocabType: "raw",
    count: 11,
    stops: [],
    rows: [
      [0, utf8("a"), N],
      [2, utf8("ab"), N],
      [3, "20", N],
      [4, utf8("é"), N],
      [5, utf8("line\nbreak"), N],
      [6, "f09f9880", N],
      [7, utf8('"q"\\'), N],
      [8, utf8("\u0120x"), N],
      [9, utf8("<eos>"), C],
      [10, utf8("[TOOL]"), N],
    ],
  },
  "byte-level": {
    vocabType: "byte_level",
    count: 13,
    stops: [10],
    rows: [
      [0, hex("!"), N],
      [1, "20", N],
      [2, "0a", N],
      [3, "c3a9", N],
      [4, utf8(" hello"), N],
      [5, utf8("\\"), N],
      [6, "e4bd", N],
      [7, "a0", N],
      [8, "", C],
      [9, "ad", N],
      [10, utf8("<|endoftext|>"), C],
      [11, utf8("<think>"), N],
      [12, utf8("<|begin_of_text|>"), C],
    ],
  },
};

describe.each(Object.entries(expectations))("hand-made %s tokenizer.json", (name, want) => {
  const sources: [string, () => TokenizerInfo][] = [
    ["path", () => TokenizerInfo.fromTokenizerJson(fixture(name))],
    ["file URL", () => TokenizerInfo.fromTokenizerJson(new URL(`./fixtures/${name}.tokenizer.json`, import.meta.url))],
    ["JSON text", () => TokenizerInfo.fromTokenizerJson(readFileSync(fixture(name), "utf8"))],
    ["bytes", () => TokenizerInfo.fromTokenizerJson(readFileSync(fixture(name)))],
    ["parsed object", () => TokenizerInfo.fromTokenizerJson(JSON.parse(readFileSync(fixture(name), "utf8")) as object)],
  ];
  it.each(sources)("from %s: type, bytes, kinds and stop tokens", (_, load) => {
    const info = load();
    expect(info.vocabType).toBe(want.vocabType);
    expect(info.tokenCount).toBe(want.count);
    expect(info.vocabSize).toBe(want.count);
    expect([...info.stopTokenIds]).toEqual(want.stops);
    for (const [id, bytes, kind] of want.rows) {
      expect(Buffer.from(info.tokenBytes(id)).toString("hex"), `token ${id} bytes`).toBe(bytes);
      expect(info.kind(id), `token ${id} kind`).toBe(kind);
    }
    expect(info.data.offsets.length).toBe(want.count + 1);
    expect(info.data.offsets[want.count]).toBe(info.data.bytes.length);
  });
});

describe("tokenizer.json details", () => {
  it("keeps the added tokens' special flag and finds them by content", () => {
    const info = TokenizerInfo.fromTokenizerJson(fixture("byte-level"));
    expect(info.tokenId("<|endoftext|>")).toBe(10);
    expect(info.isSpecial(10)).toBe(true);
    expect(info.tokenId("<think>")).toBe(11);
    expect(info.isSpecial(11)).toBe(false);
    expect(info.tokenId(" hello")).toBe(4);
    expect(info.tokenId("nope")).toBeUndefined();
    expect(info.tokenText(3)).toBe("é");
    expect(info.tokenText(6)).toBe("\ufffd");
  });

  it("honours a requested vocabulary type over the detected one", () => {
    const info = TokenizerInfo.fromTokenizerJson(fixture("byte-level"), { vocabType: "raw" });
    expect(info.vocabType).toBe("raw");
    expect(Buffer.from(info.tokenBytes(1)).toString("hex")).toBe(utf8("\u0120"));
  });

  it("adds the tokenizer_config.json eos_token to the stop tokens", () => {
    const info = TokenizerInfo.fromTokenizerJson(fixture("raw"), { tokenizerConfig: { eos_token: { content: "<eos>" } } });
    expect([...info.stopTokenIds]).toEqual([9]);
    expect(TokenizerInfo.fromTokenizerJson(fixture("raw"), { tokenizerConfig: { eos_token: "<eos>" } }).stopTokenIds).toEqual(Uint32Array.of(9));
  });

  it("accepts a byte-order mark and any key order", () => {
    const text = readFileSync(fixture("byte-level"));
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text]);
    expect(TokenizerInfo.fromTokenizerJson(withBom).tokenCount).toBe(13);
  });
});

const minimal = (model: string, extra = ""): string => `{"model": ${model}${extra}}`;

/** Malformed inputs: [name, input, substrings the message must contain]. */
const malformed: [string, string | Uint8Array, string[]][] = [
  ["empty input", new Uint8Array(0), ["expected a JSON object", "line 1:1"]],
  ["not an object", Buffer.from("[1, 2]"), ["expected a JSON object", "found '['"]],
  ["empty object", "{}", ["empty object"]],
  ["missing model", '{"added_tokens": []}', ["model: missing"]],
  ["empty vocabulary", minimal('{"type": "BPE", "vocab": {}}'), ["model.vocab", "empty"]],
  ["fractional id", minimal('{"type": "BPE", "vocab": {"a": 0,\n "b": 1.5}}'), ["model.vocab", "fraction", "line 2:"]],
  ["negative id", minimal('{"type": "BPE", "vocab": {"a": -1}}'), ["model.vocab", "non-negative integer"]],
  ["string id", minimal('{"type": "BPE", "vocab": {"a": "0"}}'), ["model.vocab", "non-negative integer"]],
  ["duplicate id", minimal('{"type": "BPE", "vocab": {"a": 0, "b": 0}}'), ["token id 0 is given to two tokens"]],
  ["bad escape", minimal('{"type": "BPE", "vocab": {"a\\q": 0}}'), ["invalid escape", "\\q"]],
  ["bad unicode escape", minimal('{"type": "BPE", "vocab": {"a\\u12G4": 0}}'), ["\\u escape"]],
  ["raw control character", minimal('{"type": "BPE", "vocab": {"a\tb": 0}}'), ["raw control character"]],
  ["truncated vocabulary", '{"model": {"type": "BPE", "vocab": {"a": 0', ["model.vocab", "found the end of the file"]],
  ["unterminated string", '{"model": {"type": "BPE", "vocab": {"a', ["unterminated string"]],
  ["missing colon", minimal('{"type": "BPE", "vocab": {"a" 0}}'), ["expected ':'"]],
  ["vocab of wrong type", minimal('{"type": "BPE", "vocab": 12}'), ["model.vocab", "expected an object or an array"]],
  ["unigram entry without score", minimal('{"type": "Unigram", "vocab": [["a"]]}'), ["model.vocab[0]", "expected ','"]],
  ["WordPiece", minimal('{"type": "WordPiece", "vocab": {"a": 0}}'), ["model.type", "WordPiece", "not supported"]],
  ["end-of-word suffix", minimal('{"type": "BPE", "end_of_word_suffix": "</w>", "vocab": {"a": 0}}'), ["model.end_of_word_suffix", "not supported"]],
  ["trailing garbage", `${minimal('{"type": "BPE", "vocab": {"a": 0}}')} x`, ["after the top-level object"]],
  ["added tokens not an array", minimal('{"type": "BPE", "vocab": {"a": 0}}', ', "added_tokens": {}'), ["added_tokens: expected an array"]],
  ["added token id", minimal('{"type": "BPE", "vocab": {"a": 0}}', ', "added_tokens": [{"id": "x", "content": "<s>"}]'), ["added_tokens[0].id"]],
  ["added token content", minimal('{"type": "BPE", "vocab": {"a": 0}}', ', "added_tokens": [{"id": 1, "content": ""}]'), ["added_tokens[0].content"]],
  ["added token special", minimal('{"type": "BPE", "vocab": {"a": 0}}', ', "added_tokens": [{"id": 1, "content": "<s>", "special": 1}]'), ["added_tokens[0].special"]],
  ["added token twice", minimal('{"type": "BPE", "vocab": {"a": 0}}', ', "added_tokens": [{"id": 1, "content": "<s>"}, {"id": 1, "content": "</s>"}]'), ["token id 1 is given to two added tokens"]],
  ["malformed small value", minimal('{"type": "BPE", "vocab": {"a": 0}}', ', "decoder": {"type": nul}'), ["decoder", "malformed JSON"]],
];

describe("malformed tokenizer.json", () => {
  it.each(malformed)("%s → TokenizerError", (_, input, parts) => {
    let error: unknown;
    try {
      TokenizerInfo.fromTokenizerJson(input);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TokenizerError);
    for (const part of parts) expect((error as Error).message).toContain(part);
  });

  it("names the file, JSON path and line:column", () => {
    expect(() => TokenizerInfo.fromTokenizerJson(minimal('{"type": "BPE",\n  "vocab": {"a": 0,\n  "b": x}}'))).toThrow(
      /^tokenizer\.json: model\.vocab: expected a non-negative integer token id, found 'x' \(byte \d+, line 3:8\)$/,
    );
  });

  it("reports unreadable files", () => {
    expect(() => TokenizerInfo.fromTokenizerJson(fixture("does-not-exist"))).toThrow(TokenizerError);
    expect(() => TokenizerInfo.fromTokenizerJson(fileURLToPath(new URL("./fixtures", import.meta.url)))).toThrow(/is a directory/);
  });

  it("rejects malformed parsed objects", () => {
    const table: [unknown, string][] = [
      [null, "expected a tokenizer.json object"],
      [{ model: null }, "model: expected the tokenizer model object"],
      [{ model: { type: "BPE", vocab: { a: -1 } } }, 'model.vocab["a"]'],
      [{ model: { type: "Unigram", vocab: [[1, 0]] } }, "model.vocab[0]"],
      [{ model: { type: "BPE", vocab: "x" } }, "model.vocab: expected an object or an array"],
      [{ model: { type: "BPE", vocab: { a: 0 } }, added_tokens: [{ id: 1 }] }, "added_tokens[0].content"],
    ];
    for (const [input, part] of table) {
      expect(() => TokenizerInfo.fromTokenizerJson(input as object), part).toThrow(TokenizerError);
      expect(() => TokenizerInfo.fromTokenizerJson(input as object)).toThrow(part);
    }
  });

  it("every truncation of a real file before the merges is a TokenizerError", () => {
    const full = readFileSync(fixture("sentencepiece-bpe"));
    const merges = full.indexOf('"merges"');
    for (let cut = 0; cut < merges; cut += 7) {
      expect(() => TokenizerInfo.fromTokenizerJson(full.subarray(0, cut)), `cut at ${cut}`).toThrow(TokenizerError);
    }
  });
});
