/**
 * OptoPrimeMulti's candidate generation (OpenTrace `generate_candidates`): several replies to
 * OptoPrime's prompt, made different by one technique.
 *
 * - temperature_variation: num_responses calls at once, temperatures from max down to min;
 * - self_refinement: one call after another, each asked to improve the previous reply (at min);
 * - iterative_alternatives: one call after another, each shown all earlier replies and asked for
 *   a very different one (at min);
 * - multi_experts: one call per expert persona at once (temperature 0), the personas from
 *   experts_list (cycled) or named by one more call.
 *
 * A call that fails gives no candidate (the original drops it too); when a technique yields none,
 * temperature variation is tried, as in the original.
 */
import type { GenerationTechnique } from "./optoprime-multi-options.js";
import {
  alternativesSystemPrompt,
  DEFAULT_EXPERTS,
  EXPERTS_SYSTEM_PROMPT,
  expertSystemPrompt,
  expertsUserPrompt,
  expertUserPrompt,
  refinementSystemPrompt,
} from "./optoprime-multi-prompts.js";

export interface MultiCall {
  readonly system: string;
  readonly user: string;
  readonly temperature: number;
  /** Absent: OpenTrace's call_llm default (4096). */
  readonly maxTokens?: number;
}

/** Sends calls at once and answers each, in the calls' order: its reply, or null when it failed. */
export type AskMany = (calls: readonly MultiCall[]) => Promise<(string | null)[]>;

export interface GenerationRequest {
  readonly system: string;
  readonly user: string;
  readonly technique: GenerationTechnique;
  readonly count: number;
  readonly temperatureMin: number;
  readonly temperatureMax: number;
  readonly maxTokens: number;
  readonly experts?: readonly string[];
}

/** The temperatures of temperature variation: max down to min in equal steps. */
export function temperatureSteps(count: number, min: number, max: number): number[] {
  return Array.from({ length: count }, (_, i) => max - (i * (max - min)) / Math.max(1, count - 1));
}

const replied = (replies: readonly (string | null)[]) => replies.filter((r): r is string => r !== null);

/**
 * The personas a multi_experts step asks: experts_list cycled to `count`; else the ones a JSON
 * reply names (a bare array, or an object holding one array), topped up from the defaults when it
 * names `count` or fewer, as the original does (its default list indexed by how many it has).
 */
export function expertsFromReply(reply: string | null, count: number): string[] {
  let named: unknown[] = [];
  if (reply !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply);
    } catch {
      parsed = [];
    }
    if (Array.isArray(parsed)) named = parsed;
    else if (parsed !== null && typeof parsed === "object" && Object.keys(parsed).length === 1 && Array.isArray(Object.values(parsed)[0])) named = Object.values(parsed)[0] as unknown[];
  }
  const experts = named.map((e) => (typeof e === "string" ? e : JSON.stringify(e)));
  if (experts.length <= count) while (experts.length < count) experts.push(DEFAULT_EXPERTS[experts.length % DEFAULT_EXPERTS.length]!);
  return experts.slice(0, count);
}

async function multiExperts(request: GenerationRequest, ask: AskMany): Promise<string[]> {
  const { count, maxTokens } = request;
  let experts: string[];
  if (request.experts !== undefined && request.experts.length > 0) {
    experts = Array.from({ length: count }, (_, i) => request.experts![i % request.experts!.length]!);
  } else {
    const [reply] = await ask([{ system: EXPERTS_SYSTEM_PROMPT, user: expertsUserPrompt(count, request.system), temperature: 0 }]);
    experts = expertsFromReply(reply ?? null, count);
  }
  const replies = await ask(experts.map((expert) => ({ system: expertSystemPrompt(expert), user: expertUserPrompt(request.user), temperature: 0, maxTokens })));
  // An expert may fence its answer in <<< >>> like the prompts do.
  return replied(replies).map((r) => stripFence(r.trim()).trim());
}

function stripFence(text: string): string {
  const start = text.startsWith("<<<") ? 3 : 0;
  const end = text.endsWith(">>>") && text.length - 3 >= start ? text.length - 3 : text.length;
  return text.slice(start, end);
}

/** One after another: each call's system prompt made from the candidates so far. */
async function sequential(request: GenerationRequest, ask: AskMany, systemFor: (candidates: readonly string[], i: number) => string): Promise<string[]> {
  const candidates: string[] = [];
  for (let i = 0; i < request.count; i++) {
    const [reply] = await ask([{ system: systemFor(candidates, i), user: request.user, temperature: request.temperatureMin, maxTokens: request.maxTokens }]);
    if (reply !== null && reply !== undefined) candidates.push(reply);
  }
  return candidates;
}

async function temperatureVariation(request: GenerationRequest, ask: AskMany): Promise<string[]> {
  const temperatures = temperatureSteps(request.count, request.temperatureMin, request.temperatureMax);
  return replied(await ask(temperatures.map((temperature) => ({ system: request.system, user: request.user, temperature, maxTokens: request.maxTokens }))));
}

/** The candidates of one step, and the technique that made them (temperature_variation after a fallback). */
export async function generateCandidates(request: GenerationRequest, ask: AskMany): Promise<{ readonly candidates: string[]; readonly technique: GenerationTechnique }> {
  let candidates: string[] = [];
  switch (request.technique) {
    case "self_refinement":
      candidates = await sequential(request, ask, (earlier) => (earlier.length === 0 ? request.system : refinementSystemPrompt(request.system, earlier.at(-1)!)));
      break;
    case "iterative_alternatives":
      candidates = await sequential(request, ask, (earlier, i) => (i > 0 && earlier.length > 0 ? alternativesSystemPrompt(request.system, earlier) : request.system));
      break;
    case "multi_experts":
      candidates = await multiExperts(request, ask);
      break;
    case "temperature_variation":
      break;
  }
  if (request.technique !== "temperature_variation" && candidates.length > 0) return { candidates, technique: request.technique };
  return { candidates: await temperatureVariation(request, ask), technique: "temperature_variation" };
}
