/**
 * Detecting a model's family from its chat template (a GGUF's `tokenizer.chat_template`), as
 * `tagmask serve` does when no family is named: a table of short snippets quoted from each
 * family's public template (or, where none is public, from the template GGUFs carry), each of
 * which must be recognized as its family — before any family earlier in the detection order
 * claims it — and templates of models without the format, which must not be. Every family with
 * a chat template has a row. Also the variant a model's vocabulary calls for.
 */
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../lib/errors.js";
import { resolveFamily, resolveVariant } from "../../lib/server/server.js";
import { chatTemplateFamilies, detectChatTemplateFamily } from "../../lib/tools/chat-templates.js";

/** [family, where the snippet is from, the snippet]. */
const SNIPPETS: [string, string, string][] = [
  ["kimi-k3", "Kimi K3 (llama.cpp Kimi-K3.jinja)", "{{- '<|open|>' + tag -}}{{- '<|close|>' + tag + '<|sep|>' -}}{{- '<|end_of_msg|>' -}}"],
  ["harmony", "openai/gpt-oss-120b chat_template.jinja",
    '{{- "<|start|>assistant<|channel|>analysis<|message|>" + message.thinking + "<|end|>" }}\n{{- "<|start|>functions." + last_tool_call.name }}'],
  ["qwen3-coder", "Qwen/Qwen3-Coder-480B-A35B-Instruct chat_template.jinja",
    "{{- '<|im_start|>' + message.role }}\n{{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}\n{{- '<parameter=' + args_name + '>\\n' }}"],
  ["hermes", "NousResearch/Hermes-3-Llama-3.1-8B tool_use template",
    "{{- '<|im_start|>system\\nYou are a function calling AI model. You are provided with function signatures within <tools></tools> XML tags. ' }}\n{{- '<tool_call>\\n' }}"],
  ["qwen3", "Qwen/Qwen3-8B tokenizer_config.json",
    "{{- '<|im_start|>' + message.role + '\\n' + content }}\n{{- '<tool_call>\\n{\"name\": \"' }}\n{{- '\\n<tool_response>\\n' }}\n{{- '<think>\\n\\n</think>\\n\\n' }}"],
  ["llama3", "meta-llama/Llama-3.1-8B-Instruct tokenizer_config.json",
    '{{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}\n{{- "<|eot_id|>" }}'],
  ["deepseek-r1", "deepseek-ai/DeepSeek-R1 tokenizer_config.json",
    "{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>'}}{{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}"],
  ["deepseek-v3.1", "deepseek-ai/DeepSeek-V3.1 tokenizer_config.json",
    "{%- if not thinking is defined -%}{{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>'+ tool['function']['name'] + '<｜tool▁sep｜>'}}{{'<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}"],
  ["kimi-k2", "moonshotai/Kimi-K2-Thinking chat_template.jinja", "<|im_system|>tool_declare<|im_middle|>{{ tools | tojson }}<|im_end|>"],
  ["glm-4.7", "zai-org/GLM-4.7 chat_template.jinja",
    "[gMASK]<sop>\n{%- if tools -%}\n<|system|>\n# Tools\n<tool_call>{function-name}<arg_key>{arg-key-1}</arg_key><arg_value>{arg-value-1}</arg_value>\n{{- '<|observation|>' }}"],
  ["glm-4.7", "zai-org/GLM-4.5 chat_template.jinja (newlines between the tags)",
    "[gMASK]<sop>\n<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n<arg_value>{arg-value-1}</arg_value>\n<|observation|>"],
  ["minimax-m2", "MiniMaxAI/MiniMax-M2 chat_template.jinja",
    "{%- set toolcall_begin_token   = '<minimax:tool_call>'         -%}\n{{- ']~!b[' ~ ']~b]system' ~ '\\n' }}\n{{- ']~b]ai' ~ '\\n' ~ '<think>' ~ '\\n' }}"],
  ["exaone", "LGAI-EXAONE/EXAONE-4.0-32B chat_template.jinja",
    "{%- set role_indicators = {\n    'user': '[|user|]\\n',\n    'assistant': '[|assistant|]\\n',\n    'system': '[|system|]\\n',\n    'tool': '[|tool|]\\n'\n} %}\n{%- set end_of_turn = '[|endofturn|]\\n' %}"],
  ["deepseek-v3.2", "llama.cpp models/templates/DeepSeek-V3.2.jinja (no official template: the model ships a Python encoder)",
    '{%- set dsml_token = "｜DSML｜" -%}\n<{{ dsml_token }}invoke name="$FUNCTION_NAME">\n</{{ dsml_token }}function_calls>'],
  ["deepseek-v4", "a DSML template of V4's block (no official template: the model ships a Python encoder)",
    '{%- set dsml_token = "｜DSML｜" -%}\n<{{ dsml_token }}tool_calls>\n<{{ dsml_token }}invoke name="{{ tool_call.function.name }}">'],
  ["mistral", "mistralai/Mistral-Nemo-Instruct-2407 tokenizer_config.json (v3)",
    '{{- "[AVAILABLE_TOOLS][" }}\n{{- "[INST]" + message["content"] + "[/INST]" }}\n{{- "[TOOL_CALLS][" }}'],
  ["mistral", "mistralai/Ministral-3-14B-Instruct-2512 chat_template.jinja (v13)",
    "{{- '[INST]' + message['content'] + '[/INST]' }}\n{{- '[TOOL_CALLS]' + tool['function']['name'] + '[ARGS]' + arguments }}"],
];

/** Templates of models without a tool-calling format tagmask has: [what, template]. */
const NOT_DETECTED: [string, string][] = [
  ["a plain ChatML template", "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"],
  ["Mistral-7B-Instruct-v0.1 (no tool tokens)", "{{ bos_token }}{% for message in messages %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% endfor %}"],
  ["EXAONE 3.5 (no tool turn)", "{% for message in messages %}{{ '[|' + message['role'] + '|]' + message['content'] }}{{ '[|endofturn|]\\n' }}{% endfor %}{{ '[|assistant|]' }}"],
  ["Gemma 3", "{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}"],
  ["an empty template", ""],
];

describe("family detection from a model's chat template", () => {
  it("has a snippet for every family with a chat template", () => {
    expect([...new Set(SNIPPETS.map(([f]) => f))].sort()).toEqual([...chatTemplateFamilies()].sort());
  });

  for (const [family, source, snippet] of SNIPPETS) {
    it(`recognizes ${family} in ${source}`, () => {
      expect(detectChatTemplateFamily(snippet)).toBe(family);
      expect(resolveFamily(undefined, snippet)).toBe(family);
    });
  }

  for (const [what, template] of NOT_DETECTED) {
    it(`recognizes no family in ${what}`, () => {
      expect(detectChatTemplateFamily(template)).toBeNull();
      expect(() => resolveFamily(undefined, template)).toThrow(InvalidArgumentError);
    });
  }
});

describe("the format variant a model calls for", () => {
  const vocabulary = (...tokens: string[]) => (text: string): boolean => tokens.includes(text);

  it("reads mistral's from the special tokens, or takes the one named", () => {
    expect(resolveVariant("mistral", undefined, vocabulary("[TOOL_CALLS]"))).toBe("v3");
    expect(resolveVariant("mistral", undefined, vocabulary("[TOOL_CALLS]", "[ARGS]", "[THINK]"))).toBe("v13");
    expect(resolveVariant("mistral", "v3", vocabulary("[TOOL_CALLS]", "[ARGS]", "[THINK]"))).toBe("v3");
  });

  it("refuses a variant the chat template does not render, and a variant for a family with one format", () => {
    expect(() => resolveVariant("mistral", undefined, vocabulary("[TOOL_CALLS]", "[ARGS]", "[CALL_ID]")))
      .toThrow(/options.variant: the mistral chat template renders "v3", "v13" .*; the model's vocabulary calls for "v11"/);
    expect(() => resolveVariant("mistral", "v9", vocabulary())).toThrow(/found "v9"/);
    expect(() => resolveVariant("qwen3", "v3", vocabulary())).toThrow(/the qwen3 family has one format/);
    expect(resolveVariant("qwen3", undefined, vocabulary())).toBeUndefined();
  });
});
