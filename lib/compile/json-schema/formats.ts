/**
 * `format` as an assertion: each enforced format is an exact language over the string's code
 * points, from its RFC grammar. Unknown formats are annotations in JSON Schema 2020-12 and are
 * ignored; known formats that cannot be enforced exactly (host names with IDNA A-labels,
 * internationalized forms, URI templates, regexes) are refused.
 *
 * `time` and `date-time` allow the leap second (second 60) exactly when the UTC time is 23:59,
 * whatever the offset. As an automaton that needs thousands of states (the offset decides which
 * local minute may have a leap second), so the usual emission is a compact grammar instead
 * ({@link formatIr}); the automaton is built only when another string keyword must be combined
 * with the format.
 */
import { choice, lit, seq, type GrammarBuilder, type IrExpr } from "../ir.js";
import { DfaBuilder, minimize, union, type Dfa } from "./automaton.js";
import { dfaToIr, type RangeEncoder } from "./dfa-ir.js";
import { regexToDfa } from "./regex.js";
import { Unsupported } from "./shape.js";

const pad2 = (n: number): string => String(n).padStart(2, "0");

// ---- regular expressions (anchored, ASCII unless stated) --------------------------------------

const DIGIT = "[0-9]";
const HEX = "[0-9A-Fa-f]";
const DEC_OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
const IPV4 = `${DEC_OCTET}(\\.${DEC_OCTET}){3}`;
const H16 = `${HEX}{1,4}`;
const LS32 = `(${H16}:${H16}|${IPV4})`;
const IPV6 = [
  `(${H16}:){6}${LS32}`,
  `::(${H16}:){5}${LS32}`,
  `(${H16})?::(${H16}:){4}${LS32}`,
  `((${H16}:){0,1}${H16})?::(${H16}:){3}${LS32}`,
  `((${H16}:){0,2}${H16})?::(${H16}:){2}${LS32}`,
  `((${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `((${H16}:){0,4}${H16})?::${LS32}`,
  `((${H16}:){0,5}${H16})?::${H16}`,
  `((${H16}:){0,6}${H16})?::`,
]
  .map((x) => `(${x})`)
  .join("|");

const YEAR = `${DIGIT}{4}`;
/** Four-digit years divisible by 4, except centuries not divisible by 400. */
const LEAP_YEAR = `(${DIGIT}{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)`;
const DAY_31 = "(0[1-9]|[12][0-9]|3[01])";
const DAY_30 = "(0[1-9]|[12][0-9]|30)";
const DAY_28 = "(0[1-9]|1[0-9]|2[0-8])";
const DATE = `(${YEAR}-(0[13578]|1[02])-${DAY_31}|${YEAR}-(0[469]|11)-${DAY_30}|${YEAR}-02-${DAY_28}|${LEAP_YEAR}-02-29)`;
const FRAC = `(\\.${DIGIT}+)?`;
const NUM_OFFSET = "[+-]([01][0-9]|2[0-3]):[0-5][0-9]";
/** A time without the leap second. */
const TIME_NO_LEAP = `([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]${FRAC}([Zz]|${NUM_OFFSET})`;

const DUR_TIME = "T([0-9]+H([0-9]+M([0-9]+S)?)?|[0-9]+M([0-9]+S)?|[0-9]+S)";
const DUR_DATE = `([0-9]+D|[0-9]+M([0-9]+D)?|[0-9]+Y([0-9]+M([0-9]+D)?)?)(${DUR_TIME})?`;
const DURATION = `P(${DUR_DATE}|${DUR_TIME}|[0-9]+W)`;

const UUID = `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`;

const POINTER = "(/([^~/]|~[01])*)*";
const RELATIVE_POINTER = `(0|[1-9][0-9]*)(#|${POINTER})`;

// RFC 3986.
const UNRESERVED = "A-Za-z0-9\\-._~";
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = `%${HEX}{2}`;
const PCHAR = `([${UNRESERVED}${SUB_DELIMS}:@]|${PCT})`;
const SCHEME = "[A-Za-z][A-Za-z0-9+\\-.]*";
const USERINFO = `([${UNRESERVED}${SUB_DELIMS}:]|${PCT})*`;
const IP_FUTURE = `v${HEX}+\\.[${UNRESERVED}${SUB_DELIMS}:]+`;
const IP_LITERAL = `\\[(${IPV6}|${IP_FUTURE})\\]`;
const REG_NAME = `([${UNRESERVED}${SUB_DELIMS}]|${PCT})*`;
const HOST = `(${IP_LITERAL}|${REG_NAME})`;
const AUTHORITY = `(${USERINFO}@)?${HOST}(:[0-9]*)?`;
const SEGMENT = `${PCHAR}*`;
const SEGMENT_NZ = `${PCHAR}+`;
const SEGMENT_NZ_NC = `([${UNRESERVED}${SUB_DELIMS}@]|${PCT})+`;
const PATH_ABEMPTY = `(/${SEGMENT})*`;
const PATH_ABSOLUTE = `/(${SEGMENT_NZ}(/${SEGMENT})*)?`;
const PATH_ROOTLESS = `${SEGMENT_NZ}(/${SEGMENT})*`;
const PATH_NOSCHEME = `${SEGMENT_NZ_NC}(/${SEGMENT})*`;
const QUERY = `(${PCHAR}|[/?])*`;
const URI = `${SCHEME}:(//${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PATH_ROOTLESS})?(\\?${QUERY})?(#${QUERY})?`;
const RELATIVE_REF = `(//${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PATH_NOSCHEME})?(\\?${QUERY})?(#${QUERY})?`;

// RFC 5321 Mailbox (the domain's labels limited to 63 characters, as DNS requires).
const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]";
const DOT_STRING = `${ATEXT}+(\\.${ATEXT}+)*`;
const QUOTED_STRING = '"([ !#-\\[\\]-~]|\\\\[ -~])*"';
const SUB_DOMAIN = "[A-Za-z0-9]([A-Za-z0-9\\-]{0,61}[A-Za-z0-9])?";
const DOMAIN = `${SUB_DOMAIN}(\\.${SUB_DOMAIN})*`;
const ADDRESS_LITERAL = `\\[(${IPV4}|IPv6:(${IPV6}))\\]`;
const EMAIL = `(${DOT_STRING}|${QUOTED_STRING})@(${DOMAIN}|${ADDRESS_LITERAL})`;

/** The formats enforced, as anchored patterns (time and date-time get their leap seconds apart). */
const PATTERNS: Record<string, string> = {
  date: DATE,
  duration: DURATION,
  uuid: UUID,
  ipv4: IPV4,
  ipv6: IPV6,
  email: EMAIL,
  uri: URI,
  "uri-reference": `(${URI}|${RELATIVE_REF})`,
  "json-pointer": POINTER,
  "relative-json-pointer": RELATIVE_POINTER,
};

/** Known formats refused, with why. */
const REFUSED: Record<string, string> = {
  hostname: "host names with IDNA A-labels (xn--…) need Punycode decoding to validate",
  "idn-hostname": "internationalized host names need IDNA tables to validate",
  "idn-email": "internationalized e-mail addresses need IDNA tables to validate",
  iri: "IRIs are not enforced",
  "iri-reference": "IRI references are not enforced",
  "uri-template": "URI templates are not enforced",
  regex: "the language of valid regular expressions is not regular",
};

/** The formats the compiler enforces. */
export const ENFORCED_FORMATS: readonly string[] = [...Object.keys(PATTERNS), "time", "date-time"].sort();
/** Known formats refused in strict mode. */
export const REFUSED_FORMATS: Readonly<Record<string, string>> = REFUSED;

/** What `format` means here: enforced, refused (with a reason), or an ignored annotation. */
export function formatKind(format: string): "enforced" | "refused" | "ignored" {
  if (ENFORCED_FORMATS.includes(format)) return "enforced";
  if (REFUSED[format] !== undefined) return "refused";
  return "ignored";
}

/** Throws Unsupported for a refused format. */
export function checkFormat(format: string): void {
  const reason = REFUSED[format];
  if (reason !== undefined) throw new Unsupported("format", `format "${format}" cannot be enforced exactly: ${reason}`);
}

// ---- leap seconds ----------------------------------------------------------------------------

/**
 * The (local time, offset) pairs of a leap second: local HH:MM and the numeric offset such that
 * the UTC time is 23:59. With `+`: offset = local − 23:59; with `-`: offset = 23:59 − local.
 */
function leapPairs(): Array<[local: string, offset: string]> {
  const out: Array<[string, string]> = [];
  for (let local = 0; local < 1440; local++) {
    const l = `${pad2(Math.floor(local / 60))}:${pad2(local % 60)}`;
    const plus = (local - 1439 + 1440) % 1440;
    const minus = (1439 - local + 1440) % 1440;
    out.push([l, `+${pad2(Math.floor(plus / 60))}:${pad2(plus % 60)}`]);
    out.push([l, `-${pad2(Math.floor(minus / 60))}:${pad2(minus % 60)}`]);
  }
  return out;
}

/** The leap-second times as an automaton (thousands of states; built on demand). */
function leapDfa(): Dfa {
  const b = new DfaBuilder();
  const start = b.addState();
  const D: Array<[number, number]> = [[0x30, 0x39]];
  const ch = (c: string): Array<[number, number]> => [[c.charCodeAt(0), c.charCodeAt(0)]];
  // Prefix trie over "HH:MM:60", then FRAC, then the offset trie (shared by suffix).
  const trie = new Map<string, number>();
  const walk = (from: number, text: string, keyPrefix: string): number => {
    let s = from;
    let key = keyPrefix;
    for (const c of text) {
      key += c;
      let next = trie.get(key);
      if (next === undefined) {
        next = b.addState();
        trie.set(key, next);
        b.addEdge(s, ch(c), next);
      }
      s = next;
    }
    return s;
  };
  const accept = b.addState(true);
  const suffix = new Map<string, number>();
  // A state that reads exactly `text` then accepts, shared between equal texts.
  const tail = (text: string): number => {
    if (text === "") return accept;
    let s = suffix.get(text);
    if (s === undefined) {
      s = b.addState();
      suffix.set(text, s);
      b.addEdge(s, ch(text[0]!), tail(text.slice(1)));
    }
    return s;
  };
  const byLocal = new Map<string, string[]>();
  for (const [l, off] of leapPairs()) {
    const list = byLocal.get(l) ?? [];
    list.push(off);
    byLocal.set(l, list);
  }
  for (const [l, offsets] of byLocal) {
    const after60 = walk(start, `${l}:60`, "");
    const dot = b.addState();
    const frac = b.addState();
    b.addEdge(after60, ch("."), dot);
    b.addEdge(dot, D, frac);
    b.addEdge(frac, D, frac);
    for (const from of [after60, frac]) {
      for (const off of offsets) b.addEdge(from, ch(off[0]!), tail(off.slice(1)));
      if (l === "23:59") b.addEdge(from, [[0x5a, 0x5a], [0x7a, 0x7a]], accept);
    }
  }
  // Offsets of one local time start with + and - only: edges never overlap.
  return minimize(b.build(start));
}

const dfaCache = new Map<string, Dfa>();

/** The exact automaton of an enforced format (cached). */
export function formatDfa(format: string): Dfa {
  let d = dfaCache.get(format);
  if (d) return d;
  if (format === "time") d = union(regexToDfa(`^${TIME_NO_LEAP}$`, true), leapDfa());
  else if (format === "date-time") {
    const date = regexToDfa(`^${DATE}[Tt]$`, true);
    d = concatDfa(date, formatDfa("time"));
  } else {
    const src = PATTERNS[format];
    if (src === undefined) throw new Unsupported("format", `format "${format}" is not enforced`);
    d = regexToDfa(`^(${src})$`, true);
  }
  dfaCache.set(format, d);
  return d;
}

/**
 * An automaton whose strings have exactly the lengths of the format's: for `time` and
 * `date-time` the one without leap seconds (a leap second `…:60` has the length of `…:59`),
 * which is a thousandth of the size.
 */
export function formatLengthDfa(format: string): Dfa {
  if (format === "time") return regexToDfa(`^${TIME_NO_LEAP}$`, true);
  if (format === "date-time") return regexToDfa(`^${DATE}[Tt]${TIME_NO_LEAP}$`, true);
  return formatDfa(format);
}

/** The concatenation of two DFAs (by NFA-free construction: a's accepting states also act as b's start). */
function concatDfa(a: Dfa, bDfa: Dfa): Dfa {
  // `a` (date + "T") has no edges out of its accepting state, so merging is deterministic.
  const out = new DfaBuilder();
  const offset = a.accept.length;
  a.accept.forEach(() => out.addState(false));
  bDfa.accept.forEach((acc) => out.addState(acc));
  a.edges.forEach((list, s) => {
    if (a.accept[s] && list.length > 0) throw new Error("concatDfa: first automaton must end in sink states");
    for (const [lo, hi, to] of list) out.edges[s]!.push([lo, hi, to]);
  });
  bDfa.edges.forEach((list, s) => {
    for (const [lo, hi, to] of list) out.edges[s + offset]!.push([lo, hi, to + offset]);
  });
  a.accept.forEach((acc, s) => {
    if (!acc) return;
    for (const [lo, hi, to] of bDfa.edges[bDfa.start]!) out.edges[s]!.push([lo, hi, to + offset]);
    if (bDfa.accept[bDfa.start]) out.accept[s] = true;
  });
  return minimize(out.build(a.start));
}

// ---- compact emission ------------------------------------------------------------------------

/** A memoizing rule maker (JsonText.rule). */
export type RuleMaker = (name: string, body: () => IrExpr) => IrExpr;

/**
 * IR for the inside of a JSON string holding this format, canonically encoded. For `time` and
 * `date-time` a compact grammar (a few thousand nodes, shared per grammar) instead of the
 * automaton; other formats go through their (small) automata.
 */
export function formatIr(format: string, b: GrammarBuilder, rule: RuleMaker, encode: RangeEncoder, ruleName: (hint: string) => string): IrExpr {
  if (format === "time") return rule("format_time", () => timeIr(b, rule, encode, ruleName));
  if (format === "date-time") {
    return rule("format_date_time", () => seq(dfaToIr(regexToDfa(`^${DATE}[Tt]$`, true), b, ruleName("date"), encode), formatIr("time", b, rule, encode, ruleName)));
  }
  return rule(`format_${format.replace(/[^a-z0-9]/g, "_")}`, () => dfaToIr(formatDfa(format), b, ruleName(`format_${format}`), encode));
}

function timeIr(b: GrammarBuilder, rule: RuleMaker, encode: RangeEncoder, ruleName: (hint: string) => string): IrExpr {
  const normal = dfaToIr(regexToDfa(`^${TIME_NO_LEAP}$`, true), b, ruleName("time"), encode);
  const frac = rule("time_frac", () => dfaToIr(regexToDfa(`^${FRAC}$`, true), b, ruleName("frac"), encode));
  const minutes = Array.from({ length: 60 }, (_, m) => lit(`${pad2(m)}:60`));
  const mm = Array.from({ length: 60 }, (_, m) => lit(pad2(m)));
  const hours: IrExpr[] = [];
  for (let h = 0; h < 24; h++) {
    // After the fraction: "+HH:" with HH = h (minute carries), or "-HH:" with HH = 23 - h.
    const plus = rule(`leap_plus_${h}`, () => seq(frac, lit(`+${pad2(h)}:`)));
    const minus = rule(`leap_minus_${h}`, () => seq(frac, lit(`-${pad2(23 - h)}:`)));
    const alts: IrExpr[] = [];
    for (let m = 0; m < 59; m++) alts.push(seq(minutes[m]!, plus, mm[m + 1]!));
    alts.push(seq(minutes[59]!, frac, lit(`+${pad2((h + 1) % 24)}:00`)));
    for (let m = 0; m < 60; m++) alts.push(seq(minutes[m]!, minus, mm[59 - m]!));
    if (h === 23) alts.push(seq(minutes[59]!, frac, choice(lit("Z"), lit("z"))));
    hours.push(seq(lit(`${pad2(h)}:`), choice(...alts)));
  }
  return choice(normal, rule("leap_second", () => choice(...hours)));
}
