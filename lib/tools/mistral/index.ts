/**
 * The mistral family, in the three forms Mistral's tokenizer versions write:
 *
 * - `v3` (the default; tokenizer v3 to v7: Mistral-7B-v0.3, Mixtral-8x22B, Nemo, Small-2501):
 *   `[TOOL_CALLS][{"name": "NAME", "arguments": {…}}, …]`;
 * - `v11` (Mistral-Small-3.2): `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}` per call, ID nine letters or digits;
 * - `v13` (Magistral, Ministral-3, Devstral-2, Medium-3.5): `[TOOL_CALLS]NAME[ARGS]{…}` per call,
 *   reasoning in `[THINK]…[/THINK]`.
 *
 * {@link mistralVariantOf} picks the variant from a vocabulary's special tokens.
 */
import { InvalidArgumentError, ToolError } from "../../errors.js";
import { constString, jsonSchema, regex, sequence, tag } from "../../format/build.js";
import { checkToolNames, jsonName, type ToolCallingFamily } from "../family.js";
import { buildLayout, type MessageLayout, type ReasoningMarkers } from "../layout.js";
import { LayoutParser, type ParserSyntax } from "../layout-parser.js";

export const TOOL_CALLS = "[TOOL_CALLS]";
export const ARGS = "[ARGS]";
export const CALL_ID = "[CALL_ID]";
export const MISTRAL_VARIANTS = ["v3", "v11", "v13"] as const;
export type MistralVariant = (typeof MISTRAL_VARIANTS)[number];

const THINK: ReasoningMarkers = { open: "[THINK]", close: "[/THINK]", after: "" };
const STOPS = ["</s>"];

/** One layout per variant, built once: the per-tool cache keys calls by their layout object. */
const layouts = new Map<MistralVariant, MessageLayout>();

function layoutOf(variant: MistralVariant): MessageLayout {
  let layout = layouts.get(variant);
  if (layout === undefined) layouts.set(variant, (layout = newLayout(variant)));
  return layout;
}

function newLayout(variant: MistralVariant): MessageLayout {
  if (variant === "v3") {
    return {
      family: "mistral", reasoning: null, contentExcludes: [], contentWithCalls: "before",
      calls: {
        section: { begin: `${TOOL_CALLS}[`, end: "]" },
        separator: ", ",
        trigger: TOOL_CALLS,
        call: (tool) => tag(`{"name": ${jsonName(tool.name)}, "arguments": `, jsonSchema(tool.parameters ?? true), "}"),
      },
    };
  }
  return {
    family: "mistral", reasoning: variant === "v13" ? THINK : null, contentExcludes: [ARGS, CALL_ID], contentWithCalls: "before",
    calls: {
      separator: "",
      trigger: TOOL_CALLS,
      call: (tool) => variant === "v11"
        ? tag(`${TOOL_CALLS}${tool.name}${CALL_ID}`, sequence(regex("[A-Za-z0-9]{9}"), constString(ARGS), jsonSchema(tool.parameters ?? true)), "")
        : tag(`${TOOL_CALLS}${tool.name}${ARGS}`, jsonSchema(tool.parameters ?? true), ""),
    },
  };
}

function syntaxOf(variant: MistralVariant): ParserSyntax {
  if (variant === "v3") {
    return {
      family: "mistral", reasoning: null, contentWithCalls: "before", contentExcludes: [], stops: STOPS,
      section: { begin: `${TOOL_CALLS}\n[`, end: "]" }, separator: ",",
      call: { kind: "envelope", open: "", close: "", argumentKeys: ["arguments"] },
    };
  }
  return {
    family: "mistral", reasoning: variant === "v13" ? THINK : null, contentWithCalls: "before", contentExcludes: [ARGS, CALL_ID], stops: STOPS,
    separator: "\n",
    call: {
      kind: "header",
      header: [{ lit: TOOL_CALLS }, { nameTo: [CALL_ID, ARGS] }, { maybe: CALL_ID, until: ARGS }, { lit: ARGS }],
      args: { kind: "json" },
      close: "",
    },
  };
}

function variantOf(value: unknown, path: string): MistralVariant {
  if (value === undefined) return "v3";
  if (!(MISTRAL_VARIANTS as readonly unknown[]).includes(value)) {
    throw new ToolError(path, `expected one of ${MISTRAL_VARIANTS.map((v) => JSON.stringify(v)).join(", ")} for the mistral family, found ${JSON.stringify(value)}`);
  }
  return value as MistralVariant;
}

/**
 * The variant a vocabulary's special tokens call for: `[ARGS]` without `[THINK]` is v11 when
 * `[CALL_ID]` exists, `[ARGS]` with `[THINK]` v13, no `[ARGS]` v3.
 */
export function mistralVariantOf(hasSpecial: (text: string) => boolean): MistralVariant {
  if (!hasSpecial(ARGS)) return "v3";
  if (hasSpecial("[THINK]")) return "v13";
  return hasSpecial(CALL_ID) ? "v11" : "v13";
}

export const MISTRAL: ToolCallingFamily = {
  name: "mistral",
  models: ["Mistral-7B-Instruct-v0.3, Mixtral-8x22B, Mistral-Nemo, Mistral-Small-2501 (v3)", "Mistral-Small-3.2 (v11)", "Magistral, Ministral-3, Devstral-2, Mistral-Medium-3.5 (v13)"],
  markers: [TOOL_CALLS, ARGS, CALL_ID, "[THINK]", "[/THINK]"],
  stop: "</s>",
  stops: STOPS,
  argumentEncoding: "JSON",
  reasoning: { open: THINK.open, close: THINK.close },
  variants: MISTRAL_VARIANTS,
  sources: ["mistral-common tokenizer versions v3/v7/v11/v13 and the HF chat templates of Mistral-7B-v0.3, Mistral-Small-3.2, Magistral-Small-2509", "vLLM mistral_tool_parser", "llama.cpp ministral chat format"],
  example: `${TOOL_CALLS}[{"name": "get_weather", "arguments": {"location": "Paris"}}]`,
  build(request, variant) {
    const v = variantOf(variant, "variant");
    checkToolNames("mistral", request.tools, v === "v3" ? [] : ["[", " "], []);
    return buildLayout(layoutOf(v), request);
  },
  createParser(options = {}) {
    let v: MistralVariant;
    try {
      v = variantOf(options.variant, "variant");
    } catch (err) {
      throw new InvalidArgumentError(`options.variant: ${(err as Error).message}`);
    }
    return new LayoutParser(syntaxOf(v), options);
  },
};
