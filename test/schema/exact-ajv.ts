/**
 * ajv instances for checking generated JSON, with `multipleOf` checked exactly on the decimal
 * value (the number's shortest decimal), as JSON Schema specifies and the compiler enforces:
 * ajv's own check divides floats (0.3 / 0.1 is not 3), or with `multipleOfPrecision` calls any
 * tiny number a multiple of anything.
 */
import Ajv2020 from "ajv/dist/2020.js";
import Ajv from "ajv";

type AjvInstance = {
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: unknown };
  removeKeyword(keyword: string): AjvInstance;
  addKeyword(definition: object): AjvInstance;
};

/** x as n / 10^scale, from its shortest decimal. */
function decimal(x: number): { n: bigint; scale: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x));
  if (!m) throw new RangeError(`not a finite number: ${x}`);
  const n = BigInt(`${m[1]}${m[2]}${m[3] ?? ""}`);
  const scale = (m[3] ?? "").length - Number(m[4] ?? "0");
  return scale >= 0 ? { n, scale } : { n: n * 10n ** BigInt(-scale), scale: 0 };
}

/** Whether x is an integer multiple of q (q > 0), by decimal value. */
export function exactMultipleOf(x: number, q: number): boolean {
  if (!Number.isFinite(x)) return false;
  const a = decimal(x);
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
    validate: (q: number, x: number) => exactMultipleOf(x, q),
  });
  return ajv;
}
