/**
 * `tagmask serve`: the OpenAI-compatible chat completions server on a GGUF model (see
 * lib/server and docs/server.md). Runs until SIGINT or SIGTERM, then shuts down gracefully:
 * new requests are refused, generating ones finish (or are cancelled after the grace period,
 * their clients told so), and the model is freed. A second signal cancels at once.
 */
import { TagmaskError } from "../errors.js";
import { MASK_ROUTES, type MaskRouteName } from "../integrations/node-llama-cpp/routes.js";
import type { ServerOptions } from "../server/server.js";
import { chatTemplateFamilies } from "../tools/chat-templates.js";
import { toolCallingFamilies } from "../tools/families.js";
import { integerOption, optional, parseArgs, UsageError } from "./args.js";
import type { CliCommand } from "./command.js";

const USAGE = [
  "tagmask serve --model FILE.gguf [--family NAME] [--variant V] [--host 127.0.0.1] [--port 8080] [--parallel N] [--context N]",
  "              [--max-queue N] [--model-id ID] [--threads N] [--gpu] [--route R] [--max-text-tokens N]",
  "              [--max-whitespace N] [--shutdown-grace SECONDS] [--grammar-timeout SECONDS]",
  "              [--lowering-workers N] [--lowering-heap-mb MB] [--no-probe] [--log]",
  "tagmask serve --tiny [options]      the tiny random test model (no download; its output is noise)",
  "",
  "  --model FILE        the GGUF model",
  "  --family NAME       its model family (default: detected from the model's chat template): " + toolCallingFamilies().filter((f) => chatTemplateFamilies().includes(f)).join(", "),
  "  --variant V         the family's format variant where it has several (mistral: v3, v13; default: from the vocabulary)",
  "  --host ADDRESS      address to listen on (default 127.0.0.1)",
  "  --port N            port (default 8080; 0 picks a free one)",
  "  --parallel N        requests generating at once, the context's sequences (default 4)",
  "  --context N         tokens per sequence, prompt and completion (default: the model's, at most 4096)",
  "  --max-queue N       requests waiting beyond those; more get 429 with Retry-After (default 64)",
  "  --model-id ID       the model's name in /v1/models and responses (default: the file name)",
  "  --threads N         CPU threads of llama.cpp (default: node-llama-cpp's choice; 1 with --tiny)",
  "  --gpu               let node-llama-cpp use a GPU (default: CPU only)",
  "  --route R           masking route: auto (default), " + MASK_ROUTES.join(", "),
  "  --max-text-tokens N bound every free-text part of every grammar to N tokens (default none; 8 with --tiny)",
  "  --max-whitespace N  at most N whitespace characters between JSON tokens (default none; 4 with --tiny)",
  "  --shutdown-grace S  seconds generations may finish after a signal before they are cancelled (default 30)",
  "  --grammar-timeout S seconds a request's grammar may take to build before the request gets 400",
  "                      grammar_timeout (default 60; 0: no limit)",
  "  --lowering-workers N threads that lower requests' grammars at once, so a slow grammar does not",
  "                      hold up the others (default: one per spare core, 2 to 4)",
  "  --lowering-heap-mb MB heap limit of each lowering thread; a request whose grammar needs more",
  "                      gets 400 (default: Node's own limit)",
  "  --no-probe          load the model without first loading it in a child process (a malformed file",
  "                      then aborts the server instead of failing with a message)",
  "  --log               log every request (JSON lines on stdout)",
].join("\n");

export const command: CliCommand = {
  summary: "serve a GGUF model over an OpenAI-compatible API whose tool calls always parse and match their schemas",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, {
      model: { type: "string" },
      tiny: { type: "boolean" },
      family: { type: "string" },
      variant: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      parallel: { type: "string" },
      context: { type: "string" },
      "max-queue": { type: "string" },
      "model-id": { type: "string" },
      threads: { type: "string" },
      gpu: { type: "boolean" },
      route: { type: "string" },
      "max-text-tokens": { type: "string" },
      "max-whitespace": { type: "string" },
      "shutdown-grace": { type: "string" },
      "grammar-timeout": { type: "string" },
      "lowering-workers": { type: "string" },
      "lowering-heap-mb": { type: "string" },
      "no-probe": { type: "boolean" },
      log: { type: "boolean" },
    });
    const tiny = args.flags.has("tiny");
    if (tiny === (optional(args, "model") !== undefined)) throw new UsageError(tiny ? "--tiny and --model exclude each other" : "--model FILE.gguf is required (or --tiny for the tiny test model)");
    const route = (optional(args, "route") ?? "auto") as MaskRouteName | "auto";
    if (route !== "auto" && !MASK_ROUTES.includes(route)) throw new UsageError(`--route must be auto or one of ${MASK_ROUTES.join(", ")}, got '${route}'`);
    const family = optional(args, "family");
    const variant = optional(args, "variant");
    const host = optional(args, "host");
    const modelId = optional(args, "model-id");
    if (family !== undefined && !(toolCallingFamilies().includes(family) && chatTemplateFamilies().includes(family))) {
      throw new UsageError(`unknown --family '${family}' (served families: ${toolCallingFamilies().filter((f) => chatTemplateFamilies().includes(f)).join(", ")})`);
    }
    const grace = integerOption(args, "shutdown-grace", undefined, 0);
    const grammarTimeout = integerOption(args, "grammar-timeout", undefined, 0);
    const loweringWorkers = integerOption(args, "lowering-workers", undefined, 1, 64);
    const loweringHeap = integerOption(args, "lowering-heap-mb", undefined, 16, 65536);
    const threads = integerOption(args, "threads", undefined, 1) ?? (tiny ? 1 : undefined);
    const maxText = integerOption(args, "max-text-tokens", undefined, 1) ?? (tiny ? 8 : undefined);
    const maxWhitespace = integerOption(args, "max-whitespace", undefined, 0) ?? (tiny ? 4 : undefined);
    const numbers: Partial<ServerOptions> = {};
    for (const [flag, key, min] of [["port", "port", 0], ["parallel", "parallel", 1], ["context", "contextSize", 16], ["max-queue", "maxQueue", 0]] as const) {
      const n = integerOption(args, flag, undefined, min);
      if (n !== undefined) numbers[key] = n;
    }

    let model = optional(args, "model");
    if (tiny) {
      const { ensureTinyModel } = await import("../integrations/node-llama-cpp/tiny-model.js");
      model = ensureTinyModel().path;
    }
    const { createServer } = await import("../server/server.js");
    let server;
    try {
      server = await createServer({
        model: model!,
        ...numbers,
        ...(tiny ? { family: family ?? "kimi-k3", modelId: modelId ?? "tagmask-tiny", probeModel: false } : {}),
        ...(!tiny && family !== undefined ? { family } : {}),
        ...(variant === undefined ? {} : { variant }),
        ...(!tiny && modelId !== undefined ? { modelId } : {}),
        ...(host === undefined ? {} : { host }),
        ...(threads === undefined ? {} : { threads }),
        ...(maxText === undefined ? {} : { maxFreeTextTokens: maxText }),
        ...(maxWhitespace === undefined ? {} : { maxWhitespace }),
        ...(grace === undefined ? {} : { shutdownGraceMs: grace * 1000 }),
        ...(grammarTimeout === undefined ? {} : { grammarTimeoutMs: grammarTimeout * 1000 }),
        ...(loweringWorkers === undefined ? {} : { loweringWorkers }),
        ...(loweringHeap === undefined ? {} : { loweringHeapLimitMb: loweringHeap }),
        ...(args.flags.has("no-probe") && !tiny ? { probeModel: false } : {}),
        gpu: args.flags.has("gpu"),
        route,
        logger: args.flags.has("log"),
        handleSignals: true,
      });
    } catch (err) {
      if (err instanceof TagmaskError && err.code === "TAGMASK_MISSING_DEPENDENCY") {
        io.stderr.write(`tagmask serve: ${err.message}\n`);
        return 3;
      }
      throw err;
    }
    const url = await server.listen();
    io.stdout.write(`tagmask serve: listening on ${url} — model ${server.modelId}, family ${server.family}${server.variant === undefined ? "" : ` (${server.variant})`}, ` +
      `${server.parallel} sequences × ${server.contextSize} tokens, masking route ${server.session.route}\n`);
    io.stdout.write(`  POST ${url}/v1/chat/completions · GET ${url}/v1/models · GET ${url}/health · GET ${url}/metrics (Ctrl-C stops)\n`);
    await server.closed;
    io.stdout.write("tagmask serve: shut down\n");
    return 0;
  },
};
