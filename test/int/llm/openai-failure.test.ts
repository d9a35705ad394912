import { describe, expect, it } from "vitest";
import { displayURL, redactSecrets, timeoutFailure } from "../../../adapters/llm/openai-failure.js";

describe("failure messages", () => {
  it("redact the exact key and anything shaped like a key, on one line", () => {
    const key = "org-key-0123456789abcdef";
    const text = `Incorrect API key provided: sk-proj-abc1****************wxyz.\nYou sent ${key} with\tBearer eyJhbGciOi.x and api_key=hunter22 (see sk-or-v1-0123456789)`;
    const clean = redactSecrets(text, key);
    expect(clean).toBe("Incorrect API key provided: [redacted]. You sent [redacted] with Bearer [redacted] and api_key=[redacted] (see [redacted])");
  });

  it("leave ordinary words alone when the key is a short test key", () => {
    expect(redactSecrets("task-1234 risk-free model k", "k")).toBe("task-1234 risk-free model k");
  });

  it("cut a long server page down", () => {
    expect(redactSecrets("x".repeat(5000), "key").length).toBeLessThanOrEqual(300);
  });

  it("give a timeout under a second in ms and a longer one in seconds", () => {
    expect(timeoutFailure(200)).toMatchObject({ kind: "timeout", httpStatus: null, message: "timeout after 200 ms", retryable: true });
    expect(timeoutFailure(2500).message).toBe("timeout after 2.5 s");
    expect(timeoutFailure(120_000).message).toBe("timeout after 120 s");
  });

  it("show the base URL without credentials", () => {
    expect(displayURL("https://user:pw@proxy.example/v1/")).toBe("https://proxy.example/v1");
  });
});
