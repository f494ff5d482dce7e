import { describe, expect, it } from "vitest";
import { printGrammar, serializeGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch, isViablePrefix } from "../../lib/compile/recognizer.js";
import { expectGolden } from "./golden.js";
import { seedNames, seeds, type SeedName } from "../helpers/seeds.js";

// Pieces of Kimi K3 output.
const resp = "<|open|>response<|sep|>";
const endResp = "<|close|>response<|sep|>";
const tools = "<|open|>tools<|sep|>";
const endTools = "<|close|>tools<|sep|>";
const endMsg = "<|close|>message<|sep|>";
const callOpen = (name: string, index: string): string => `<|open|>call tool="${name}" index="${index}"<|sep|>`;
const endCall = "<|close|>call<|sep|>";
const arg = (key: string, type: string, value: string): string => `<|open|>argument key="${key}" type="${type}"<|sep|>${value}<|close|>argument<|sep|>`;
const json = (value: string): string => `<|open|>json type="object"<|sep|>${value}<|close|>json<|sep|>`;

const weather = (index: string, city: string): string => callOpen("get_weather", index) + arg("location", "string", city) + endCall;
const weatherJson = (index: string): string => callOpen("get_weather", index) + json('{"location": "Paris, FR"}') + endCall;
const addCall = (index: string): string =>
  callOpen("add", index) + arg("y", "number", "1.5") + arg("x", "number", "-2") + arg("items", "array", '["a", "b<|close|>"]') + endCall;
const addJson = (index: string): string => callOpen("add", index) + json('{"y": 1, "x": 2e3, "items": []}') + endCall;

interface SeedCases {
  match: string[];
  prefix: string[];
  reject: string[];
}

const both: SeedCases = {
  match: [
    resp + "Let me check." + endResp + tools + weather("1", "Paris") + endTools + endMsg,
    "Sure." + endResp + tools + weather("1", "Paris") + endTools + endMsg,
    endResp + tools + weather("1", "") + endTools,
    resp + endResp + tools + weatherJson("1") + endTools + endMsg,
    "x" + endResp + tools + weather("1", "Tōkyō 東京 <|close|>argument") + weather("2", "Oslo") + endTools + endMsg,
    "a < b |>" + endResp + tools + weather("12", "a<|close|>call") + endTools,
  ],
  prefix: [
    "",
    resp,
    resp + "Let me",
    "Hi" + endResp,
    "Hi" + endResp + tools,
    "Hi" + endResp + tools + callOpen("get_weather", "1").slice(0, 20),
    "Hi" + endResp + tools + callOpen("get_weather", "1") + '<|open|>argument key="location" type="string"<|sep|>Par',
    "Hi" + endResp + tools + callOpen("get_weather", "1") + '<|open|>json type="object"<|sep|>{"location": "Pa',
    "Hi" + endResp + tools + weather("1", "Paris"),
    "Hi" + endResp + tools + weather("1", "Paris") + endTools + "<|close|>mess",
    "Hi" + endResp + tools + callOpen("get_weather", "10"),
  ],
  reject: [
    resp + resp + endResp + tools + weather("1", "Paris") + endTools,
    "Hi <|open|> there" + endResp,
    "Hi<|end_of_msg|>",
    "Hi" + endResp + tools + callOpen("get_weather", "0"),
    "Hi" + endResp + tools + callOpen("get_weather", "01"),
    "Hi" + endResp + tools + callOpen("search", "1"),
    "Hi" + endResp + tools + callOpen("get_weather", "1") + arg("location", "string", "Paris<|close|>call<|sep|>"),
    "Hi" + endResp + tools + callOpen("get_weather", "1") + arg("city", "string", "Paris"),
    "Hi" + endResp + tools + endTools,
    "Hi" + endResp + tools + weather("1", "Paris") + endTools + endMsg + "more",
    "Hi" + endResp + tools + weather("1", "Paris") + "," + weather("2", "Rome") + endTools,
    "Hi" + endResp + tools + weather("1", "Paris") + endTools + tools,
    "Hi" + endResp + tools + callOpen("get_weather", "1") + json("{location: 1}"),
    "Hi" + endResp + tools + callOpen("get_weather", "1") + json('{"location": "P"} ') + endCall,
  ],
};

const cases: Record<SeedName, SeedCases> = {
  auto: {
    match: [
      ...both.match,
      "Hello there." + endResp,
      resp + "Hello." + endResp + endMsg,
      endResp,
      "Done." + endResp + tools + addCall("1") + addJson("2") + weather("3", "Rome") + endTools + endMsg,
    ],
    prefix: both.prefix.filter((p) => !p.endsWith(endResp)),
    reject: [...both.reject, "Hello" + endResp + "more", "Hello" + endResp + endMsg + endMsg],
  },
  named: {
    match: both.match,
    prefix: [...both.prefix, "Hello there." + endResp],
    reject: [
      ...both.reject,
      "Hello there." + endResp + endMsg,
      "Hi" + endResp + tools + addCall("1") + endTools,
      "Hi" + endResp + tools + weather("1", "Paris") + addJson("2") + endTools,
    ],
  },
  required: {
    match: [...both.match, "Hi" + endResp + tools + addCall("1") + addJson("2") + weatherJson("3") + endTools + endMsg],
    prefix: [...both.prefix, "Hello there." + endResp, "Hi" + endResp + tools + callOpen("add", "1") + arg("y", "number", "1") + '<|open|>argument key="x"'],
    reject: [
      ...both.reject,
      "Hello there." + endResp + endMsg,
      // Arguments in declared order, all required.
      "Hi" + endResp + tools + callOpen("add", "1") + arg("x", "number", "1") + arg("y", "number", "1"),
      "Hi" + endResp + tools + callOpen("add", "1") + arg("y", "number", "1") + arg("x", "number", "2") + endCall,
    ],
  },
};

describe("seed structural tags", () => {
  for (const name of seedNames) {
    describe(name, () => {
      const grammar = lowerFormat(seeds[name]);
      it("matches complete outputs", () => {
        for (const s of cases[name].match) expect(isMatch(grammar, s), s).toBe(true);
      });
      it("keeps partial outputs viable", () => {
        for (const s of cases[name].prefix) {
          expect(isMatch(grammar, s), `not yet a match: ${s}`).toBe(false);
          expect(isViablePrefix(grammar, s), `viable: ${s}`).toBe(true);
        }
      });
      it("rejects outputs that break the format", () => {
        for (const s of cases[name].reject) expect(isMatch(grammar, s), s).toBe(false);
        for (const s of cases[name].reject) {
          // Every rejected case here goes wrong before its end, not just by stopping early.
          expect(isViablePrefix(grammar, s), `dead: ${s}`).toBe(false);
        }
      });
      it("lowers to the golden grammar", () => {
        expectGolden(`seed-${name}.txt`, printGrammar(grammar));
        expect(serializeGrammar(grammar).length).toBeGreaterThan(0);
      });
    });
  }
  it("covers at least 90 strings over the three seeds", () => {
    const n = seedNames.reduce((sum, s) => sum + cases[s].match.length + cases[s].prefix.length + cases[s].reject.length, 0);
    expect(n).toBeGreaterThanOrEqual(90);
  });
});
