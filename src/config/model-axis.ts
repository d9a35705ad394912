/**
 * Models as a matrix axis: `llm: {model: [a, b]}` runs every job of the matrix once per model.
 * A job's model is part of its identity only when the list names more than one model, so a
 * config with one model (a string, or a list of one) keeps the job ids of the original.
 */
import type { LlmConfig, LlmEndpointConfig } from "./run-config.js";

/** The llm block with one model (or none: the environment's default). */
export type OneModelLlmConfig = Omit<LlmConfig, "model"> & Pick<LlmEndpointConfig, "model">;

/** The models the matrix runs over: two or more, else none (the config's single model applies). */
export function modelAxis(llm: LlmConfig): readonly string[] {
  return Array.isArray(llm.model) && llm.model.length > 1 ? llm.model : [];
}

/** The llm block as one job sees it: `model` is the job's (absent: the block's only model, if any). */
export function llmForModel(llm: LlmConfig, model?: string): OneModelLlmConfig {
  const listed = llm.model;
  const single: string | null | undefined = model ?? (Array.isArray(listed) ? listed[0] : (listed as string | null | undefined));
  const { model: _listed, ...rest } = llm;
  return single === undefined ? rest : { ...rest, model: single };
}
