import { resolve } from "node:path";
import { ensureTinyModel, tinyModelCachePath } from "../integrations/node-llama-cpp/tiny-model.js";
import { integerOption, optional, parseArgs } from "./args.js";
import type { CliCommand } from "./command.js";
import { modelProgress } from "./model-progress.js";

export const command: CliCommand = {
  summary: "write a tiny random-weight GGUF model with a real vocabulary (Llama 3 + Kimi K3 markers) for tests and the demo",
  usage: [
    "tagmask make-tiny-model [--out FILE] [--tokenizer tokenizer.json] [--seed N] [--force] [--no-probe]",
    "",
    "  --out FILE          where to write (default: the cache folder, ~/.cache/tagmask or $TAGMASK_CACHE)",
    "  --tokenizer FILE    a byte-level BPE tokenizer.json (default: Llama 3's vocabulary, shipped with tagmask)",
    "  --seed N            seed of the random weights (default 1)",
    "  --force             regenerate even if the file exists",
    "  --no-probe          skip loading the new file with node-llama-cpp in a child process",
  ].join("\n"),
  async run(argv, io) {
    const args = parseArgs(argv, {
      out: { type: "string" },
      tokenizer: { type: "string" },
      seed: { type: "string" },
      force: { type: "boolean" },
      "no-probe": { type: "boolean" },
    });
    const seed = integerOption(args, "seed", undefined, 0, 0xffffffff);
    const started = performance.now();
    const out = optional(args, "out");
    const tokenizer = optional(args, "tokenizer");
    const info = ensureTinyModel({
      out,
      tokenizer,
      seed,
      force: args.flags.has("force"),
      probe: !args.flags.has("no-probe"),
      onProgress: modelProgress(io, "make-tiny-model", out === undefined ? tinyModelCachePath({ tokenizer, seed }) : resolve(out)),
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const size = `${(info.bytes / 1e6).toFixed(1)} MB`;
    io.stdout.write(info.created ? `wrote ${info.path} (${size}, ${info.tokens} tokens, ${seconds} s)\n` : `${info.path} exists (${size}); --force regenerates it\n`);
    return 0;
  },
};
