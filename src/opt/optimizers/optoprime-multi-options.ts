/**
 * OptoPrimeMulti's kwargs (OpenTrace's constructor arguments) and the checks `validate` makes on
 * them. The original falls back silently on an unknown technique name (temperature variation,
 * last of n); here a name it does not know, or a technique that needs what trace-bench has not
 * (OpenTrace's LLM profiles, a Python callable), is refused with one line before any job starts.
 */
import type { Kwargs } from "../../config/kwargs.js";
import { didYouMean } from "../../config/suggest.js";
import { promptOptimizerOptions, type PromptOptimizerOptions } from "./prompt-optimizer.js";

export const GENERATION_TECHNIQUES = ["temperature_variation", "self_refinement", "iterative_alternatives", "multi_experts"] as const;
export type GenerationTechnique = (typeof GENERATION_TECHNIQUES)[number];

/** Selection names as OpenTrace spells them, each with the technique it means. */
const SELECTION_NAMES = {
  best_of_n: "best_of_n",
  bestofn: "best_of_n",
  moa: "moa",
  mixture_of_agents: "moa",
  majority: "majority",
  last_of_n: "last_of_n",
  lastofn: "last_of_n",
} as const;
export type SelectionTechnique = (typeof SELECTION_NAMES)[keyof typeof SELECTION_NAMES];

export interface OptoPrimeMultiOptions extends PromptOptimizerOptions {
  readonly numResponses: number;
  readonly temperatureMin: number;
  readonly temperatureMax: number;
  readonly generation: GenerationTechnique;
  readonly selection: SelectionTechnique;
  /** multi_experts: the personas, cycled to num_responses (absent: the LLM names them). */
  readonly experts?: readonly string[];
}

export const MULTI_DEFAULTS = { numResponses: 3, temperatureMin: 0, temperatureMax: 1, generation: "temperature_variation", selection: "best_of_n" } as const;

const UNSUPPORTED: Readonly<Record<string, string>> = {
  llm_profiles: "names OpenTrace LLMFactory profiles, which trace-bench does not have; compare models with a model list (llm.model: [a, b]) instead, and remove llm_profiles",
  llm_weights: "goes with llm_profiles (OpenTrace LLMFactory profiles), which trace-bench does not have; remove it",
  selector: "is a Python callable, which a config cannot hold; use selection_technique (best_of_n, moa, majority or last_of_n)",
};

const lower = (value: unknown) => (typeof value === "string" ? value.toLowerCase() : value);
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((e) => typeof e === "string");

/** One problem per kwarg OptoPrimeMulti cannot run with: its key (inside optimizer_kwargs) and one line saying the fix. */
export function optoPrimeMultiKwargsProblems(kwargs: Kwargs): { readonly key: string; readonly text: string }[] {
  const problems: { key: string; text: string }[] = [];
  for (const [key, why] of Object.entries(UNSUPPORTED)) {
    if (kwargs[key] !== undefined && kwargs[key] !== null) problems.push({ key, text: `OptoPrimeMulti's ${key} ${why}` });
  }
  const generation = kwargs.generation_technique;
  if (generation !== undefined && generation !== null) {
    const name = lower(generation);
    if (name === "multi_llm") {
      problems.push({ key: "generation_technique", text: "OptoPrimeMulti's multi_llm generation needs OpenTrace LLMFactory profiles, which trace-bench does not have; use temperature_variation, self_refinement, iterative_alternatives or multi_experts" });
    } else if (typeof name !== "string" || !(GENERATION_TECHNIQUES as readonly string[]).includes(name)) {
      problems.push({ key: "generation_technique", text: `unknown OptoPrimeMulti generation_technique ${JSON.stringify(generation)}${typeof name === "string" ? didYouMean(name, GENERATION_TECHNIQUES) : ""} (known: ${GENERATION_TECHNIQUES.join(", ")})` });
    }
  }
  const selection = kwargs.selection_technique;
  if (selection !== undefined && selection !== null) {
    const name = lower(selection);
    if (typeof name !== "string" || !Object.hasOwn(SELECTION_NAMES, name)) {
      const known = Object.keys(SELECTION_NAMES);
      problems.push({ key: "selection_technique", text: `unknown OptoPrimeMulti selection_technique ${JSON.stringify(selection)}${typeof name === "string" ? didYouMean(name, known) : ""} (known: ${known.join(", ")})` });
    }
  }
  const n = kwargs.num_responses;
  if (n !== undefined && n !== null && !(typeof n === "number" && Number.isInteger(n) && n >= 1)) {
    problems.push({ key: "num_responses", text: `OptoPrimeMulti's num_responses must be a whole number of at least 1, got ${JSON.stringify(n)}; write e.g. num_responses: 3` });
  }
  const range = kwargs.temperature_min_max;
  if (range !== undefined && range !== null && !(Array.isArray(range) && range.length >= 2 && range.slice(0, 2).every((t) => typeof t === "number" && t >= 0))) {
    problems.push({ key: "temperature_min_max", text: `OptoPrimeMulti's temperature_min_max must be [min, max] (two temperatures), got ${JSON.stringify(range)}; write e.g. temperature_min_max: [0.0, 1.0]` });
  }
  const experts = kwargs.experts_list;
  if (experts !== undefined && experts !== null && !(isStringList(experts) && experts.length > 0)) {
    problems.push({ key: "experts_list", text: `OptoPrimeMulti's experts_list must be a non-empty list of expert names, got ${JSON.stringify(experts)}; write e.g. experts_list: [AI Engineer, Statistician]` });
  }
  return problems;
}

/** The options of valid kwargs (validate refuses the others before a job starts; what is left here takes the defaults). */
export function optoPrimeMultiOptions(kwargs: Kwargs): OptoPrimeMultiOptions {
  const generation = lower(kwargs.generation_technique);
  const selection = lower(kwargs.selection_technique);
  const n = kwargs.num_responses;
  const range = kwargs.temperature_min_max;
  const temperatures = Array.isArray(range) && range.length >= 2 && typeof range[0] === "number" && typeof range[1] === "number" ? { temperatureMin: range[0], temperatureMax: range[1] } : {};
  return {
    ...promptOptimizerOptions(kwargs),
    ...MULTI_DEFAULTS,
    ...temperatures,
    ...(typeof n === "number" && Number.isInteger(n) && n >= 1 ? { numResponses: n } : {}),
    ...(typeof generation === "string" && (GENERATION_TECHNIQUES as readonly string[]).includes(generation) ? { generation: generation as GenerationTechnique } : {}),
    ...(typeof selection === "string" && Object.hasOwn(SELECTION_NAMES, selection) ? { selection: SELECTION_NAMES[selection as keyof typeof SELECTION_NAMES] } : {}),
    ...(isStringList(kwargs.experts_list) && kwargs.experts_list.length > 0 ? { experts: kwargs.experts_list } : {}),
  };
}
