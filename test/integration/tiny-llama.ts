/**
 * The tiny model for integration tests: generated into the cache on first use (and probed in a
 * child process), loaded once per test process with node-llama-cpp on the CPU, one thread.
 */
import { readFileSync } from "node:fs";
import { getLlama, LlamaLogLevel, type Llama, type LlamaModel } from "node-llama-cpp";
import { ConstrainedLlama } from "../../lib/integrations/node-llama-cpp/constrained-llama.js";
import type { MaskRouteName } from "../../lib/integrations/node-llama-cpp/routes.js";
import { ensureTinyModel } from "../../lib/integrations/node-llama-cpp/tiny-model.js";
import type { FunctionTool } from "../../lib/tools/types.js";

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

const sessions = new Map<string, Promise<ConstrainedLlama>>();

/** tagmask on the tiny model, with the given masking route ("auto" by default). */
export function loadConstrainedLlama(route: MaskRouteName | "auto" = "auto"): Promise<ConstrainedLlama> {
  let session = sessions.get(route);
  if (!session) {
    session = loadTinyModel().then(({ model }) => ConstrainedLlama.create(model, { route }));
    sessions.set(route, session);
  }
  return session;
}

/** The tools of the end-to-end tests (test/integration/fixtures/tools.json). */
export function testTools(): FunctionTool[] {
  return JSON.parse(readFileSync(new URL("./fixtures/tools.json", import.meta.url), "utf8")) as FunctionTool[];
}

const familyModels = new Map<string, Promise<{ model: LlamaModel; session: ConstrainedLlama }>>();

/**
 * The tiny model built for a model family (its vocabulary and markers; family-model.ts) and
 * tagmask on it, loaded once per test process on the shared llama.cpp runtime.
 */
export function loadFamilyModel(family: string): Promise<{ model: LlamaModel; session: ConstrainedLlama }> {
  let loadedFamily = familyModels.get(family);
  if (!loadedFamily) {
    loadedFamily = (async () => {
      const { tinyModelOptionsForFamily, familyVocabularyOptions } = await import("../../lib/integrations/node-llama-cpp/family-model.js");
      const { TokenizerInfo } = await import("../../lib/tokenizer/tokenizer-info.js");
      const { llama } = await loadTinyModel();
      const { path } = ensureTinyModel(tinyModelOptionsForFamily(family));
      const model = await llama.loadModel({ modelPath: path });
      const plain = TokenizerInfo.fromLlamaModel(model);
      const session = await ConstrainedLlama.create(model, { vocabulary: familyVocabularyOptions(family, (t) => plain.tokenId(t) !== undefined) });
      return { model, session };
    })();
    familyModels.set(family, loadedFamily);
  }
  return loadedFamily;
}
