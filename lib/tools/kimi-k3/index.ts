/** The kimi-k3 family (see builder.ts, parser.ts and outline.md). */
import type { ToolCallingFamily } from "../family.js";
import { buildKimiK3 } from "./builder.js";
import { KIMI_K3_MARKERS, KIMI_K3_STOP, THINK_CLOSE, THINK_OPEN } from "./markers.js";
import { KimiK3OutputParser } from "./parser.js";

export const KIMI_K3: ToolCallingFamily = {
  name: "kimi-k3",
  models: ["Kimi K3"],
  markers: KIMI_K3_MARKERS.filter((m) => m !== KIMI_K3_STOP),
  stop: KIMI_K3_STOP,
  stops: [KIMI_K3_STOP],
  argumentEncoding: "kimi_k3_xml tags, or one JSON object",
  reasoning: { open: THINK_OPEN, close: THINK_CLOSE },
  sources: ["the user's spec (outline.md, seed outlines)", "xgrammar builtin kimi_k3 and style kimi_k3_xml"],
  example: '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  build: (request) => buildKimiK3(request),
  createParser: (options) => new KimiK3OutputParser(options),
};
