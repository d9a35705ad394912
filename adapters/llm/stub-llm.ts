/**
 * The stub LLM of mode `stub`: no network, deterministic from (job seed, prompt, how many times
 * this prompt was seen). It reads a request as a model would (stub-request.ts) and answers in the
 * format asked for with real changes, so stub runs exercise real search: numbers move by a seeded
 * step, integers by a seeded whole step, and other values take one of the alternatives offered
 * for their parameter (else stay).
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "../../src/domain/json-value.js";
import { estimateTokens, type ChatRequest, type ChatResponse, type Llm } from "../../src/llm/llm.js";
import { createRng, type Rng } from "../../src/opt/rng.js";
import { readStubRequest, type AskedVariable } from "./stub-request.js";

export const STUB_MODEL = "stub";

/**
 * Values the stub may propose for text, code and JSON parameters, by parameter name: a real model
 * writes new text; the stub picks from what tasks offer.
 */
export type StubAlternatives = Readonly<Record<string, readonly JsonValue[]>>;

function seedFor(seed: number, prompt: string, occurrence: number): number {
  return createHash("sha256").update(`${seed}\u0000${occurrence}\u0000${prompt}`).digest().readUInt32LE(0);
}

function proposeValue(variable: AskedVariable, alternatives: StubAlternatives, rng: Rng): JsonValue | undefined {
  const { kind, value } = variable;
  if ((kind === "number" || kind === "integer") && typeof value === "number") {
    const scale = Math.max(1, Math.abs(value) * 0.5);
    const delta = (rng.next() * 2 - 1) * scale;
    if (kind === "number") return Math.round((value + delta) * 1000) / 1000;
    const whole = Math.round(delta) === 0 ? (delta < 0 ? -1 : 1) : Math.round(delta);
    return value + whole;
  }
  const current = JSON.stringify(value);
  // A traced task's prompt names its parameters by graph name (`__code0`): find their list by the value they hold.
  const offered = Object.hasOwn(alternatives, variable.name)
    ? alternatives[variable.name]!
    : (Object.values(alternatives).find((list) => list.some((c) => JSON.stringify(c) === current)) ?? []);
  // Offered values count only for a parameter that holds one of them: another task's parameter of the same name stays.
  if (!offered.some((c) => JSON.stringify(c) === current)) return undefined;
  const others = offered.filter((c) => JSON.stringify(c) !== current);
  return others.length === 0 ? undefined : others[rng.int(others.length)];
}

const shown = (value: JsonValue) => (typeof value === "string" ? value : JSON.stringify(value));

function render(format: "xml" | "json", suggestion: Record<string, JsonValue>): string {
  // Nothing to change (no numbers, no alternatives offered): say so the way optimizers expect.
  if (Object.keys(suggestion).length === 0) return "TERMINATE";
  const reasoning = "Stub LLM: a seeded proposal (no model was called).";
  if (format === "json") return JSON.stringify({ reasoning, answer: "", suggestion });
  const variables = Object.entries(suggestion).map(([name, value]) => `<variable>\n<name>${name}</name>\n<value>\n${shown(value)}\n</value>\n</variable>`);
  return [`<reasoning>\n${reasoning}\n</reasoning>`, ...variables].join("\n");
}

function answer(request: ChatRequest, alternatives: StubAlternatives, rng: Rng): string {
  const asked = readStubRequest(request);
  switch (asked.kind) {
    case "propose": {
      const suggestion: Record<string, JsonValue> = {};
      for (const variable of asked.variables) {
        const proposed = proposeValue(variable, alternatives, rng);
        if (proposed !== undefined) suggestion[variable.name] = proposed;
      }
      return render(asked.format, suggestion);
    }
    case "improve": {
      // An unreadable variable gets an empty answer, which TextGrad reads as "left unchanged".
      const value = asked.variable ? (proposeValue(asked.variable, alternatives, rng) ?? asked.variable.value) : "";
      return `<IMPROVED_VARIABLE>${shown(value)}</IMPROVED_VARIABLE>`;
    }
    case "text":
      return "stub response";
  }
}

export function createStubLlm(seed: number, alternatives: StubAlternatives = {}): Llm {
  const seen = new Map<string, number>();
  return {
    model: STUB_MODEL,
    async complete(request: ChatRequest): Promise<ChatResponse> {
      const prompt = request.messages.map((m) => `${m.role}: ${m.content}`).join("\n");
      const occurrence = seen.get(prompt) ?? 0;
      seen.set(prompt, occurrence + 1);
      const content = answer(request, alternatives, createRng(seedFor(seed, prompt, occurrence)));
      const prompt_tokens = estimateTokens(prompt);
      const completion_tokens = estimateTokens(content);
      return { content, model: STUB_MODEL, estimated: true, usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } };
    },
  };
}
