/**
 * DeepSeek's DSML calls (V3.2 and V4): after the content, a blank line and a block
 * `<｜DSML｜BLOCK>\n<｜DSML｜invoke name="NAME">\n<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>\n…</｜DSML｜invoke>\n</｜DSML｜BLOCK>`,
 * BLOCK `function_calls` (V3.2) or `tool_calls` (V4); arguments in style deepseek_xml.
 */
import { FLAT_STYLES } from "../../compile/styles/index.js";
import { jsonSchema, tag } from "../../format/build.js";
import { END_OF_SENTENCE } from "../deepseek-r1/markers.js";
import { layoutFamily, type ToolCallingFamily } from "../family.js";
import { THINK_CLOSE, THINK_OPEN } from "../qwen3/index.js";

export const DSML = "\uff5cDSML\uff5c";
export const INVOKE_OPEN = `<${DSML}invoke name="`;
export const INVOKE_CLOSE = `</${DSML}invoke>`;

/** A DSML family whose block is named `block`. */
export function dsmlFamily(name: string, block: string, models: readonly string[], sources: readonly string[]): ToolCallingFamily {
  const begin = `<${DSML}${block}>`;
  const end = `</${DSML}${block}>`;
  return layoutFamily({
    name,
    models,
    markers: [THINK_OPEN, THINK_CLOSE],
    stops: [END_OF_SENTENCE],
    argumentEncoding: "deepseek_xml",
    reasoning: { open: THINK_OPEN, close: THINK_CLOSE, after: "" },
    sources,
    example: `\n\n${begin}\n${INVOKE_OPEN}get_weather">\n<${DSML}parameter name="location" string="true">Paris</${DSML}parameter>\n${INVOKE_CLOSE}\n${end}`,
    nameForbidden: ['"'],
    layout: {
      contentExcludes: [INVOKE_OPEN, end],
      contentWithCalls: "before",
      calls: {
        lead: "\n\n",
        section: { begin: `${begin}\n`, end },
        separator: "",
        trigger: begin,
        call: (tool) => tag(`${INVOKE_OPEN}${tool.name}">\n`,
          jsonSchema(tool.parameters ?? true, { style: "deepseek_xml" }), `${INVOKE_CLOSE}\n`),
      },
    },
    parser: {
      contentWithCalls: "before", contentExcludes: [INVOKE_OPEN, end], separator: "\n",
      section: { begin: `${begin}\n`, end },
      call: { kind: "header", header: [{ lit: INVOKE_OPEN }, { name: '">' }], args: { kind: "flat", style: FLAT_STYLES.deepseek_xml }, close: `${INVOKE_CLOSE}\n` },
    },
  });
}
