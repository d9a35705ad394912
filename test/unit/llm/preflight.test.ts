/** The preflight request: one small call before a mode-real run, blocking on errors every job would meet. */
import { describe, expect, it } from "vitest";
import { LlmError } from "../../../src/llm/llm-error.js";
import { PREFLIGHT_REQUEST, preflight } from "../../../src/llm/preflight.js";
import { fakeLlm, reply } from "./call-fakes.js";

const failing = (error: unknown) =>
  fakeLlm(() => {
    throw error;
  });

describe("preflight", () => {
  it("sends the small request and reports the reply with its latency", async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const llm = fakeLlm(async (_r, signal) => {
      seen = signal;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return reply("OK");
    });
    const result = await preflight(llm, controller.signal);
    expect(llm.requests).toEqual([PREFLIGHT_REQUEST]);
    expect(seen).toBe(controller.signal);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.response.content).toBe("OK");
    expect(result.latencyMs).toBeGreaterThanOrEqual(15);
    expect(Number.isInteger(result.latencyMs)).toBe(true);
  });

  it("blocks the run on errors every job would meet", async () => {
    for (const error of [new LlmError("auth", "401 bad key", 401), new LlmError("model_not_found", "404", 404), new LlmError("server", "503 after retries", 503, 5)]) {
      const result = await preflight(failing(error));
      expect(result).toEqual({ ok: false, error, blocking: true });
    }
  });

  it("does not block on a refused preflight request (bad_request says nothing of the jobs' requests)", async () => {
    const error = new LlmError("bad_request", "400 max_tokens too small", 400);
    expect(await preflight(failing(error))).toEqual({ ok: false, error, blocking: false });
  });

  it("reads anything else thrown as a blocking network error", async () => {
    for (const [thrown, message] of [
      [new Error("ECONNREFUSED 127.0.0.1:1"), "ECONNREFUSED 127.0.0.1:1"],
      ["socket hang up", "socket hang up"],
    ] as const) {
      const result = await preflight(failing(thrown));
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.blocking).toBe(true);
      expect(result.error).toBeInstanceOf(LlmError);
      expect(result.error).toMatchObject({ kind: "network", message, httpStatus: null });
    }
  });
});
