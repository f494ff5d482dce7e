import { it } from "vitest";
import { lowerFormat } from "../lib/compile/lower.js";
it("x", () => {
  for (const g of ['root ::= value ">"\nvalue[max_chars=2] ::= [^]*', 'root ::= [a]* (= "b")', "root ::= \"a\" | \"\"", 'root ::= [^]*', 'root ::= "a"{2,3}']) {
    try { lowerFormat({ type: "grammar", grammar: g } as never); console.log("OK", JSON.stringify(g)); } catch (e) { console.log("ERR", JSON.stringify(g), (e as Error).message); }
  }
});
