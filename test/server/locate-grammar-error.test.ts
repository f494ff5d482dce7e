/**
 * Tracing a grammar error back to the request field it came from: each part is lowered alone on
 * the lowering worker (a part can take seconds to refuse, and a request can carry a hundred
 * tools), so the event loop keeps turning while the server looks for the culprit.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { lowerFormat } from "../../lib/compile/lower.js";
import { SchemaError, ToolError } from "../../lib/errors.js";
import { locateGrammarError } from "../../lib/server/http-errors.js";
import { buildToolCallingFormat } from "../../lib/tools/index.js";
import type { FunctionTool, ToolCallingRequest } from "../../lib/tools/index.js";
import { ensureBuiltCli } from "../helpers/cli.js";

beforeAll(() => ensureBuiltCli(), 300_000);

const good = (name: string): FunctionTool => ({ type: "function", function: { name, parameters: { type: "object", properties: { a: { type: "integer" } } } } });
const bad: FunctionTool = { type: "function", function: { name: "bad", parameters: { type: "object", properties: { b: { type: "string", pattern: "(?<=x)b" } } } } };
const request: ToolCallingRequest = { family: "qwen3", tools: [good("one"), good("two"), bad], tool_choice: "auto" };

/** The error lowering the whole request throws. */
function wholeError(r: ToolCallingRequest): unknown {
  try {
    lowerFormat(buildToolCallingFormat(r)!);
  } catch (err) {
    return err;
  }
  throw new Error("the request lowered");
}

describe("locateGrammarError", () => {
  it("names the tool whose schema fails, found off the event loop", async () => {
    const err = wholeError(request);
    expect(err).toBeInstanceOf(SchemaError);
    let turned = false;
    setImmediate(() => (turned = true));
    const located = locateGrammarError(request, err);
    let turnedBeforeAnswer: boolean | undefined;
    const found = await located.then((r) => ((turnedBeforeAnswer = turned), r));
    expect(found?.status).toBe(400);
    expect(found?.param).toBe("tools[2].function.parameters");
    expect(found?.message).toMatch(/^tools\[2\]\.function\.parameters: the schema cannot be enforced \(keyword pattern\): #\/properties\/b\/pattern: .*look-around/);
    expect(turnedBeforeAnswer).toBe(true);
  });

  it("names response_format when the tools are fine", async () => {
    const r: ToolCallingRequest = { family: "qwen3", tools: [good("one")], tool_choice: "auto", response_format: { type: "json_schema", json_schema: { name: "r", schema: { type: "string", pattern: "(?=a)" } } } };
    const found = await locateGrammarError(r, wholeError(r));
    expect(found?.param).toBe("response_format");
  });

  it("gives up (null) when the signal aborts, and on errors that are not about the grammar", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await locateGrammarError(request, wholeError(request), controller.signal)).toBeNull();
    expect(await locateGrammarError(request, new ToolError("tools", "no"))).toBeNull();
  });
});
