import { describe, expect, it } from "vitest";
import { runtime } from "../lib/index.js";
import { native } from "../lib/native.js";
import { InvalidArgumentError } from "../lib/errors.js";

describe("runtime()", () => {
  it("reports the addon version and the CUDA build status", () => {
    const info = runtime();
    expect(info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(typeof info.cuda.compiled).toBe("boolean");
    expect(Number.isInteger(info.cuda.deviceCount)).toBe(true);
    expect(info.cuda.deviceCount).toBeGreaterThanOrEqual(0);
    if (info.cuda.compiled) {
      expect(info.cuda.runtimeVersion).toBeGreaterThanOrEqual(12000);
    } else {
      expect(info.cuda.runtimeVersion).toBeNull();
      expect(info.cuda.deviceCount).toBe(0);
    }
    if (info.cuda.deviceCount === 0) expect(info.cuda.status).not.toBe("ok");
    else expect(info.cuda.status).toBe("ok");
  });

  it("maps native argument errors to typed JS errors", () => {
    expect(() => native().setErrorClasses(null as unknown as Record<string, never>)).toThrow(InvalidArgumentError);
  });
});
