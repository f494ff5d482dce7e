/**
 * Token string → bytes for the three vocabulary encodings tagmask reads:
 *
 * - `byte_level`: GPT-2 style byte-level BPE. Every byte is written as one printable code point
 *   (bytes that are already printable Latin-1 stand for themselves, the other 68 are shifted to
 *   U+0100–U+0143), so `Ġ` is a space and `Ċ` a newline.
 * - `sentencepiece`: `▁` (U+2581) is a space and `<0xXX>` byte-fallback pieces are one raw byte.
 * - `raw`: the token string's UTF-8 bytes as they are.
 *
 * The decoders work on the UTF-8 bytes of the token string (as read from a file) and write the
 * token's output bytes; the output is never longer than the input, which lets the loaders decode
 * a whole vocabulary into one preallocated buffer.
 */

/** How a vocabulary writes token bytes as strings. */
export type VocabType = "byte_level" | "sentencepiece" | "raw";

/** The vocabulary types, for validating options. */
export const VOCAB_TYPES: readonly VocabType[] = ["byte_level", "sentencepiece", "raw"];

function isPrintableLatin1(b: number): boolean {
  return (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
}

/** Byte → code point of the GPT-2 byte-level alphabet. */
export const BYTE_TO_UNICODE: readonly number[] = (() => {
  const table = new Array<number>(256);
  let shifted = 0;
  for (let b = 0; b < 256; b++) table[b] = isPrintableLatin1(b) ? b : 0x100 + shifted++;
  return table;
})();

/** Code point (< 0x144) → byte, -1 where the code point is not in the alphabet. */
const UNICODE_TO_BYTE: Int16Array = (() => {
  const table = new Int16Array(0x144).fill(-1);
  BYTE_TO_UNICODE.forEach((cp, b) => {
    table[cp] = b;
  });
  return table;
})();

/** Encodes bytes in the byte-level alphabet (the inverse of {@link decodeByteLevelString}). */
export function encodeByteLevel(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += String.fromCharCode(BYTE_TO_UNICODE[b]!);
  return out;
}

/**
 * Length in bytes of the UTF-8 sequence starting with lead byte `b` at `src[i]`, or 1 when the
 * sequence is malformed (the byte is then copied through unchanged).
 */
function utf8Length(src: Uint8Array, i: number, end: number): number {
  const b = src[i]!;
  const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 1;
  if (n === 1 || i + n > end) return 1;
  for (let k = 1; k < n; k++) if ((src[i + k]! & 0xc0) !== 0x80) return 1;
  return n;
}

/**
 * Decodes one byte-level token string (its UTF-8 bytes `src[start, end)`) into `out` at `at`;
 * returns the new write position. Code points outside the alphabet (some vocabularies carry a
 * few) are copied as their UTF-8 bytes: they then stand for their own text.
 */
export function decodeByteLevelInto(src: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  let i = start;
  while (i < end) {
    const b = src[i]!;
    if (b < 0x80) {
      // ASCII: printable characters stand for themselves; control characters and space are not
      // in the alphabet and pass through unchanged.
      out[at++] = b;
      i++;
      continue;
    }
    const n = utf8Length(src, i, end);
    if (n === 2) {
      const cp = ((b & 0x1f) << 6) | (src[i + 1]! & 0x3f);
      const mapped = cp < 0x144 ? UNICODE_TO_BYTE[cp]! : -1;
      if (mapped >= 0) {
        out[at++] = mapped;
        i += 2;
        continue;
      }
    }
    for (let k = 0; k < n; k++) out[at++] = src[i + k]!;
    i += n;
  }
  return at;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

/**
 * If `src[start, end)` is a byte-fallback piece `<0xXX>`, its byte value; otherwise -1.
 */
export function byteFallbackValue(src: Uint8Array, start: number, end: number): number {
  if (end - start !== 6) return -1;
  if (src[start] !== 0x3c || src[start + 1] !== 0x30 || src[start + 2] !== 0x78 || src[start + 5] !== 0x3e) return -1;
  const hi = hexValue(src[start + 3]!);
  const lo = hexValue(src[start + 4]!);
  return hi < 0 || lo < 0 ? -1 : (hi << 4) | lo;
}

/**
 * Decodes one SentencePiece piece into `out` at `at`: `<0xXX>` becomes that byte, every `▁`
 * (E2 96 81) a space, everything else is copied. Returns the new write position.
 */
export function decodeSentencePieceInto(src: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  const byte = byteFallbackValue(src, start, end);
  if (byte >= 0) {
    out[at] = byte;
    return at + 1;
  }
  let i = start;
  while (i < end) {
    if (src[i] === 0xe2 && i + 2 < end && src[i + 1] === 0x96 && src[i + 2] === 0x81) {
      out[at++] = 0x20;
      i += 3;
    } else {
      out[at++] = src[i++]!;
    }
  }
  return at;
}

/** Decodes a token string of the given vocabulary type into `out` at `at`; returns the new position. */
export function decodeTokenInto(type: VocabType, src: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  switch (type) {
    case "byte_level":
      return decodeByteLevelInto(src, start, end, out, at);
    case "sentencepiece":
      return decodeSentencePieceInto(src, start, end, out, at);
    case "raw":
      out.set(src.subarray(start, end), at);
      return at + (end - start);
  }
}

const encoder = new TextEncoder();

/** Decodes one token string of the given vocabulary type to its output bytes. */
export function decodeTokenString(type: VocabType, token: string): Uint8Array {
  const src = encoder.encode(token);
  const out = new Uint8Array(src.length);
  const n = decodeTokenInto(type, src, 0, src.length, out, 0);
  return out.subarray(0, n);
}
