import { describe, expect, it } from "vitest";
import { backoffMs, isRetryableStatus, RETRY_AFTER_CAP_MS, retryAfterMs } from "../../../adapters/llm/retry-delay.js";

const headers = (entries: Record<string, string>) => new Headers(entries);

describe("retry delays", () => {
  it("retries 408, 409, 429 and 5xx only", () => {
    expect([408, 409, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });

  it("draws full-jitter backoff below min(max, base * 2^retry)", () => {
    const options = { backoffBaseMs: 500, backoffMaxMs: 30_000 };
    expect(backoffMs(0, options, () => 0)).toBe(0);
    expect(backoffMs(0, options, () => 0.999)).toBe(499);
    expect(backoffMs(3, options, () => 0.5)).toBe(2000);
    expect(backoffMs(20, options, () => 0.999)).toBe(29_970);
  });

  it("reads retry-after-ms, Retry-After in seconds and as an HTTP date, capped", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(headers({ "retry-after-ms": "250" }), now)).toBe(250);
    expect(retryAfterMs(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs(headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(headers({ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }), now)).toBe(5000);
    expect(retryAfterMs(headers({ "retry-after": "Tue, 31 Dec 2024 23:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(headers({ "retry-after": "3600" }), now)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryAfterMs(headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(headers({}), now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
