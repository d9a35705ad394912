/** What identifies an LLM request for the journal: the model and everything sent with it. */
import { createHash } from "node:crypto";
import type { ChatRequest } from "./llm.js";

export function requestHash(model: string, request: ChatRequest): string {
  const canonical = JSON.stringify([model, request.messages.map((m) => [m.role, m.content]), request.maxTokens ?? null, request.temperature ?? null, request.responseFormat ?? null]);
  return createHash("sha256").update(canonical).digest("hex").slice(0, 32);
}

/** An embedding request's hash: marked as one, so it never equals a chat request's. */
export function embeddingRequestHash(model: string, request: { readonly input: string }): string {
  return createHash("sha256").update(JSON.stringify(["embedding", model, request.input])).digest("hex").slice(0, 32);
}
