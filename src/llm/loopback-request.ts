/**
 * What the loopback endpoint accepts of an OpenAI chat completion request: the messages (text
 * only), max_tokens (or max_completion_tokens), temperature and a JSON response format. A field
 * that would change what is asked without our path passing it on (streaming, several choices,
 * tools) is refused by name rather than dropped, so the code that sent it learns at once.
 */
import type { TaskLlmMessage, TaskLlmRequest, TaskLlmRole } from "../domain/task-llm.js";

/** Roles a request may name in the `X-Trace-Bench-Role` header; the optimizer's is not one of them. */
export const LOOPBACK_ROLES: readonly TaskLlmRole[] = ["agent", "guide", "judge", "summarizer"];

export const ROLE_HEADER = "x-trace-bench-role";

/** Refused fields, with why. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  tools: "tool calls are not passed on",
  tool_choice: "tool calls are not passed on",
  functions: "function calls are not passed on",
  function_call: "function calls are not passed on",
  logprobs: "logprobs are not passed on",
  audio: "audio is not passed on",
};

export type ParsedRequest = { readonly ok: true; readonly request: TaskLlmRequest } | { readonly ok: false; readonly message: string };

const refuse = (message: string): ParsedRequest => ({ ok: false, message });

function textOf(content: unknown): string | null {
  if (typeof content === "string") return content;
  // The array form: text parts only (images are not passed on).
  if (Array.isArray(content) && content.every((p) => typeof p === "object" && p !== null && (p as { type?: unknown }).type === "text" && typeof (p as { text?: unknown }).text === "string")) {
    return content.map((p) => (p as { text: string }).text).join("");
  }
  return null;
}

/** The request as the job's calls take it, or why it is refused (a 400). */
export function parseLoopbackRequest(body: unknown, roleHeader: string | undefined): ParsedRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return refuse("the body must be a JSON object (an OpenAI chat completion request)");
  const b = body as Record<string, unknown>;
  if (b.stream === true) return refuse("stream: true is not supported by trace-bench's audit endpoint; send the request without streaming");
  for (const [key, why] of Object.entries(UNSUPPORTED)) if (b[key] !== undefined && b[key] !== null && b[key] !== false) return refuse(`'${key}' is not supported: ${why}`);
  if (b.n !== undefined && b.n !== null && b.n !== 1) return refuse("'n' must be 1: one choice per request");
  const role = (roleHeader ?? "agent").trim();
  if (!(LOOPBACK_ROLES as readonly string[]).includes(role)) return refuse(`${ROLE_HEADER} '${role}' is not a role a task may use; use one of ${LOOPBACK_ROLES.join(", ")}`);
  if (!Array.isArray(b.messages) || b.messages.length === 0) return refuse("'messages' must be a non-empty list");
  const messages: TaskLlmMessage[] = [];
  for (const [i, m] of (b.messages as unknown[]).entries()) {
    const message = (typeof m === "object" && m !== null ? m : {}) as Record<string, unknown>;
    // A "developer" message is the newer name of a system message.
    const who = message.role === "developer" ? "system" : message.role;
    if (who !== "system" && who !== "user" && who !== "assistant") return refuse(`messages[${i}].role must be system, user or assistant`);
    const content = textOf(message.content);
    if (content === null) return refuse(`messages[${i}].content must be text (a string or text parts)`);
    messages.push({ role: who, content });
  }
  const maxTokens = b.max_tokens ?? b.max_completion_tokens;
  if (maxTokens !== undefined && maxTokens !== null && !(typeof maxTokens === "number" && Number.isInteger(maxTokens) && maxTokens > 0)) return refuse("'max_tokens' must be a positive integer");
  if (b.temperature !== undefined && b.temperature !== null && typeof b.temperature !== "number") return refuse("'temperature' must be a number");
  const format = (b.response_format as { type?: unknown } | undefined)?.type;
  if (format !== undefined && format !== "text" && format !== "json_object") return refuse("'response_format' may be text or json_object");
  return {
    ok: true,
    request: {
      role: role as TaskLlmRole,
      messages,
      ...(typeof maxTokens === "number" ? { maxTokens } : {}),
      ...(typeof b.temperature === "number" ? { temperature: b.temperature } : {}),
      ...(format === "json_object" ? { responseFormat: "json_object" as const } : {}),
    },
  };
}
