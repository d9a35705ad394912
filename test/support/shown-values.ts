/** The variables a proposal request shows the LLM, with their values, read from the prompt as the stub LLM reads it. */
import { readStubRequest } from "../../adapters/llm/stub-request.js";
import type { JsonValue } from "../../src/domain/json-value.js";
import type { ChatRequest } from "../../src/llm/llm.js";

export function shownValues(request: ChatRequest | undefined): Record<string, JsonValue> {
  const asked = request ? readStubRequest(request) : undefined;
  if (asked?.kind !== "propose") throw new Error("not a proposal request");
  return Object.fromEntries(asked.variables.map((v) => [v.name, v.value]));
}
