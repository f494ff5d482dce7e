/**
 * llama.cpp's reading of GBNF, through node-llama-cpp on the CPU: the independent oracle of the
 * GBNF export tests. The runtime is loaded once per test process, on first use.
 */
import { getLlama, LlamaLogLevel, type Llama, type LlamaGrammar } from "node-llama-cpp";

let llama: Promise<Llama> | undefined;

/** `gbnf` parsed by llama.cpp (rejects where llama.cpp refuses the grammar). */
export async function llamaGrammar(gbnf: string): Promise<LlamaGrammar> {
  llama ??= getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
  return (await llama).createGrammar({ grammar: gbnf });
}

/** llama.cpp's full-match check; internal in node-llama-cpp's typings, so reached by a cast. */
export function llamaMatches(grammar: LlamaGrammar, input: string): boolean {
  return (grammar as unknown as { _testText(text: string): boolean })._testText(input);
}
