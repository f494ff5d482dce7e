/**
 * `tagmask runtime`: which native addon is in use (a prebuilt one shipped with the package, a
 * source build, or TAGMASK_ADDON), its version and CUDA status; or, when none can be loaded,
 * why and how to build one (exit code 3).
 */
import { addonStatus } from "../runtime.js";
import { parseArgs } from "./args.js";
import type { CliCommand } from "./command.js";

const ORIGINS = { prebuild: "prebuilt addon shipped with tagmask", source: "built from source on this machine", env: "TAGMASK_ADDON" } as const;

export const command: CliCommand = {
  summary: "print which native addon is in use, its version and CUDA status (or why none loads)",
  usage: [
    "tagmask runtime [--json]",
    "",
    "Exit code 0 when the native addon loads; 3 when it is unavailable (the message says how to build it).",
  ].join("\n"),
  async run(argv, io) {
    const args = parseArgs(argv, { json: { type: "boolean" } });
    const status = addonStatus();
    if (args.flags.has("json")) {
      io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      return status.available ? 0 : 3;
    }
    if (!status.available) {
      io.stdout.write(`native addon: unavailable\n`);
      io.stderr.write(`tagmask runtime: ${status.reason}\n`);
      return 3;
    }
    const { runtime: info } = status;
    io.stdout.write(`tagmask ${info.version}\n`);
    io.stdout.write(`native addon: ${status.variant} variant, ${ORIGINS[status.origin]} (${status.file})\n`);
    io.stdout.write(`cuda: ${info.cuda.compiled ? "compiled in" : "not compiled"}, ` +
      `${info.cuda.deviceCount} device(s) (${info.cuda.status})\n`);
    return 0;
  },
};
