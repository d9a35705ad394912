/**
 * One small request before any job of a mode-real run starts: a wrong key, an unknown model or a
 * dead server is found once, in seconds, instead of by every job after its retries.
 */
import { isLlmError, LlmError } from "./llm-error.js";
import type { ChatResponse, Llm } from "./llm.js";

export const PREFLIGHT_REQUEST = { messages: [{ role: "user" as const, content: "Reply with the word OK." }], maxTokens: 16 };

export type PreflightResult =
  | { readonly ok: true; readonly response: ChatResponse; readonly latencyMs: number }
  /** `blocking`: the run must not start (the same error would meet every job). */
  | { readonly ok: false; readonly error: LlmError; readonly blocking: boolean };

export async function preflight(llm: Llm, signal?: AbortSignal): Promise<PreflightResult> {
  const started = performance.now();
  try {
    const response = await llm.complete(PREFLIGHT_REQUEST, signal);
    return { ok: true, response, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    const llmError = isLlmError(error) ? error : new LlmError("network", error instanceof Error ? error.message : String(error));
    // A request this small that the server calls malformed says nothing about the jobs' requests.
    return { ok: false, error: llmError, blocking: llmError.kind !== "bad_request" };
  }
}
