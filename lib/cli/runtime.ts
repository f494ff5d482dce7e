import { runtime } from "../runtime.js";
import { parseArgs } from "./args.js";
import type { CliCommand } from "./command.js";

export const command: CliCommand = {
  summary: "print the native addon's version and CUDA status",
  usage: "tagmask runtime [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { json: { type: "boolean" } });
    const info = runtime();
    if (args.flags.has("json")) {
      io.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
    } else {
      io.stdout.write(`tagmask ${info.version}\n`);
      io.stdout.write(`cuda: ${info.cuda.compiled ? "compiled in" : "not compiled"}, ` +
        `${info.cuda.deviceCount} device(s) (${info.cuda.status})\n`);
    }
    return 0;
  },
};
