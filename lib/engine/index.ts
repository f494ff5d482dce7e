/**
 * The engine API: compile a grammar against a vocabulary, then follow a sequence with a matcher.
 * Thin typed wrappers over the native handles (native/binding).
 */
export { CompiledGrammar, compileGrammar, compileGrammarAsync, warmUpCompiler } from "./compiled-grammar.js";
export { loweringHeapLimitMb, loweringWorkers, setLoweringWorkers, type LoweringWorkerOptions } from "./lowering-pool.js";
export type { CompileAsyncOptions, CompileOptions, CompileStats, GrammarSource } from "./compiled-grammar.js";
export type { CompileProgress } from "./compile-run.js";
export { GrammarCompiler } from "./grammar-compiler.js";
export type { CompileCallOptions, GrammarCacheStats, GrammarCompilerOptions } from "./grammar-compiler.js";
export { GrammarMatcher } from "./matcher.js";
export type { MatcherOptions } from "./matcher.js";
