/**
 * `tagmask families`: the model families tagmask builds tool-calling grammars for, with their
 * models, markers, argument encoding and reasoning markers (docs/families.md has the sources).
 */
import { toolCallingFamilies, toolCallingFamily } from "../tools/families.js";
import { parseArgs, UsageError } from "./args.js";
import type { CliCommand } from "./command.js";

const USAGE = [
  "tagmask families [--json]",
  "",
  "  --json   one JSON array of {name, models, markers, stops, argumentEncoding, reasoning, variants} instead of text",
].join("\n");

export const command: CliCommand = {
  summary: "list the model families (name, models, markers, argument encoding, reasoning markers)",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { json: { type: "boolean" } });
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
    const families = toolCallingFamilies().map((name) => toolCallingFamily(name));
    if (args.flags.has("json")) {
      io.stdout.write(`${JSON.stringify(families.map((f) => ({
        name: f.name, models: f.models, markers: f.markers, stops: f.stops, argumentEncoding: f.argumentEncoding,
        reasoning: f.reasoning, ...(f.variants ? { variants: f.variants } : {}),
      })), null, 2)}\n`);
      return 0;
    }
    for (const f of families) {
      io.stdout.write(`${f.name}${f.variants ? ` (variants: ${f.variants.join(", ")})` : ""}\n`);
      io.stdout.write(`  models:    ${f.models.join("; ")}\n`);
      io.stdout.write(`  markers:   ${f.markers.length === 0 ? "(none: plain text)" : f.markers.join(" ")}\n`);
      io.stdout.write(`  stops:     ${f.stops.join(" ")}\n`);
      io.stdout.write(`  arguments: ${f.argumentEncoding}\n`);
      io.stdout.write(`  reasoning: ${f.reasoning ? `${f.reasoning.open} … ${f.reasoning.close}` : "(none)"}\n`);
    }
    io.stdout.write(`${families.length} families\n`);
    return 0;
  },
};
