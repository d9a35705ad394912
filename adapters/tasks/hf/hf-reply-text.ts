/**
 * The assistant text of a reply (the original's `response_text`): a string as it is, else the
 * content of an OpenAI-style completion or message, else Python's `str()` of the value.
 */
import { pyStr } from "./hf-text.js";

export function replyText(response: unknown): string {
  if (typeof response === "string") return response;
  if (typeof response === "object" && response !== null) {
    const value = "data" in response ? (response as { data: unknown }).data : response;
    if (typeof value === "string") return value;
    if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      const choices = record.choices;
      if (Array.isArray(choices) && choices.length > 0) {
        const first = choices[0] as Record<string, unknown> | null;
        const message = first?.message as Record<string, unknown> | undefined | null;
        if (message !== undefined && message !== null && message.content !== undefined && message.content !== null) return pyStr(message.content);
        if (first?.text !== undefined && first.text !== null) return pyStr(first.text);
      }
      if (record.content !== undefined && record.content !== null) return pyStr(record.content);
    }
    return pyStr(value);
  }
  return pyStr(response);
}
