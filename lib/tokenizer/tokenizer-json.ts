/**
 * Reading a Hugging Face `tokenizer.json` into a {@link TokenTable}: the model's vocabulary
 * (BPE `{token: id}` or Unigram `[[piece, score], …]`), the added tokens with their `special`
 * flag, and the vocabulary type (byte-level, SentencePiece or raw) detected from the decoder,
 * pre-tokenizer, normalizer and model settings.
 *
 * From bytes (a file), only the needed parts are read: everything before the vocabulary, the
 * vocabulary itself, and the merges only when something still needed might follow them.
 */
import { TokenizerError } from "../errors.js";
import { JsonCursor } from "./json-cursor.js";
import { TokenCollector, withAddedTokens, type AddedToken, type TokenTable } from "./token-table.js";
import type { VocabType } from "./token-bytes.js";

/** What a tokenizer.json holds, as far as tagmask needs it. */
export interface TokenizerJsonContents {
  table: TokenTable;
  /** The detected (or requested) vocabulary type. */
  vocabType: VocabType;
}

interface Settings {
  normalizer?: unknown;
  preTokenizer?: unknown;
  decoder?: unknown;
  modelType?: unknown;
  byteFallback?: unknown;
  continuingSubwordPrefix?: unknown;
  endOfWordSuffix?: unknown;
  added?: unknown;
}

const ROOT_KEYS = ["added_tokens", "normalizer", "pre_tokenizer", "decoder"] as const;

/** Collects every `type` name and Replace/Metaspace marker found in a (small) settings object. */
function collectTypes(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectTypes(v, out);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const obj = value as Record<string, unknown>;
  if (typeof obj.type === "string") out.add(obj.type);
  // Replace " " ↔ "▁" and Prepend "▁" are how SentencePiece-style files spell the space marker.
  for (const key of ["content", "prepend", "replacement"]) {
    if (obj[key] === "\u2581") out.add("▁");
  }
  const pattern = obj.pattern as { String?: unknown } | undefined;
  if (pattern && pattern.String === "\u2581") out.add("▁");
  for (const [key, v] of Object.entries(obj)) {
    if (key !== "type" && v !== null && typeof v === "object") collectTypes(v, out);
  }
}

/**
 * The vocabulary type implied by the settings, or undefined when it depends on settings not read
 * yet (`complete` false). Throws for model types tagmask cannot represent as token bytes.
 */
function detectVocabType(s: Settings, source: string, complete: boolean): VocabType | undefined {
  const modelType = s.modelType;
  if (modelType !== undefined && modelType !== "BPE" && modelType !== "Unigram") {
    throw new TokenizerError(
      `${source}: model.type: ${JSON.stringify(modelType)} vocabularies are not supported ` +
        `(expected "BPE" or "Unigram"); load the token strings with TokenizerInfo.fromTokens instead`,
    );
  }
  for (const [key, value] of [["continuing_subword_prefix", s.continuingSubwordPrefix], ["end_of_word_suffix", s.endOfWordSuffix]] as const) {
    if (value !== undefined && value !== null && value !== "") {
      throw new TokenizerError(`${source}: model.${key}: ${JSON.stringify(value)} is not supported (expected null or "")`);
    }
  }
  const decoding = new Set<string>();
  collectTypes(s.decoder, decoding);
  collectTypes(s.preTokenizer, decoding);
  if (decoding.has("ByteLevel")) return "byte_level";
  collectTypes(s.normalizer, decoding);
  if (modelType === "Unigram" || s.byteFallback === true || decoding.has("Metaspace") || decoding.has("ByteFallback") || decoding.has("▁")) {
    return "sentencepiece";
  }
  return complete ? "raw" : undefined;
}

function parseAddedTokens(value: unknown, source: string): AddedToken[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TokenizerError(`${source}: added_tokens: expected an array, found ${typeName(value)}`);
  return value.map((entry: unknown, i): AddedToken => {
    const path = `added_tokens[${i}]`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      throw new TokenizerError(`${source}: ${path}: expected an object with id, content and special, found ${typeName(entry)}`);
    }
    const { id, content, special } = entry as Record<string, unknown>;
    if (typeof id !== "number" || !Number.isInteger(id) || id < 0 || id > 0x7fffffff) {
      throw new TokenizerError(`${source}: ${path}.id: expected a non-negative integer, found ${JSON.stringify(id)}`);
    }
    if (typeof content !== "string" || content.length === 0) {
      throw new TokenizerError(`${source}: ${path}.content: expected a non-empty string, found ${JSON.stringify(content)}`);
    }
    if (special !== undefined && typeof special !== "boolean") {
      throw new TokenizerError(`${source}: ${path}.special: expected true or false, found ${JSON.stringify(special)}`);
    }
    return { id, content, special: special === true };
  });
}

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
}

function finishTable(collector: TokenCollector, s: Settings, source: string, requested: VocabType | undefined): TokenizerJsonContents {
  if (collector.size === 0) throw new TokenizerError(`${source}: model.vocab: the vocabulary is empty`);
  const vocabType = requested ?? detectVocabType(s, source, true)!;
  const table = withAddedTokens(collector.finish(vocabType, source), parseAddedTokens(s.added, source), source);
  return { table, vocabType };
}

/** Reads a tokenizer.json from its UTF-8 bytes. */
export function readTokenizerJsonBytes(buf: Uint8Array, source: string, requested?: VocabType): TokenizerJsonContents {
  const cur = new JsonCursor(buf, source);
  const s: Settings = {};
  const seen = new Set<string>();
  const collector = new TokenCollector();
  let haveModel = false;
  let haveVocab = false;
  const rootDone = (): boolean => ROOT_KEYS.every((k) => seen.has(k));

  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) cur.pos = 3;
  if (!cur.open(0x7b, 0x7d, "", "a JSON object ('{')")) cur.fail("", "the file is an empty object (expected model and added_tokens)");
  let more = true;
  while (more) {
    const key = cur.readString("");
    cur.expect(0x3a, key, "':'");
    switch (key) {
      case "added_tokens":
        s.added = cur.readValue(key);
        break;
      case "normalizer":
        s.normalizer = cur.readValue(key);
        break;
      case "pre_tokenizer":
        s.preTokenizer = cur.readValue(key);
        break;
      case "decoder":
        s.decoder = cur.readValue(key);
        break;
      case "model": {
        haveModel = true;
        const stopped = readModel(cur, s, collector, () => rootDone() && detectVocabType(s, source, false) !== undefined);
        haveVocab = collector.size > 0 || haveVocab;
        if (stopped) return finishTable(collector, s, source, requested);
        break;
      }
      default:
        cur.skipValue(key);
    }
    seen.add(key);
    more = cur.next(0x7d, key);
  }
  if (cur.ws() >= 0) cur.fail("", `unexpected ${cur.describe(cur.ws())} after the top-level object`);
  if (!haveModel) cur.fail("model", "missing (expected the tokenizer model with its vocab)", 0);
  if (!haveVocab && collector.size === 0) cur.fail("model.vocab", "missing or empty", 0);
  return finishTable(collector, s, source, requested);
}

/**
 * Reads the `model` object. Returns true when it stopped early at `merges` because nothing after
 * them is needed (`canStop()`); the cursor is then left inside the model.
 */
function readModel(cur: JsonCursor, s: Settings, collector: TokenCollector, canStop: () => boolean): boolean {
  if (!cur.open(0x7b, 0x7d, "model", "an object")) cur.fail("model", "the model object is empty (expected type and vocab)");
  let sawVocab = false;
  let more = true;
  while (more) {
    const key = cur.readString("model");
    const path = `model.${key}`;
    cur.expect(0x3a, path, "':'");
    switch (key) {
      case "type":
        s.modelType = cur.readValue(path);
        break;
      case "byte_fallback":
        s.byteFallback = cur.readValue(path);
        break;
      case "continuing_subword_prefix":
        s.continuingSubwordPrefix = cur.readValue(path);
        break;
      case "end_of_word_suffix":
        s.endOfWordSuffix = cur.readValue(path);
        break;
      case "vocab":
        readVocab(cur, collector);
        sawVocab = true;
        break;
      case "merges":
        if (sawVocab && s.modelType !== undefined && canStop()) return true;
        cur.skipValue(path);
        break;
      default:
        cur.skipValue(path);
    }
    more = cur.next(0x7d, path);
  }
  return false;
}

function readVocab(cur: JsonCursor, collector: TokenCollector): void {
  const c = cur.ws();
  if (c === 0x7b) {
    // BPE / WordPiece: {"token": id, …}
    if (!cur.open(0x7b, 0x7d, "model.vocab", "an object")) return;
    let more = true;
    while (more) {
      collector.readFromCursor(cur, "model.vocab");
      cur.expect(0x3a, "model.vocab", "':'");
      collector.commit(cur.readIndex("model.vocab"));
      more = cur.next(0x7d, "model.vocab");
    }
    return;
  }
  if (c === 0x5b) {
    // Unigram: [["piece", score], …]; the id is the position.
    if (!cur.open(0x5b, 0x5d, "model.vocab", "an array")) return;
    let index = 0;
    let more = true;
    while (more) {
      const path = `model.vocab[${index}]`;
      cur.expect(0x5b, path, "a [piece, score] pair");
      collector.readFromCursor(cur, `${path}[0]`);
      collector.commit(index);
      cur.expect(0x2c, path, "','");
      cur.skipValue(`${path}[1]`);
      cur.expect(0x5d, path, "']'");
      index++;
      more = cur.next(0x5d, "model.vocab");
    }
    return;
  }
  cur.fail("model.vocab", `expected an object or an array, found ${cur.describe(c)}`);
}

/** Reads an already parsed tokenizer.json object. */
export function readTokenizerJsonObject(json: unknown, source: string, requested?: VocabType): TokenizerJsonContents {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new TokenizerError(`${source}: expected a tokenizer.json object, found ${typeName(json)}`);
  }
  const root = json as Record<string, unknown>;
  const model = root.model;
  if (model === null || typeof model !== "object" || Array.isArray(model)) {
    throw new TokenizerError(`${source}: model: expected the tokenizer model object, found ${typeName(model)}`);
  }
  const m = model as Record<string, unknown>;
  const s: Settings = {
    normalizer: root.normalizer,
    preTokenizer: root.pre_tokenizer,
    decoder: root.decoder,
    modelType: m.type,
    byteFallback: m.byte_fallback,
    continuingSubwordPrefix: m.continuing_subword_prefix,
    endOfWordSuffix: m.end_of_word_suffix,
    added: root.added_tokens,
  };
  const collector = new TokenCollector();
  const vocab = m.vocab;
  if (Array.isArray(vocab)) {
    vocab.forEach((entry: unknown, i) => {
      const piece = Array.isArray(entry) ? entry[0] : undefined;
      if (typeof piece !== "string") throw new TokenizerError(`${source}: model.vocab[${i}]: expected a [piece, score] pair`);
      collector.addString(i, piece);
    });
  } else if (vocab !== null && typeof vocab === "object") {
    for (const [token, id] of Object.entries(vocab as Record<string, unknown>)) {
      if (typeof id !== "number" || !Number.isInteger(id) || id < 0 || id > 0x7fffffff) {
        throw new TokenizerError(`${source}: model.vocab[${JSON.stringify(token)}]: expected a non-negative integer token id, found ${JSON.stringify(id)}`);
      }
      collector.addString(id, token);
    }
  } else {
    throw new TokenizerError(`${source}: model.vocab: expected an object or an array, found ${typeName(vocab)}`);
  }
  return finishTable(collector, s, source, requested);
}
