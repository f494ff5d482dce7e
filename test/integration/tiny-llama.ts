/**
 * The tiny model for integration tests: generated into the cache on first use (and probed in a
 * child process), loaded once per test process with node-llama-cpp on the CPU, one thread.
 */
import { getLlama, LlamaLogLevel, type Llama, type LlamaModel } from "node-llama-cpp";
import { ensureTinyModel } from "../../lib/integrations/node-llama-cpp/tiny-model.js";

let loaded: Promise<{ llama: Llama; model: LlamaModel; path: string }> | undefined;

/** The shared llama.cpp runtime and tiny model of this process. */
export function loadTinyModel(): Promise<{ llama: Llama; model: LlamaModel; path: string }> {
  loaded ??= (async () => {
    const { path } = ensureTinyModel();
    const llama = await getLlama({ gpu: false, build: "never", maxThreads: 1, logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: path });
    return { llama, model, path };
  })();
  return loaded;
}
