import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../lib/errors.js";
import { KIMI_K3_SPECIAL_TOKENS } from "../../lib/tokenizer/special-tokens.js";
import { TokenizerInfo, type TokenizerJsonOptions } from "../../lib/tokenizer/tokenizer-info.js";
import { TokenKind } from "../../lib/tokenizer/vocabulary.js";

const byteLevel = fileURLToPath(new URL("./fixtures/byte-level.tokenizer.json", import.meta.url));
const load = (options: TokenizerJsonOptions = {}): TokenizerInfo => TokenizerInfo.fromTokenizerJson(byteLevel, options);
const { Normal: N, SpecialText: T, Control: C } = TokenKind;

describe("vocabulary options", () => {
  it("appends added tokens as special tokens after the last id", () => {
    const info = load({ addedTokens: KIMI_K3_SPECIAL_TOKENS });
    expect(info.tokenCount).toBe(17);
    expect(KIMI_K3_SPECIAL_TOKENS.map((m) => info.tokenId(m))).toEqual([13, 14, 15, 16]);
    expect([13, 14, 15, 16].map((id) => info.kind(id))).toEqual([T, T, T, C]);
    expect([...info.stopTokenIds]).toEqual([10, 16]);
    expect(info.tokenText(15)).toBe("<|close|>");
    // The earlier tokens are untouched.
    expect(info.tokenText(4)).toBe(" hello");
    expect(info.kind(8)).toBe(C);
  });

  it("does not add a special token twice, and can add plain text tokens", () => {
    const info = load({ addedTokens: ["<|endoftext|>", { content: "<tool>", special: false }] });
    expect(info.tokenCount).toBe(14);
    expect(info.tokenId("<|endoftext|>")).toBe(10);
    expect(info.kind(13)).toBe(N);
    expect(info.isSpecial(13)).toBe(false);
  });

  it("pads to vocabSize: padding ids are control tokens without bytes", () => {
    const info = load({ vocabSize: 40 });
    expect(info.vocabSize).toBe(40);
    expect(info.tokenCount).toBe(13);
    expect(info.data.kinds.length).toBe(13);
    expect(info.kind(39)).toBe(C);
    expect(info.tokenBytes(20).length).toBe(0);
    expect(info.tokenText(20)).toBe("");
    expect(() => info.kind(40)).toThrow(InvalidArgumentError);
  });

  it("overrides the stop tokens by text or id", () => {
    expect([...load({ stopTokens: ["<|begin_of_text|>"] }).stopTokenIds]).toEqual([12]);
    expect([...load({ stopTokens: [12, "<|endoftext|>"] }).stopTokenIds]).toEqual([10, 12]);
    expect([...load({ stopTokens: [] }).stopTokenIds]).toEqual([]);
    // A text token named as a stop token stops being text.
    const info = load({ stopTokens: ["<think>"] });
    expect(info.kind(11)).toBe(C);
    expect(info.isStopToken(11)).toBe(true);
    expect(info.isStopToken(10)).toBe(false);
  });

  it("makes listed special tokens text-bearing, every other special token control", () => {
    const info = load({ textSpecialTokens: ["<|begin_of_text|>"] });
    expect(info.kind(12)).toBe(T);
    expect(load().kind(12)).toBe(C);
    // Explicitly listing a detected stop token makes it text instead.
    const text = load({ textSpecialTokens: ["<|endoftext|>"] });
    expect(text.kind(10)).toBe(T);
    expect([...text.stopTokenIds]).toEqual([]);
  });

  it("forbids tokens everywhere", () => {
    const info = load({ forbiddenTokens: ["!", 4, "<|endoftext|>"] });
    expect([0, 4, 10].map((id) => info.kind(id))).toEqual([C, C, C]);
    expect([...info.stopTokenIds]).toEqual([]);
    expect(info.kind(1)).toBe(N);
  });

  it("gives a kind to every token and keeps offsets consistent", () => {
    const info = load({ addedTokens: KIMI_K3_SPECIAL_TOKENS, vocabSize: 64 });
    const { kinds, offsets, bytes } = info.data;
    expect(offsets.length).toBe(kinds.length + 1);
    for (let i = 0; i < kinds.length; i++) expect(offsets[i + 1]! >= offsets[i]!).toBe(true);
    expect(offsets[kinds.length]).toBe(bytes.length);
    for (const id of info.stopTokenIds) expect(info.kind(id)).toBe(C);
  });

  const invalid: [string, TokenizerJsonOptions, string][] = [
    ["vocabSize too small", { vocabSize: 5 }, "options.vocabSize: 5 is smaller than the vocabulary's 13 tokens"],
    ["vocabSize not an integer", { vocabSize: 1.5 }, "options.vocabSize: expected a positive integer"],
    ["unknown stop token", { stopTokens: ["<|nope|>"] }, 'options.stopTokens[0]: no token "<|nope|>"'],
    ["stop id out of range", { stopTokens: [99] }, "options.stopTokens[0]: token id 99 is out of range"],
    ["unused stop id", { stopTokens: [8] }, "options.stopTokens[0]: no token has id 8"],
    ["stop of wrong type", { stopTokens: [true as unknown as number] }, "options.stopTokens[0]: expected a token id"],
    ["stop tokens not a list", { stopTokens: "x" as unknown as string[] }, "options.stopTokens: expected an array"],
    ["unknown text special", { textSpecialTokens: ["<|nope|>"] }, 'options.textSpecialTokens[0]: no special token "<|nope|>"'],
    ["text and stop at once", { textSpecialTokens: ["<|endoftext|>"], stopTokens: ["<|endoftext|>"] }, "is also listed in options.stopTokens"],
    ["unknown forbidden", { forbiddenTokens: ["zzz"] }, 'options.forbiddenTokens[0]: no token "zzz"'],
    ["empty added token", { addedTokens: [""] }, "options.addedTokens[0]: expected a non-empty token text"],
    ["added token twice", { addedTokens: ["<a>", "<a>"] }, 'options.addedTokens[1]: "<a>" is listed twice'],
    ["added special flag", { addedTokens: [{ content: "<a>", special: "yes" as unknown as boolean }] }, "options.addedTokens[0].special"],
    ["vocabType", { vocabType: "bpe" as unknown as "raw" }, "options.vocabType: expected one of byte_level, sentencepiece, raw"],
  ];
  it.each(invalid)("%s → InvalidArgumentError", (_, options, message) => {
    expect(() => load(options)).toThrow(InvalidArgumentError);
    expect(() => load(options)).toThrow(message);
  });

  it("checks token ids on every accessor", () => {
    const info = load();
    for (const bad of [-1, 13.5, 13, Number.NaN]) {
      expect(() => info.tokenBytes(bad)).toThrow(/token id .* is out of range \(expected an integer in \[0, 13\)\)/);
      expect(() => info.tokenText(bad)).toThrow(InvalidArgumentError);
      expect(() => info.kind(bad)).toThrow(InvalidArgumentError);
      expect(() => info.isStopToken(bad)).toThrow(InvalidArgumentError);
    }
  });

  it("hands out copies, so callers cannot corrupt the vocabulary", () => {
    const info = load();
    info.tokenBytes(4).fill(0);
    info.stopTokenIds.fill(0);
    expect(info.tokenText(4)).toBe(" hello");
    expect([...info.stopTokenIds]).toEqual([10]);
  });
});

describe("TokenizerInfo.fromTokens", () => {
  it("decodes byte-level strings and detects stop tokens by text", () => {
    const info = TokenizerInfo.fromTokens(["a", "\u0120b", "\u010a", "<|eot_id|>", null, "<|begin_of_text|>"], {
      vocabType: "byte_level",
      specialTokens: ["<|begin_of_text|>"],
    });
    expect(info.tokenCount).toBe(6);
    expect(info.tokenText(1)).toBe(" b");
    expect(info.tokenText(2)).toBe("\n");
    expect([...info.stopTokenIds]).toEqual([3]);
    expect([0, 1, 2, 3, 4, 5].map((id) => info.kind(id))).toEqual([N, N, N, C, C, C]);
    expect(info.tokenId("<|begin_of_text|>")).toBe(5);
  });

  it("decodes SentencePiece pieces; special tokens keep their literal text", () => {
    const info = TokenizerInfo.fromTokens(["<unk>", "<s>", "</s>", "<0x0A>", "\u2581hi", "\u2581<0x0A>"], {
      vocabType: "sentencepiece",
      specialTokens: [0, 1, 2],
    });
    expect(info.tokenText(3)).toBe("\n");
    expect(info.tokenText(4)).toBe(" hi");
    expect(info.tokenText(5)).toBe(" <0x0A>");
    expect(info.tokenText(2)).toBe("</s>");
    expect([...info.stopTokenIds]).toEqual([2]);
    expect([0, 1, 2].map((id) => info.kind(id))).toEqual([C, C, C]);
  });

  it("takes raw strings and byte arrays as they are", () => {
    const info = TokenizerInfo.fromTokens(["\u2581x", Uint8Array.of(0xff, 0x41), "", "<|open|>"], {
      vocabType: "raw",
      specialTokens: ["<|open|>"],
      addedTokens: ["<|close|>"],
    });
    expect(Buffer.from(info.tokenBytes(0)).toString("hex")).toBe("e2968178");
    expect(Buffer.from(info.tokenBytes(1)).toString("hex")).toBe("ff41");
    // An empty token can never be produced: control.
    expect(info.kind(2)).toBe(C);
    expect(info.kind(3)).toBe(T);
    expect(info.kind(4)).toBe(T);
  });

  const invalid: [string, unknown, unknown, string][] = [
    ["not a list", "abc", { vocabType: "raw" }, "tokens: expected an array"],
    ["missing vocab type", ["a"], {}, "options.vocabType: expected one of"],
    ["bad entry", ["a", 5], { vocabType: "raw" }, "tokens[1]: expected a string, a Uint8Array or null"],
    ["unknown special", ["a"], { vocabType: "raw", specialTokens: ["b"] }, 'options.specialTokens[0]: "b" is not a token of the list'],
    ["special id out of range", ["a"], { vocabType: "raw", specialTokens: [3] }, "options.specialTokens[0]: 3 is not a token of the list"],
  ];
  it.each(invalid)("%s → InvalidArgumentError", (_, tokens, options, message) => {
    const call = (): TokenizerInfo => TokenizerInfo.fromTokens(tokens as string[], options as { vocabType: "raw" });
    expect(call).toThrow(InvalidArgumentError);
    expect(call).toThrow(message);
  });

  it("keeps a leading byte-order mark in token text", () => {
    const info = TokenizerInfo.fromTokens(["\ufeffx"], { vocabType: "raw" });
    expect(info.tokenText(0)).toBe("\ufeffx");
  });

  it("rejects an empty list", () => {
    expect(() => TokenizerInfo.fromTokens([null, null], { vocabType: "raw" })).toThrow("the token list is empty");
  });
});
