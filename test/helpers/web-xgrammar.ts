/**
 * @mlc-ai/web-xgrammar (xgrammar 0.1.27 compiled to WebAssembly), the peer the tests and the
 * benchmarks compare with: loading it, the part of its API they call, and a tokenizer.json as
 * the token list its TokenizerInfo takes.
 */
import { readFileSync } from "node:fs";
import { createRequire, Module } from "node:module";

export interface XgrMatcher {
  acceptToken(id: number): boolean;
  getNextTokenBitmask(): Promise<Int32Array>;
  reset(): void;
  rollBack(n: number): void;
  dispose(): void;
}
export interface XgrCompiled {
  dispose(): void;
}
export interface XgrCompiler {
  compileStructuralTag(tag: unknown): Promise<XgrCompiled>;
  compileJSONSchema(schema: string, anyWhitespace?: boolean): Promise<XgrCompiled>;
  compileBuiltinJSONGrammar(): Promise<XgrCompiled>;
  dispose(): void;
}
export interface XgrTokenizerInfo {
  dispose(): void;
}
export interface WebXgrammar {
  TokenizerInfo: {
    createTokenizerInfo(vocab: string[], type: string, prependSpace: boolean, vocabSize?: number, stops?: number[]): Promise<XgrTokenizerInfo>;
  };
  GrammarCompiler: { createGrammarCompiler(info: XgrTokenizerInfo, cacheEnabled?: boolean): Promise<XgrCompiler> };
  GrammarMatcher: { createGrammarMatcher(compiled: XgrCompiled): Promise<XgrMatcher> };
}

const require = createRequire(import.meta.url);

/** The package ships a CommonJS bundle under `"type": "module"`, so it is compiled as CommonJS by hand. */
export function loadWebXgrammar(): WebXgrammar {
  const file = require.resolve("@mlc-ai/web-xgrammar/lib/index.js");
  const mod = new Module(file) as Module & { _compile(source: string, file: string): void; paths: string[] };
  mod.filename = file;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(file);
  mod._compile(readFileSync(file, "utf8"), file);
  return mod.exports as WebXgrammar;
}

/** A tokenizer.json's vocabulary as createTokenizerInfo takes it: token strings by id. */
export interface TokenList {
  /** The token string of each id ("" where the file has no token for an id). */
  tokens: string[];
  /** The added tokens, where the special ones (and so the stop tokens) are. */
  added: { id: number; content: string }[];
}

/** Reads the token list of a tokenizer.json (model vocabulary and added tokens). */
export function readTokenList(path: string): TokenList {
  const json = JSON.parse(readFileSync(path, "utf8")) as { model: { vocab: Record<string, number> }; added_tokens: { id: number; content: string }[] };
  const tokens: string[] = [];
  for (const [token, id] of Object.entries(json.model.vocab)) tokens[id] = token;
  for (const added of json.added_tokens) tokens[added.id] = added.content;
  return { tokens: Array.from(tokens, (t) => t ?? ""), added: json.added_tokens };
}
