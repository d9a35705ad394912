import { describe, expect, it } from "vitest";
import { pythonUtcIso } from "../../../src/codec/python-datetime.js";

describe("pythonUtcIso", () => {
  it("is Python's utcnow().isoformat() + 'Z': microseconds only when there are any", () => {
    expect(pythonUtcIso(new Date(Date.UTC(2026, 10, 21, 18, 4, 43)))).toBe("2026-11-21T18:04:43Z");
    expect(pythonUtcIso(new Date(Date.UTC(2026, 10, 21, 18, 4, 43, 7)))).toBe("2026-11-21T18:04:43.007000Z");
  });
});
