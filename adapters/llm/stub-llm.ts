/**
 * The stub LLM of mode `stub`: no network, deterministic from (job seed, prompt, how many times
 * this prompt was seen), and answering in the format the optimizer asked for. It proposes real
 * changes so stub runs exercise real search: numbers move by a seeded step, integers by a seeded
 * whole step, text and code take one of the alternatives the task offers (else stay).
 */
import { createHash } from "node:crypto";
import { estimateTokens, type ChatRequest, type ChatResponse, type Llm, type VariableIntent } from "../../src/llm/llm.js";
import type { JsonValue } from "../../src/domain/json-value.js";
import { createRng, type Rng } from "../../src/opt/rng.js";

export const STUB_MODEL = "stub";

function seedFor(seed: number, prompt: string, occurrence: number): number {
  return createHash("sha256").update(`${seed}\u0000${occurrence}\u0000${prompt}`).digest().readUInt32LE(0);
}

function proposeValue(variable: VariableIntent, rng: Rng): JsonValue | undefined {
  const { kind, value } = variable;
  if ((kind === "number" || kind === "integer") && typeof value === "number") {
    const scale = Math.max(1, Math.abs(value) * 0.5);
    const delta = (rng.next() * 2 - 1) * scale;
    if (kind === "number") return Math.round((value + delta) * 1000) / 1000;
    const whole = Math.round(delta) === 0 ? (delta < 0 ? -1 : 1) : Math.round(delta);
    return value + whole;
  }
  const alternatives = (variable.candidates ?? []).filter((c) => JSON.stringify(c) !== JSON.stringify(value));
  if (alternatives.length === 0) return undefined;
  return alternatives[rng.int(alternatives.length)];
}

function render(format: "xml" | "json", suggestion: Record<string, JsonValue>): string {
  // Nothing to change (no numbers, no alternatives offered): say so the way optimizers expect.
  if (Object.keys(suggestion).length === 0) return "TERMINATE";
  const reasoning = "Stub LLM: a seeded proposal (no model was called).";
  if (format === "json") return JSON.stringify({ reasoning, answer: "", suggestion });
  const variables = Object.entries(suggestion).map(
    ([name, value]) => `<variable>\n<name>${name}</name>\n<value>\n${typeof value === "string" ? value : JSON.stringify(value)}\n</value>\n</variable>`,
  );
  return [`<reasoning>\n${reasoning}\n</reasoning>`, ...variables].join("\n");
}

export function createStubLlm(seed: number): Llm {
  const seen = new Map<string, number>();
  return {
    model: STUB_MODEL,
    async complete(request: ChatRequest): Promise<ChatResponse> {
      const prompt = request.messages.map((m) => `${m.role}: ${m.content}`).join("\n");
      const occurrence = seen.get(prompt) ?? 0;
      seen.set(prompt, occurrence + 1);
      const rng = createRng(seedFor(seed, prompt, occurrence));
      let content: string;
      const intent = request.intent;
      if (intent?.kind === "propose") {
        const suggestion: Record<string, JsonValue> = {};
        for (const variable of intent.variables) {
          const proposed = proposeValue(variable, rng);
          if (proposed !== undefined) suggestion[variable.name] = proposed;
        }
        content = render(intent.format, suggestion);
      } else if (intent?.kind === "improve") {
        const value = proposeValue(intent.variable, rng) ?? intent.variable.value;
        content = `<IMPROVED_VARIABLE>${typeof value === "string" ? value : JSON.stringify(value)}</IMPROVED_VARIABLE>`;
      } else if (intent?.kind === "text") content = "stub response";
      else content = '{"suggestion": {}}';
      const prompt_tokens = estimateTokens(prompt);
      const completion_tokens = estimateTokens(content);
      return { content, model: STUB_MODEL, estimated: true, usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } };
    },
  };
}
