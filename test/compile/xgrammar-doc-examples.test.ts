/**
 * Acceptance: `tagmask match --format` on every example of xgrammar's structural-tag
 * documentation (reconstructed in xgrammar-doc-examples.ts) gives xgrammar's verdict: match,
 * prefix, or where the output stops matching; token-level examples with `--tokens` and a token
 * list. Where xgrammar is looser, tagmask's stricter verdict is checked and docs/compatibility.md
 * names the difference. Examples inside xgrammar 0.1.27's subset are also run through that
 * version itself (@mlc-ai/web-xgrammar), one character per token, and must agree.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli, scratchDir } from "../helpers/cli.js";
import { loadWebXgrammar, type XgrCompiler } from "../helpers/web-xgrammar.js";
import { DOC_VOCAB, TEXT_EXAMPLES, TOKEN_EXAMPLES } from "./xgrammar-doc-examples.js";

const { file } = scratchDir("xgr-docs");
const utf8Length = (s: string) => new TextEncoder().encode(s).length;
const tagFile = (i: number, format: unknown) => file(`example-${i}.json`, JSON.stringify(format));

describe("xgrammar's documented structural tags: tagmask match --format gives xgrammar's verdict", () => {
  TEXT_EXAMPLES.forEach((ex, i) => {
    it(ex.name, async () => {
      const f = tagFile(i, ex.format);
      const verdict = async (input: string) => (await runCli(["match", "--format", f], input)).stdout;
      for (const s of ex.match) expect(await verdict(s), `match ${JSON.stringify(s)}`).toBe("match\n");
      for (const s of ex.prefix) expect(await verdict(s), `prefix ${JSON.stringify(s)}`).toBe("prefix\n");
      for (const [ok, rest] of ex.reject) expect(await verdict(ok + rest), `reject ${JSON.stringify(ok + rest)}`).toBe(`no match at byte ${utf8Length(ok)}\n`);
      for (const [ok, rest, section] of ex.stricter ?? []) {
        expect(await verdict(ok + rest), `stricter than xgrammar ${JSON.stringify(ok + rest)}`).toBe(`no match at byte ${utf8Length(ok)}\n`);
        expect(readFileSync(new URL("../../docs/compatibility.md", import.meta.url), "utf8")).toContain(section);
      }
    });
  });

  it("covers every format type of the documentation", () => {
    const types = new Set<string>();
    const visit = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v !== null && typeof v === "object") {
        const t = (v as { type?: unknown }).type;
        if (typeof t === "string") types.add(t);
        Object.values(v).forEach(visit);
      }
    };
    [...TEXT_EXAMPLES, ...TOKEN_EXAMPLES].forEach((ex) => visit(ex.format));
    for (const t of ["const_string", "json_schema", "grammar", "regex", "any_text", "sequence", "or", "optional", "plus", "star", "repeat", "tag",
      "triggered_tags", "tags_with_separator", "dispatch", "token", "exclude_token", "any_tokens", "token_triggered_tags", "token_dispatch", "structural_tag"]) {
      expect(types.has(t), t).toBe(true);
    }
  });
});

describe("xgrammar's documented token-level structural tags: tagmask match --tokens", () => {
  const vocab = file("vocab.json", JSON.stringify(DOC_VOCAB));
  TOKEN_EXAMPLES.forEach((ex, i) => {
    it(ex.name, async () => {
      const f = tagFile(100 + i, ex.format);
      const verdict = async (tokens: Array<string | number>) => (await runCli(["match", "--format", f, "--tokens", "--vocab", vocab], JSON.stringify(tokens))).stdout;
      for (const t of ex.match) expect(await verdict(t), `match ${JSON.stringify(t)}`).toBe("match\n");
      for (const t of ex.prefix) expect(await verdict(t), `prefix ${JSON.stringify(t)}`).toBe("prefix\n");
      for (const [t, at] of ex.reject) expect(await verdict(t), `reject ${JSON.stringify(t)}`).toBe(`no match at token ${at}\n`);
    });
  });
});

describe("the same verdicts from xgrammar 0.1.27 itself", () => {
  const peerExamples = TEXT_EXAMPLES.filter((ex) => ex.peer);
  const chars = [...new Set(peerExamples.flatMap((ex) => [...ex.match, ...ex.prefix, ...ex.reject.map(([a, b]) => a + b)].flatMap((s) => [...s])))];
  const vocab = ["</s>", ...chars];
  let compiler: XgrCompiler;
  beforeAll(async () => {
    const xg = loadWebXgrammar();
    compiler = await xg.GrammarCompiler.createGrammarCompiler(await xg.TokenizerInfo.createTokenizerInfo(vocab, "raw", false, vocab.length, [0]));
    (globalThis as { xgr?: typeof xg }).xgr = xg;
  });

  /** xgrammar's verdict: "match", "prefix", or the index of the first rejected character. */
  async function peerVerdict(compiled: unknown, input: string): Promise<string | number> {
    const xg = (globalThis as unknown as { xgr: ReturnType<typeof loadWebXgrammar> }).xgr;
    const m = await xg.GrammarMatcher.createGrammarMatcher(compiled as never);
    try {
      const cs = [...input];
      for (let k = 0; k < cs.length; k++) if (!m.acceptToken(vocab.indexOf(cs[k]!))) return k;
      return m.acceptToken(0) ? "match" : "prefix";
    } finally {
      m.dispose();
    }
  }

  it.each(peerExamples.map((ex) => [ex.name, ex] as const))("%s", async (_name, ex) => {
    const compiled = await compiler.compileStructuralTag(JSON.stringify({ type: "structural_tag", format: ex.format }));
    try {
      for (const s of ex.match) expect(await peerVerdict(compiled, s), `match ${JSON.stringify(s)}`).toBe("match");
      for (const s of ex.prefix) expect(await peerVerdict(compiled, s), `prefix ${JSON.stringify(s)}`).toBe("prefix");
      for (const [ok, rest] of ex.reject) expect(await peerVerdict(compiled, ok + rest), `reject ${JSON.stringify(ok + rest)}`).toBe([...ok].length);
    } finally {
      compiled.dispose();
    }
  });
});
