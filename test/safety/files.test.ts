/**
 * Reading files named by users: only regular files, never past a size limit, strict UTF-8 where
 * text is read (lib/regular-file.ts, lib/cli/files.ts).
 */
import { spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { invalidUtf8Offset, readOptionBytes, readOptionText, readStdinBytes, readStdinText } from "../../lib/cli/files.js";
import { InvalidArgumentError } from "../../lib/errors.js";
import { FileReadFailure, readRegularFile } from "../../lib/regular-file.js";
import { ensureBuiltCli, runCli, scratchDir } from "../helpers/cli.js";
import { CLI } from "./child.js";
import { mkfifoSync } from "./fifo.js";

const scratch = scratchDir("safety-files");

describe("readRegularFile", () => {
  const why = (path: string, limit?: number): string => {
    try {
      readRegularFile(path, limit);
    } catch (err) {
      expect(err).toBeInstanceOf(FileReadFailure);
      return (err as FileReadFailure).why;
    }
    return "read";
  };

  const cases: Array<[string, () => string, number | undefined, string]> = [
    ["a regular file", () => scratch.file("a.txt", "hello"), undefined, "read"],
    ["an empty file", () => scratch.file("empty.txt", ""), undefined, "read"],
    ["a file exactly at the limit", () => scratch.file("five.txt", "12345"), 5, "read"],
    ["a file past the limit", () => scratch.file("six.txt", "123456"), 5, "it has 6 bytes, more than the limit of 5"],
    ["a missing file", () => `${scratch.dir}/missing`, undefined, "no such file"],
    ["a directory", () => scratch.dir, undefined, "it is a directory"],
    ["/dev/zero", () => "/dev/zero", undefined, "it is a character device, not a regular file"],
    ["a FIFO without a writer", () => mkfifoSync(scratch.dir), undefined, "it is a FIFO or pipe, not a regular file"],
  ];
  it.each(cases)("%s", (_name, path, limit, expected) => {
    expect(why(path(), limit)).toBe(expected);
  });

  it("reads the bytes as they are", () => {
    const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7) & 0xff);
    expect(Array.from(readRegularFile(scratch.file("big.bin", bytes)))).toEqual(Array.from(bytes));
  });

  it("a file in /proc (size 0 reported) is read to its end", () => {
    expect(new TextDecoder().decode(readRegularFile("/proc/self/stat")).length).toBeGreaterThan(0);
  });
});

describe("option files", () => {
  it("name the option and the file", () => {
    expect(() => readOptionBytes("/dev/zero", "--input")).toThrow(new InvalidArgumentError("--input /dev/zero: cannot read the file (it is a character device, not a regular file)"));
  });

  it("text must be UTF-8: the first bad byte is named, nothing is replaced", () => {
    const path = scratch.file("latin1.txt", Uint8Array.of(0x63, 0x61, 0x0a, 0x66, 0xe9, 0x21));
    expect(() => readOptionText(path, "--input")).toThrow(/--input .*latin1\.txt: not UTF-8 text: invalid byte sequence at byte 4 \(line 2, column 2: e9 21\)/);
    // A byte-order mark is kept as text (as when the file is read as UTF-8 by Node).
    expect(readOptionText(scratch.file("bom.txt", "\ufeffa"), "--input")).toBe("\ufeffa");
  });

  it("invalidUtf8Offset agrees with a strict decoder on random bytes", () => {
    const strict = new TextDecoder("utf-8", { fatal: true });
    const valid = (b: Uint8Array): boolean => {
      try {
        strict.decode(b);
        return true;
      } catch {
        return false;
      }
    };
    // Bytes around the UTF-8 boundaries: ASCII, continuation bytes, every lead byte kind.
    const byte = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0xbf }), fc.integer({ min: 0xc0, max: 0xff }));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 12 }), (xs) => {
        const b = Uint8Array.from(xs);
        const at = invalidUtf8Offset(b);
        expect(at === -1).toBe(valid(b));
        if (at >= 0) expect(valid(b.subarray(0, at))).toBe(true);
      }),
      { seed: 11, numRuns: 3000 },
    );
  });
});

describe("standard input", () => {
  const stream = (...chunks: Array<string | Uint8Array>): PassThrough => {
    const s = new PassThrough();
    for (const c of chunks) s.write(c);
    s.end();
    return s;
  };

  it("is read to its end up to the limit, and refused past it", async () => {
    expect(Array.from(await readStdinBytes(stream("ab", Uint8Array.of(0xff)), 3))).toEqual([0x61, 0x62, 0xff]);
    await expect(readStdinBytes(stream("ab", "cd"), 3)).rejects.toThrow(new InvalidArgumentError(
      "standard input: more than 3 bytes; pass a smaller text (or a file with --input, which has the same limit)",
    ));
  });

  it("text must be UTF-8 (a character split across chunks is fine)", async () => {
    expect(await readStdinText(stream(Uint8Array.of(0x63, 0xc3), Uint8Array.of(0xa9)))).toBe("c\u00e9");
    await expect(readStdinText(stream(Uint8Array.of(0x63, 0x0a, 0x66, 0xe9, 0x21)))).rejects.toThrow(
      /^standard input: not UTF-8 text: invalid byte sequence at byte 3 \(line 2, column 2: e9 21\)/,
    );
  });

  it("tagmask parse refuses a model output that is not UTF-8 (exit 2, one line)", async () => {
    const r = await runCli(["parse", "--family", "hermes"], Uint8Array.of(0x63, 0x61, 0x66, 0xe9));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/standard input: not UTF-8 text: invalid byte sequence at byte 3/);
  });

  it("tagmask match < /dev/zero stops at the limit (exit 2) instead of reading forever", () => {
    ensureBuiltCli();
    const zero = openSync("/dev/zero", "r");
    try {
      const r = spawnSync(process.execPath, [CLI, "match", "--regex", "a"], { stdio: [zero, "pipe", "pipe"], encoding: "utf8", timeout: 60_000 });
      expect(r.signal).toBeNull();
      expect(r.status).toBe(2);
      expect(r.stderr.trim()).toMatch(/^tagmask match: InvalidArgumentError: standard input: more than 268435456 bytes/);
    } finally {
      closeSync(zero);
    }
  });
});
