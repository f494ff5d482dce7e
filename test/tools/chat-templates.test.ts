/**
 * Chat templates against the families' public templates: for every family with goldens in
 * test/fixtures/chat-templates/<family>/, every case (a golden conversation rendered in one
 * reasoning mode, tool choice or response format) must come out byte for byte as the public
 * Jinja template renders it (the conversations of conversations.json, and for the later families
 * also those of edge-conversations.json). Each folder's cases.json names the template and revision the goldens
 * were derived from (rendered with a Jinja engine, outside the repository), and any tagmask
 * extension (e.g. a reasoning mode the template does not have).
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RequestError, ToolError } from "../../lib/errors.js";
import { normalizeConversation } from "../../lib/tools/chat-messages.js";
import { chatTemplate, chatTemplateFamilies, detectChatTemplateFamily, renderChat, type ChatTemplateInput } from "../../lib/tools/chat-templates.js";
import { mistralCallId } from "../../lib/tools/mistral/chat-template.js";
import type { FunctionTool } from "../../lib/tools/types.js";

const FIXTURES = new URL("../fixtures/chat-templates/", import.meta.url);
type Conversation = { tools: boolean; messages: unknown[] };
const shared = JSON.parse(readFileSync(new URL("conversations.json", FIXTURES), "utf8")) as { tools: FunctionTool[]; conversations: Record<string, Conversation> };
const { tools } = shared;
// The golden conversations, and edge cases (reasoning inside content, a conversation ending with
// an answer, non-ASCII text, exponents, empty arguments) that the later families' goldens use.
const conversations: Record<string, Conversation> = {
  ...shared.conversations,
  ...JSON.parse(readFileSync(new URL("edge-conversations.json", FIXTURES), "utf8")) as Record<string, Conversation>,
};

interface Manifest {
  source: { template: string; url: string; note?: string };
  cases: { file: string; conversation: string; input: Omit<ChatTemplateInput, "messages" | "tools" | "now"> & { now?: string } }[];
}

const families = readdirSync(FIXTURES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();

describe("chat templates against the public templates' renderings", () => {
  it("has goldens for every family with a chat template", () => {
    expect(families).toEqual([...chatTemplateFamilies()].sort());
  });

  for (const family of families) {
    const manifest = JSON.parse(readFileSync(new URL(`${family}/cases.json`, FIXTURES), "utf8")) as Manifest;
    describe(`${family} (${manifest.source.template})`, () => {
      for (const c of manifest.cases) {
        it(`renders ${c.file}`, () => {
          const conv = conversations[c.conversation]!;
          const expected = readFileSync(new URL(`${family}/${c.file}`, FIXTURES), "utf8");
          const { now, ...input } = c.input;
          const text = renderChat(family, { messages: normalizeConversation(conv.messages), tools: conv.tools ? tools : [], ...input, ...(now ? { now: new Date(now) } : {}) });
          expect(text).toBe(expected);
        });
      }
    });
  }
});

describe("chat template registry", () => {
  it("names the known families when asked for an unknown one", () => {
    expect(() => chatTemplate("gpt-9")).toThrow(ToolError);
    expect(() => chatTemplate("gpt-9")).toThrow(/families with one: .*kimi-k3/);
    expect(() => chatTemplate(3)).toThrow(/number 3/);
  });

  it("recognizes a model's Jinja template by its markers", () => {
    expect(detectChatTemplateFamily("{{- '<|open|>' + tag -}}{{- '<|close|>' + tag + '<|sep|>' -}}{{- '<|end_of_msg|>' -}}")).toBe("kimi-k3");
    expect(detectChatTemplateFamily("{% for m in messages %}{{ m.content }}{% endfor %}")).toBeNull();
    expect(detectChatTemplateFamily("")).toBeNull();
  });

  it("refuses what a family's template refuses: several calls in one llama3 assistant message", () => {
    const conv = conversations.parallel!;
    expect(() => renderChat("llama3", { messages: normalizeConversation(conv.messages), tools, reasoning: "final_output_only" }))
      .toThrow(/messages\[1\]\.tool_calls: the llama3 chat template takes one tool call per assistant message, found 3/);
  });

  it("refuses what the mistral templates refuse: turns that do not alternate, a later system message, an empty answer", () => {
    for (const variant of ["v3", "v13"]) {
      const render = (messages: unknown[]) => renderChat("mistral", { messages: normalizeConversation(messages), tools, reasoning: "final_output_only", variant });
      expect(() => render(conversations["nested-call"]!.messages)).toThrow(/messages\[3\]: the mistral chat template needs user and assistant turns to alternate .*two user turns in a row/);
      expect(() => render([{ role: "user", content: "a" }, { role: "system", content: "b" }])).toThrow(/messages\[1\]: the mistral chat template takes one system message, the first/);
      expect(() => render([{ role: "system", content: "s" }, { role: "assistant", content: "a" }])).toThrow(RequestError);
    }
    expect(() => renderChat("mistral", { messages: normalizeConversation([{ role: "user", content: "a" }, { role: "assistant", content: "" }]), tools: [], reasoning: "final_output_only", variant: "v13" }))
      .toThrow(/messages\[1\]: the mistral v13 chat template needs an assistant message to have content or tool calls/);
  });

  it("renders mistral v3 and v13 only, naming them for another variant", () => {
    const messages = normalizeConversation([{ role: "user", content: "a" }]);
    expect(renderChat("mistral", { messages, tools: [], reasoning: "final_output_only" })).toBe("<s>[INST]a[/INST]");
    expect(() => renderChat("mistral", { messages, tools: [], reasoning: "final_output_only", variant: "v11" })).toThrow(ToolError);
    expect(() => renderChat("mistral", { messages, tools: [], reasoning: "final_output_only", variant: "v11" })).toThrow(/variant: no chat template for the mistral variant "v11": the renderer follows v3 and v13/);
  });

  it("maps call ids to the nine characters Mistral needs", () => {
    expect(mistralCallId("abcDEF123")).toBe("abcDEF123");
    expect(mistralCallId("call_1")).toBe("0000call1");
    expect(mistralCallId("call_Z9x8Y7w6V5u4T3s2R1q0P9o8")).toBe("2R1q0P9o8");
  });

  it("refuses what DeepSeek-V3.2's encoder refuses: an answer without reasoning after the last user message, in thinking mode", () => {
    const messages = normalizeConversation([{ role: "user", content: "a" }, { role: "assistant", content: "b" }]);
    expect(renderChat("deepseek-v3.2", { messages, tools: [], reasoning: "final_output_only" })).toBe("<｜begin▁of▁sentence｜><｜User｜>a<｜Assistant｜></think>b<｜end▁of▁sentence｜>");
    // With tools the encoder's messages start with a system message of its own: the error still names the client's index.
    expect(() => renderChat("deepseek-v3.2", { messages, tools, reasoning: "think" })).toThrow(/^messages\[1\]: in thinking mode DeepSeek-V3.2's encoder needs reasoning_content/);
  });

  it("maps reasoning_effort to the Kimi K3 reasoning modes", () => {
    const k3 = chatTemplate("kimi-k3");
    expect(k3.reasoningMode(undefined)).toBe("think");
    expect(k3.reasoningMode("none")).toBe("final_output_only");
    expect(k3.reasoningMode("low")).toBe("think");
  });
});

describe("normalizeConversation", () => {
  const cases: [string, unknown, string, RegExp][] = [
    ["not a list", { role: "user" }, "messages", /expected a list/],
    ["empty", [], "messages", /at least one/],
    ["a bad role", [{ role: "bot", content: "x" }], "messages[0].role", /expected one of/],
    ["user content null", [{ role: "user", content: null }], "messages[0].content", /string or a list of text parts/],
    ["an image part", [{ role: "user", content: [{ type: "image_url" }] }], "messages[0].content[0].type", /only text/],
    ["a call without a function", [{ role: "assistant", tool_calls: [{ id: "a" }] }], "messages[0].tool_calls[0].function", /expected \{name, arguments\}/],
    ["arguments that are not an object", [{ role: "assistant", tool_calls: [{ function: { name: "f", arguments: "[1]" } }] }], "messages[0].tool_calls[0].function.arguments", /JSON object/],
    ["a result without a call", [{ role: "user", content: "x" }, { role: "tool", content: "r" }], "messages[1]", /must follow an assistant message/],
    ["a result for an unknown id, all calls answered", [
      { role: "assistant", tool_calls: [{ id: "a", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "r" },
      { role: "tool", tool_call_id: "zz", content: "r" },
    ], "messages[2]", /no earlier assistant message made a call with that id/],
  ];
  for (const [what, messages, param, message] of cases) {
    it(`refuses ${what}, naming ${param}`, () => {
      try {
        normalizeConversation(messages);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(RequestError);
        expect((err as RequestError).param).toBe(param);
        expect((err as RequestError).status).toBe(400);
        expect((err as Error).message).toMatch(message);
      }
    });
  }

  it("joins text parts, maps developer to system, parses arguments and matches results to calls", () => {
    const out = normalizeConversation([
      { role: "developer", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
      { role: "assistant", content: null, tool_calls: [{ id: "x", type: "function", function: { name: "f", arguments: '{"k": 1}' } }, { id: "y", function: { name: "g", arguments: "" } }] },
      { role: "tool", tool_call_id: "y", content: "gy" },
      { role: "tool", content: "fx" },
    ]);
    expect(out).toEqual([
      { role: "system", content: "ab" },
      { role: "assistant", content: "", toolCalls: [{ id: "x", name: "f", arguments: { k: 1 }, argumentsText: '{"k": 1}' }, { id: "y", name: "g", arguments: {}, argumentsText: "" }] },
      { role: "tool", content: "gy", toolCallId: "y", name: "g", callIndex: 1, byId: true },
      { role: "tool", content: "fx", toolCallId: "x", name: "f", callIndex: 0, byId: false },
    ]);
  });
});
