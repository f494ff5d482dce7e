/**
 * Reading files named by users: only regular files, never past a size limit, strict UTF-8 where
 * text is read (lib/regular-file.ts, lib/cli/files.ts).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { invalidUtf8Offset, readOptionBytes, readOptionText } from "../../lib/cli/files.js";
import { InvalidArgumentError } from "../../lib/errors.js";
import { FileReadFailure, readRegularFile } from "../../lib/regular-file.js";
import { scratchDir } from "../helpers/cli.js";
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
