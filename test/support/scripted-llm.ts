/**
 * A test double for the LLM port: answers from a script, in order, and fails the test on any
 * call the script did not expect. Records every request so tests can inspect prompts.
 */
import { createHash } from "node:crypto";
import type { ChatRequest, ChatResponse, Llm } from "../../src/llm/llm.js";
import type { FakeUsage } from "./fake-openai-server.js";

/** A reply, or a function of the request (e.g. echo a variable name read from the prompt). */
export type ScriptStep = string | ((request: ChatRequest, index: number) => string);

export interface ScriptedLlm extends Llm {
  readonly requests: ChatRequest[];
  /** How many scripted replies are still unused. */
  remaining(): number;
}

export function scriptedLlm(script: readonly ScriptStep[]): ScriptedLlm {
  const requests: ChatRequest[] = [];
  return {
    model: "scripted",
    requests,
    remaining: () => script.length - requests.length,
    async complete(request): Promise<ChatResponse> {
      const index = requests.length;
      requests.push(request);
      const step = script[index];
      if (step === undefined) throw new Error(`scripted LLM: unexpected call #${index + 1} (the script has ${script.length} replies)`);
      const content = typeof step === "function" ? step(request, index) : step;
      return { content, model: "scripted", estimated: false, usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };
    },
  };
}

/** An OptoPrimeV2/OPROv2-style reply proposing these values. */
export function xmlReply(values: Readonly<Record<string, unknown>>, reasoning = "scripted"): string {
  const blocks = Object.entries(values).map(([name, value]) => `<variable>\n<name>${name}</name>\n<value>\n${typeof value === "string" ? value : JSON.stringify(value)}\n</value>\n</variable>`);
  return [`<reasoning>\n${reasoning}\n</reasoning>`, ...blocks].join("\n");
}

/** An OptoPrime/OPRO-style JSON reply proposing these values. */
export function jsonReply(values: Readonly<Record<string, unknown>>, reasoning = "scripted"): string {
  return JSON.stringify({ reasoning, answer: "", suggestion: values });
}

/** A server's answer that depends only on the request's messages (numeric_param's float is `float0`), whoever sends it. */
export function deterministicReply(body: Record<string, unknown>): string {
  const h = createHash("sha256").update(JSON.stringify(body.messages)).digest().readUInt32LE(0);
  return xmlReply({ float0: Math.round(((h % 1000) / 100 - 5) * 100) / 100 });
}

/** What a provider bills for a request: its prompt counted (about 4 characters a token), a completion of at most max_tokens. */
export function billedUsage(body: Record<string, unknown>): FakeUsage {
  const text = (body.messages as { content: string }[]).map((m) => m.content).join("");
  const prompt = Math.ceil(text.length / 4);
  const completion = Math.min(Number(body.max_tokens ?? Infinity), 40);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
