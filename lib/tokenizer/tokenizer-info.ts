/**
 * {@link TokenizerInfo}: a model's vocabulary as the engine needs it — every token id's output
 * bytes, which tokens are text, which are control tokens, which end generation — loaded from a
 * Hugging Face tokenizer.json, a plain token list, or a node-llama-cpp model.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidArgumentError, TagmaskError, TokenizerError } from "../errors.js";
import { native as loadNative, type NativeTokenizerInfoHandle } from "../native.js";
import { FileReadFailure, readRegularFile } from "../regular-file.js";
import { readLlamaModelVocabulary, type LlamaModelVocabularySource } from "./llama-model.js";
import { buildVocabulary, lookupToken, type TokenRef, type VocabularyOptions } from "./build-vocabulary.js";
import { TokenCollector, TokenFlag, type TokenTable } from "./token-table.js";
import { VOCAB_TYPES, type VocabType } from "./token-bytes.js";
import { readTokenizerJsonBytes, readTokenizerJsonObject } from "./tokenizer-json.js";
import { TokenKind, type VocabularyData } from "./vocabulary.js";

/** Options of {@link TokenizerInfo.fromTokenizerJson}. */
export interface TokenizerJsonOptions extends VocabularyOptions {
  /** Overrides the vocabulary type detected from the file's decoder and model settings. */
  vocabType?: VocabType;
  /**
   * The tokenizer_config.json (path or parsed object) whose `eos_token` joins the default stop
   * tokens. Default: the `tokenizer_config.json` next to a tokenizer.json given by path, if any;
   * `null` reads none.
   */
  tokenizerConfig?: string | Record<string, unknown> | null;
}

/** Options of {@link TokenizerInfo.fromTokens}. */
export interface TokenListOptions extends VocabularyOptions {
  /** How the token strings encode bytes. */
  vocabType: VocabType;
  /**
   * Tokens the list marks special (by id, or by their exact string in the list): their string is
   * literal text, and they are control tokens unless named in `textSpecialTokens`.
   */
  specialTokens?: readonly TokenRef[];
}

/** The native TokenizerInfo handle (the token tries live there). */
export type NativeTokenizerInfo = NativeTokenizerInfoHandle;

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * A vocabulary for the engine. Build one with {@link TokenizerInfo.fromTokenizerJson},
 * {@link TokenizerInfo.fromTokens} or {@link TokenizerInfo.fromLlamaModel}, then
 * compile grammars against it.
 *
 * @example
 * const info = TokenizerInfo.fromTokenizerJson("tokenizer.json", {
 *   addedTokens: ["<|open|>", "<|sep|>", "<|close|>", "<|end_of_msg|>"],
 * });
 * info.tokenText(info.stopTokenIds[0]!); // "<|end_of_text|>"
 */
export class TokenizerInfo {
  /** The plain data handed to the native side. Treat it as read-only. */
  readonly data: VocabularyData;
  /** How the source encoded token bytes. */
  readonly vocabType: VocabType;
  private readonly table: TokenTable;
  private handle: NativeTokenizerInfo | undefined;

  private constructor(table: TokenTable, data: VocabularyData, vocabType: VocabType) {
    this.table = table;
    this.data = data;
    this.vocabType = vocabType;
  }

  /** Builds from a table a loader produced (used by the loaders in this package). */
  static fromTable(table: TokenTable, vocabType: VocabType, options: VocabularyOptions, defaults: Parameters<typeof buildVocabulary>[2] = {}): TokenizerInfo {
    const { table: full, data } = buildVocabulary(table, options, defaults);
    return new TokenizerInfo(full, data, vocabType);
  }

  /**
   * Loads a Hugging Face tokenizer.json: a file path (or `file:` URL), its JSON text, its bytes,
   * or the parsed object. Byte-level BPE, SentencePiece (BPE with byte fallback, Unigram) and
   * plain vocabularies are detected from the file; added tokens keep their `special` flag.
   */
  static fromTokenizerJson(source: string | URL | Uint8Array | object, options: TokenizerJsonOptions = {}): TokenizerInfo {
    if (options === null || typeof options !== "object") throw new InvalidArgumentError("options: expected an object");
    if (options.vocabType !== undefined && !VOCAB_TYPES.includes(options.vocabType)) {
      throw new InvalidArgumentError(`options.vocabType: expected one of ${VOCAB_TYPES.join(", ")}, found ${JSON.stringify(options.vocabType)}`);
    }
    let contents;
    let configPath: string | undefined;
    if (source instanceof Uint8Array) {
      contents = readTokenizerJsonBytes(source, "tokenizer.json", options.vocabType);
    } else if (typeof source === "string" && /^\s*\{/.test(source)) {
      contents = readTokenizerJsonBytes(Buffer.from(source, "utf8"), "tokenizer.json", options.vocabType);
    } else if (typeof source === "string" || source instanceof URL) {
      const path = typeof source === "string" ? source : fileURLToPath(source);
      contents = readTokenizerJsonBytes(readFile(path), path, options.vocabType);
      configPath = join(dirname(path), "tokenizer_config.json");
    } else {
      contents = readTokenizerJsonObject(source, "tokenizer.json", options.vocabType);
    }
    const eosNames =
      options.tokenizerConfig === undefined ? eosFromConfig(configPath, false) : eosFromConfig(options.tokenizerConfig, true);
    return TokenizerInfo.fromTable(contents.table, contents.vocabType, options, { eosNames });
  }

  /**
   * Builds from a list of token strings indexed by id, encoded as `vocabType` says (`Ġ` for a
   * space in byte-level vocabularies, `▁` and `<0xXX>` in SentencePiece ones, plain text for raw).
   * A `Uint8Array` entry gives a token's bytes directly; `null` leaves an id unused. Default stop
   * tokens are detected among all tokens by their text.
   */
  static fromTokens(tokens: readonly (string | Uint8Array | null | undefined)[], options: TokenListOptions): TokenizerInfo {
    if (!Array.isArray(tokens)) throw new InvalidArgumentError(`tokens: expected an array of token strings, found ${typeof tokens}`);
    if (options === null || typeof options !== "object" || !VOCAB_TYPES.includes(options.vocabType)) {
      throw new InvalidArgumentError(`options.vocabType: expected one of ${VOCAB_TYPES.join(", ")}, found ${JSON.stringify(options?.vocabType)}`);
    }
    const special = new Set<number>();
    if (options.specialTokens !== undefined) {
      if (!Array.isArray(options.specialTokens)) throw new InvalidArgumentError("options.specialTokens: expected an array of token ids or strings");
      options.specialTokens.forEach((ref: unknown, i) => {
        const path = `options.specialTokens[${i}]`;
        const id = typeof ref === "number" ? ref : typeof ref === "string" ? tokens.indexOf(ref) : -2;
        if (id === -2) throw new InvalidArgumentError(`${path}: expected a token id or string, found ${JSON.stringify(ref)}`);
        if (!Number.isInteger(id) || id < 0 || id >= tokens.length || tokens[id] == null) {
          throw new InvalidArgumentError(`${path}: ${JSON.stringify(ref)} is not a token of the list`);
        }
        special.add(id);
      });
    }
    const collector = new TokenCollector();
    const literal = new Uint8Array(tokens.length);
    const specials = new Map<string, number>();
    for (let id = 0; id < tokens.length; id++) {
      const token = tokens[id];
      if (token === null || token === undefined) continue;
      if (token instanceof Uint8Array) {
        literal[collector.size] = 1;
        collector.addBytes(id, token);
      } else if (typeof token === "string") {
        if (special.has(id)) {
          literal[collector.size] = 1;
          specials.set(token, id);
        }
        collector.addString(id, token);
      } else {
        throw new InvalidArgumentError(`tokens[${id}]: expected a string, a Uint8Array or null, found ${typeof token}`);
      }
    }
    if (collector.size === 0) throw new TokenizerError("tokens: the token list is empty");
    const table = collector.finish(options.vocabType, "tokens", literal);
    for (const id of special) table.flags[id] = TokenFlag.Special;
    table.specials = specials;
    return TokenizerInfo.fromTable(table, options.vocabType, options, { stopDetection: "all" });
  }

  /**
   * Builds from a loaded node-llama-cpp `LlamaModel`: its GGUF token strings decoded as llama.cpp
   * does (byte-level for "gpt2" vocabularies, SentencePiece for "llama"/"t5"), control tokens
   * special, user-defined tokens literal text, and the model's end-of-generation tokens (plus the
   * well-known stop tokens by name) as the default stop tokens.
   */
  static fromLlamaModel(model: LlamaModelVocabularySource, options: VocabularyOptions = {}): TokenizerInfo {
    const { table, vocabType, eogIds } = readLlamaModelVocabulary(model);
    return TokenizerInfo.fromTable(table, vocabType, options, { eosIds: eogIds });
  }

  /** Number of ids the model's logits cover (tokens plus padding). */
  get vocabSize(): number {
    return this.data.vocabSize;
  }

  /** Number of tokens (ids past it, up to {@link vocabSize}, are padding). */
  get tokenCount(): number {
    return this.data.kinds.length;
  }

  /** The tokens that end generation, ascending (a copy). */
  get stopTokenIds(): Uint32Array {
    return this.data.stopTokenIds.slice();
  }

  private checkId(id: number): void {
    if (!Number.isInteger(id) || id < 0 || id >= this.data.vocabSize) {
      throw new InvalidArgumentError(`token id ${id} is out of range (expected an integer in [0, ${this.data.vocabSize}))`);
    }
  }

  /** A token's output bytes (a copy; empty for padding ids). */
  tokenBytes(id: number): Uint8Array {
    this.checkId(id);
    if (id >= this.tokenCount) return new Uint8Array(0);
    return this.data.bytes.slice(this.data.offsets[id]!, this.data.offsets[id + 1]!);
  }

  /** A token's text: its bytes as UTF-8 (bytes of a partial character become U+FFFD). */
  tokenText(id: number): string {
    this.checkId(id);
    if (id >= this.tokenCount) return "";
    return decoder.decode(this.data.bytes.subarray(this.data.offsets[id]!, this.data.offsets[id + 1]!));
  }

  /** How a token may appear: Normal, SpecialText or Control (padding ids are Control). */
  kind(id: number): TokenKind {
    this.checkId(id);
    return id >= this.tokenCount ? TokenKind.Control : (this.data.kinds[id] as TokenKind);
  }

  /** Whether a token id is one of the stop tokens. */
  isStopToken(id: number): boolean {
    this.checkId(id);
    const stops = this.data.stopTokenIds;
    let lo = 0;
    let hi = stops.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (stops[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < stops.length && stops[lo] === id;
  }

  /**
   * The id of a special token by its content (`"<|eot_id|>"`), or of the text token whose bytes
   * are exactly `text`; undefined when there is none.
   */
  tokenId(text: string): number | undefined {
    const id = lookupToken(this.table, text);
    return id < 0 ? undefined : id;
  }

  /** Whether the source marked a token special (its kind is then SpecialText or Control). */
  isSpecial(id: number): boolean {
    this.checkId(id);
    return id < this.tokenCount && this.table.flags[id] === TokenFlag.Special;
  }

  /**
   * The native TokenizerInfo (token trie and byte tables), created on first use and kept for the
   * life of this object.
   */
  native(): NativeTokenizerInfo {
    if (this.handle) return this.handle;
    const addon = loadNative();
    if (typeof addon.createTokenizerInfo !== "function") {
      throw new TagmaskError(
        "this build of the tagmask native addon has no createTokenizerInfo; rebuild it with `npm run build:addon`",
        "TAGMASK_ADDON_LOAD",
      );
    }
    this.handle = addon.createTokenizerInfo(this.data);
    return this.handle;
  }
}

function readFile(path: string): Uint8Array {
  // A regular file of bounded size: a device or a FIFO would be read (or waited on) forever.
  try {
    return readRegularFile(path);
  } catch (err) {
    if (!(err instanceof FileReadFailure)) throw err;
    if (err.why === "it is a directory") throw new TokenizerError(`${path}: is a directory (expected a tokenizer.json file)`);
    throw new TokenizerError(`cannot read tokenizer file ${path}: ${err.why}`);
  }
}

/** The eos_token name(s) of a tokenizer_config.json (path or object); none when absent. */
function eosFromConfig(config: string | Record<string, unknown> | null | undefined, explicit: boolean): string[] {
  if (config === null || config === undefined) return [];
  let obj: unknown = config;
  if (typeof config === "string") {
    if (!explicit && !existsSync(config)) return [];
    try {
      obj = JSON.parse(readFileSync(config, "utf8"));
    } catch (err) {
      throw new TokenizerError(`${config}: cannot read the tokenizer config: ${(err as Error).message}`);
    }
  }
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    throw new TokenizerError(`${typeof config === "string" ? config : "options.tokenizerConfig"}: expected a JSON object`);
  }
  const eos = (obj as Record<string, unknown>).eos_token;
  if (typeof eos === "string") return [eos];
  if (eos !== null && typeof eos === "object" && typeof (eos as { content?: unknown }).content === "string") {
    return [(eos as { content: string }).content];
  }
  return [];
}
