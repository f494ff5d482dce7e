/**
 * ajv instances for checking generated JSON, with `multipleOf` checked exactly on the decimal
 * value — the number as written in the instance text when read with {@link parseInstance}
 * (otherwise its shortest decimal) — as JSON Schema specifies and the compiler enforces: ajv's own
 * check divides floats (0.3 / 0.1 is not 3), or with `multipleOfPrecision` calls any tiny number
 * a multiple of anything.
 */
import Ajv2020 from "ajv/dist/2020.js";
import Ajv from "ajv";
import { numberText } from "../../lib/format/exact-numbers.js";
import { parseJsonText } from "../../lib/format/json-text.js";

type AjvInstance = {
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: unknown };
  removeKeyword(keyword: string): AjvInstance;
  addKeyword(definition: object): AjvInstance;
};

/** x as n / 10^scale, from its text (default: its shortest decimal). */
function decimal(x: number, text = String(x)): { n: bigint; scale: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) throw new RangeError(`not a finite number: ${x}`);
  const n = BigInt(`${m[1]}${m[2]}${m[3] ?? ""}`);
  const scale = (m[3] ?? "").length - Number(m[4] ?? "0");
  return scale >= 0 ? { n, scale } : { n: n * 10n ** BigInt(-scale), scale: 0 };
}

/** Whether x (written as `text`, when given) is an integer multiple of q (q > 0), by decimal value. */
export function exactMultipleOf(x: number, q: number, text?: string): boolean {
  if (!Number.isFinite(x)) return false;
  const a = decimal(x, text);
  const b = decimal(q);
  return (a.n * 10n ** BigInt(b.scale)) % (b.n * 10n ** BigInt(a.scale)) === 0n;
}

/** An ajv for draft 2020-12 ("2020") or draft-07 ("07"), formats off, exact multipleOf, all errors. */
export function exactAjv(draft: "2020" | "07" = "2020"): AjvInstance {
  const AjvClass = (draft === "2020" ? Ajv2020 : Ajv) as unknown as new (o: object) => AjvInstance;
  // allErrors: ajv 8.20's default code path accepts [] for {prefixItems: [{const: []}], contains: …}.
  const ajv = new AjvClass({ strict: false, validateFormats: false, allErrors: true });
  ajv.removeKeyword("multipleOf");
  ajv.addKeyword({
    keyword: "multipleOf",
    type: "number",
    schemaType: "number",
    validate: (q: number, x: number, _parent: unknown, cxt?: { parentData?: object; parentDataProperty?: string | number }) =>
      exactMultipleOf(x, q, cxt?.parentData !== undefined && cxt.parentDataProperty !== undefined ? numberText(cxt.parentData, cxt.parentDataProperty) : rootText),
  });
  return ajv;
}

/** The text of the last instance read by parseInstance when it is a number (read every instance with it). */
let rootText: string | undefined;

/** Reads instance text for exactAjv, keeping the written text of numbers no double holds. */
export function parseInstance(text: string): unknown {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch {
    // Numbers past the doubles (1e400, which JSON.parse turns into Infinity) are still JSON.
    value = JSON.parse(text);
  }
  rootText = typeof value === "number" ? text.trim() : undefined;
  return value;
}
