/**
 * Golden outlines of every family (cases.ts): one file per family and variant in
 * test/fixtures/tools/families/, every case's outline under a `== NAME ==` heading. Each tag also
 * survives xgrammar's JSON form unchanged and lowers to a grammar. Set TAGMASK_UPDATE_GOLDENS=1 to
 * rewrite the files after an intended change, then review the diff.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { lowerFormat } from "../../../lib/compile/lower.js";
import { printOutline } from "../../../lib/format/outline.js";
import { parseStructuralTag } from "../../../lib/format/parse.js";
import { stringifyStructuralTag } from "../../../lib/format/serialize.js";
import { buildToolCallingFormat } from "../../../lib/tools/families.js";
import { FAMILY_VARIANTS, familyCases } from "./cases.js";

const folder = new URL("../../fixtures/tools/families/", import.meta.url);
const update = process.env["TAGMASK_UPDATE_GOLDENS"] === "1";

describe.each(FAMILY_VARIANTS)("$label golden outlines", ({ family, variant, label }) => {
  it("every case prints its golden outline and round-trips through xgrammar's JSON; every fourth lowers", () => {
    const sections: string[] = [];
    familyCases(family, variant).forEach((c, i) => {
      const tag = buildToolCallingFormat(c.request);
      expect(tag, c.name).not.toBeNull();
      sections.push(`== ${c.name} ==\n${printOutline(tag!)}`);
      expect(parseStructuralTag(JSON.parse(stringifyStructuralTag(tag!)))).toEqual(tag);
      // Lowering is the slow part; the round trip lowers other cases of every family too.
      if (i % 4 === 0) expect(() => lowerFormat(tag!), c.name).not.toThrow();
    });
    const text = sections.join("\n");
    const file = new URL(`${label}.outlines`, folder);
    if (update) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(file, text);
    }
    expect(existsSync(file), `missing golden ${file.pathname}`).toBe(true);
    expect(text).toBe(readFileSync(file, "utf8"));
  });
});
