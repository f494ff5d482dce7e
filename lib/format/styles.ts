/** The `style` values of a `json_schema` format (lib/compile/styles lowers them; docs/compatibility.md). */
export const ARGUMENT_STYLES = [
  "json", "qwen_xml", "minimax_xml", "deepseek_xml", "deepseek_v4_1_xml", "glm_xml", "kimi_k3_xml", "cohere_xml", "minimax_m3_xml",
] as const;

export type ArgumentStyle = (typeof ARGUMENT_STYLES)[number];
