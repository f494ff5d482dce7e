import { describe, expect, it } from "vitest";
import {
  BYTE_TO_UNICODE,
  byteFallbackValue,
  decodeTokenString,
  encodeByteLevel,
  type VocabType,
} from "../../lib/tokenizer/token-bytes.js";

/** The GPT-2 byte alphabet built the way its original description builds it, independently of the library's table. */
function referenceByteToUnicode(): Map<number, number> {
  const bs: number[] = [];
  for (let b = "!".charCodeAt(0); b <= "~".charCodeAt(0); b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n);
      n++;
    }
  }
  return new Map(bs.map((b, i) => [b, cs[i]!]));
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

describe("GPT-2 byte-level alphabet", () => {
  it("matches the reference construction for all 256 bytes", () => {
    const ref = referenceByteToUnicode();
    for (let b = 0; b < 256; b++) expect(BYTE_TO_UNICODE[b], `byte ${b}`).toBe(ref.get(b));
  });

  it("round-trips every byte through encode and decode", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(hex(decodeTokenString("byte_level", encodeByteLevel(all)))).toBe(hex(all));
  });
});

describe("token string decoding", () => {
  const cases: [VocabType, string, string][] = [
    ["byte_level", "\u0120hello", "2068656c6c6f"],
    ["byte_level", "\u010a", "0a"],
    ["byte_level", "\u00c3\u00a9", "c3a9"],
    ["byte_level", "\u00e4\u00bd", "e4bd"],
    ["byte_level", "\u0142", "a0"],
    ["byte_level", "\u0143", "ad"],
    ["byte_level", "\u0100", "00"],
    ["byte_level", "<|eot_id|>", Buffer.from("<|eot_id|>").toString("hex")],
    // Not in the alphabet: kept as its own UTF-8 text.
    ["byte_level", "\u4f60", "e4bda0"],
    ["byte_level", " ", "20"],
    ["sentencepiece", "\u2581the", "20746865"],
    ["sentencepiece", "\u2581\u2581", "2020"],
    ["sentencepiece", "<0x0A>", "0a"],
    ["sentencepiece", "<0xff>", "ff"],
    ["sentencepiece", "<0xZZ>", Buffer.from("<0xZZ>").toString("hex")],
    ["sentencepiece", "<0x0A", Buffer.from("<0x0A").toString("hex")],
    ["sentencepiece", "x\u2581", "7820"],
    ["sentencepiece", "caf\u00e9", "636166c3a9"],
    ["raw", "\u2581\u0120<0x0A>", Buffer.from("\u2581\u0120<0x0A>").toString("hex")],
    ["raw", "\ud83d\ude00", "f09f9880"],
  ];
  it.each(cases)("%s %j → %s", (type, token, expected) => {
    expect(hex(decodeTokenString(type, token))).toBe(expected);
  });

  it("recognizes only exact <0xXX> pieces as byte fallback", () => {
    const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
    const table: [string, number][] = [["<0x00>", 0], ["<0x7f>", 0x7f], ["<0xAb>", 0xab], ["<0x0G>", -1], ["<0x000>", -1], ["(0x00>", -1], ["<0X00>", -1]];
    for (const [s, v] of table) expect(byteFallbackValue(enc(s), 0, enc(s).length), s).toBe(v);
  });
});
