import type { Token } from "node-llama-cpp";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TagmaskError } from "../../lib/errors.js";
import { toHalf, writeGguf, type GgufValue } from "../../lib/integrations/node-llama-cpp/gguf-writer.js";
import { probeModelFile, writeTinyModel } from "../../lib/integrations/node-llama-cpp/tiny-model.js";
import { ConstrainedLlama } from "../../lib/integrations/node-llama-cpp/constrained-llama.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { TokenKind } from "../../lib/tokenizer/vocabulary.js";
import { encodeForTest, loadTestVocabulary, tokenizerJsonPath } from "../helpers/vocab.js";
import { runCli, scratchDir } from "../helpers/cli.js";
import { loadTinyModel } from "./tiny-llama.js";

const scratch = scratchDir("gguf").dir;

describe("GGUF writer", () => {
  it("converts floats to half precision with round-to-nearest-even", () => {
    const table: [number, number][] = [
      [0, 0x0000], [-0, 0x8000], [1, 0x3c00], [-2, 0xc000], [0.5, 0x3800], [65504, 0x7bff], [65520, 0x7c00],
      [1e-8, 0x0000], [5.960464477539063e-8, 0x0001], [6.103515625e-5, 0x0400], [Infinity, 0x7c00], [-Infinity, 0xfc00],
      [1 + 2 ** -11, 0x3c00], [1 + 3 * 2 ** -11, 0x3c02], [0.1, 0x2e66],
    ];
    for (const [value, bits] of table) expect(toHalf(value).toString(16), String(value)).toBe(bits.toString(16));
    expect(toHalf(Number.NaN) & 0x7c00).toBe(0x7c00);
    expect(toHalf(Number.NaN) & 0x3ff).not.toBe(0);
  });

  it("writes the header, key/values, tensor infos and aligned data", () => {
    const file = join(scratch, "small.gguf");
    const meta = new Map<string, GgufValue>([
      ["a.u32", { type: "u32", value: 7 }],
      ["a.str", { type: "string", value: "hé" }],
      ["a.arr", { type: "array", itemType: "i32", value: [1, -2] }],
    ]);
    const size = writeGguf(file, meta, [{ name: "t", dims: [3], type: "f32", data: Float32Array.of(1, 2, 3) }]);
    const buf = readFileSync(file);
    expect(buf.length).toBe(size);
    expect(buf.subarray(0, 4).toString("latin1")).toBe("GGUF");
    expect(buf.readUInt32LE(4)).toBe(3);
    expect(buf.readBigUInt64LE(8)).toBe(1n);
    expect(buf.readBigUInt64LE(16)).toBe(3n);
    // First key: u64 length 5, "a.u32", type 4 (u32), value 7.
    expect(buf.readBigUInt64LE(24)).toBe(5n);
    expect(buf.subarray(32, 37).toString()).toBe("a.u32");
    expect(buf.readUInt32LE(37)).toBe(4);
    expect(buf.readUInt32LE(41)).toBe(7);
    // The tensor data is the last 32-byte aligned block.
    const dataStart = buf.length - 32;
    expect(dataStart % 32).toBe(0);
    expect([buf.readFloatLE(dataStart), buf.readFloatLE(dataStart + 4), buf.readFloatLE(dataStart + 8)]).toEqual([1, 2, 3]);
    expect(() => writeGguf(file, meta, [{ name: "t", dims: [4], type: "f32", data: Float32Array.of(1) }])).toThrow("1 values for dimensions [4]");
  });

  it("reports a file node-llama-cpp cannot load without crashing this process", () => {
    const file = join(scratch, "broken.gguf");
    // No feed-forward length or head count: llama.cpp aborts the loading process.
    writeGguf(file, new Map<string, GgufValue>([["general.architecture", { type: "string", value: "llama" }]]), []);
    expect(() => probeModelFile(file)).toThrow(TagmaskError);
    expect(() => probeModelFile(join(scratch, "missing.gguf"))).toThrow(/could not load/);
  });
});

describe("tagmask make-tiny-model", () => {
  it("writes a loadable model where --out says", async () => {
    const file = join(scratch, "cli.gguf");
    const first = await runCli(["make-tiny-model", "--out", file, "--seed", "7"]);
    // Progress, and nothing else, on stderr.
    expect(first.stderr).toContain(`tagmask make-tiny-model: generating the tiny model (first run only) into ${file}\n`);
    expect(first.stderr).toMatch(/tagmask make-tiny-model: vocabulary: 128256 tokens, 280147 merges from /);
    expect(first.stderr).toMatch(/tagmask make-tiny-model: written 24\.\d MB of 24\.\d MB\n/);
    expect(first.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("tagmask make-tiny-model: "))).toEqual([]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^wrote .*cli\.gguf \(24\.\d MB, 128260 tokens, /);
    const again = await runCli(["make-tiny-model", "--out", file]);
    expect(again.stdout).toContain("exists");
  });

  it.each([
    [["--seed", "x"], "--seed must be an integer"],
    [["--bogus"], "unknown option --bogus"],
    [["extra"], "unexpected argument \"extra\""],
    [["--out", "x.gguf", "--tokenizer", "/nonexistent/tokenizer.json"], "cannot read the tokenizer"],
  ])("%j → exit 2 with a one-line reason", async (args, message) => {
    const res = await runCli(["make-tiny-model", ...args]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(message);
  });
});

describe("the tiny model", () => {
  it("loads in node-llama-cpp and tokenizes like the npm Llama 3 tokenizer", async () => {
    const { model, path } = await loadTinyModel();
    expect(existsSync(path)).toBe(true);
    const texts = [
      "Hello, world!",
      "  héllo 你好\n\n  x 🤖",
      '<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Paris<|close|>argument<|sep|>',
      '{"y": -1.5e3, "items": ["a\\"b"]}\t12345',
    ];
    for (const text of texts) {
      // With special tokens parsed, node-llama-cpp turns the K3 markers into their tokens, as encodeForTest does.
      expect(Array.from(model.tokenize(text, true)), text).toEqual(encodeForTest("llama3", text));
    }
    expect(model.fileInfo.metadata.general.architecture).toBe("llama");
  });

  it("has the same vocabulary through TokenizerInfo.fromLlamaModel as from tokenizer.json", async () => {
    const { model } = await loadTinyModel();
    const fromModel = TokenizerInfo.fromLlamaModel(model);
    const fromJson = loadTestVocabulary("llama3", { kimiMarkers: true });
    expect(fromModel.vocabType).toBe("byte_level");
    expect(fromModel.vocabSize).toBe(128_260);
    expect(fromModel.tokenCount).toBe(fromJson.tokenCount);
    expect(Buffer.compare(Buffer.from(fromModel.data.offsets.buffer), Buffer.from(fromJson.data.offsets.buffer))).toBe(0);
    expect(Buffer.compare(Buffer.from(fromModel.data.bytes), Buffer.from(fromJson.data.bytes))).toBe(0);
    expect(Buffer.compare(Buffer.from(fromModel.data.kinds), Buffer.from(fromJson.data.kinds))).toBe(0);
    expect([...fromModel.stopTokenIds]).toEqual([...fromJson.stopTokenIds]);
    expect([...fromModel.stopTokenIds].map((id) => fromModel.tokenText(id))).toEqual(["<|end_of_text|>", "<|eot_id|>", "<|end_of_msg|>"]);
  });
});

describe("a tiny model from another tokenizer.json", () => {
  it("tokenizes like the npm Qwen3 tokenizer (pre-tokenizer qwen2 detected)", async () => {
    const { llama } = await loadTinyModel();
    const file = join(scratch, "qwen3.gguf");
    const { tokens } = writeTinyModel(file, { tokenizer: tokenizerJsonPath("qwen3"), shape: { embedding: 16, heads: 2, feedForward: 32, contextLength: 256 } });
    expect(tokens).toBe(151_673);
    probeModelFile(file);
    const model = await llama.loadModel({ modelPath: file });
    try {
      for (const text of ["Hello, world!", "  héllo 你好\n\n  x 12345 🤖", '<|open|>call tool="add"<|sep|>{"x": 1.5}<|close|>call<|sep|>']) {
        expect(Array.from(model.tokenize(text, true)), text).toEqual(encodeForTest("qwen3", text));
      }
      expect(model.fileInfo.metadata.tokenizer.ggml.pre).toBe("qwen2");
    } finally {
      await model.dispose();
    }
  });
});

describe("a SentencePiece model", () => {
  it("loads, tokenizes with ▁ and byte fallback, and reads back through fromLlamaModel", async () => {
    const { llama } = await loadTinyModel();
    // SentencePiece merges pairs of pieces: "▁cat" is reached as "▁c" + "at".
    const pieces = ["\u2581", "\u2581t", "he", "\u2581the", "\u2581cat", "\u00e9", "s", "\u2581a", "a", "t", "c", "\u2581c", "h", "e", "at"];
    const bytes = Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
    const tokens = ["<unk>", "<s>", "</s>", ...bytes, ...pieces, "<|open|>", "<|close|>"];
    const types = [2, 3, 3, ...bytes.map(() => 6), ...pieces.map(() => 1), 3, 3];
    const scores = tokens.map((t, i) => (i < 259 ? 0 : -(i - 258) / 10 - (t.length === 1 ? 5 : 0)));
    const file = join(scratch, "spm.gguf");
    writeTinyModel(file, { vocabulary: { model: "llama", tokens, types, scores, bosId: 1, eosId: 2, unknownId: 0 }, shape: { contextLength: 256 } });
    probeModelFile(file);
    const model = await llama.loadModel({ modelPath: file });
    try {
      const id = (t: string): number => tokens.indexOf(t);
      expect(Array.from(model.tokenize("the cat"))).toEqual([id("\u2581the"), id("\u2581cat")]);
      // "ü" is no piece: byte fallback, two byte tokens.
      expect(Array.from(model.tokenize("\u00fc"))).toEqual([id("\u2581"), id("<0xC3>"), id("<0xBC>")]);
      const info = TokenizerInfo.fromLlamaModel(model);
      expect(info.vocabType).toBe("sentencepiece");
      expect(info.tokenCount).toBe(tokens.length);
      expect(info.tokenText(id("\u2581the"))).toBe(" the");
      expect(Buffer.from(info.tokenBytes(id("<0xC3>"))).toString("hex")).toBe("c3");
      expect(info.tokenText(id("<0x0A>"))).toBe("\n");
      expect([...info.stopTokenIds]).toEqual([2]);
      expect([0, 1, 2].map((t) => info.kind(t))).toEqual([TokenKind.Control, TokenKind.Control, TokenKind.Control]);
      expect(info.kind(id("<|open|>"))).toBe(TokenKind.SpecialText);
      expect(info.kind(id("<|close|>"))).toBe(TokenKind.SpecialText);
      // The engine and the generation loop on a SentencePiece vocabulary.
      const session = await ConstrainedLlama.create(model);
      const grammar = await session.grammar({ type: "structural_tag", format: { type: "regex", pattern: "(the|a) cat( (the|a) cat){0,3}" } });
      const context = await model.createContext({ contextSize: 128, sequences: 1 });
      try {
        const sequence = context.getSequence();
        for (let seed = 1; seed <= 5; seed++) {
          await sequence.clearHistory();
          const result = await session.generate(sequence, [1 as Token], grammar, { seed, temperature: 1, maxTokens: 60 });
          expect(result.text).toMatch(/^(the|a) cat( (the|a) cat){0,3}$/);
          expect(["grammar-end", "stop-token"]).toContain(result.stopReason);
        }
      } finally {
        await context.dispose();
      }
    } finally {
      await model.dispose();
    }
  });
});
