/**
 * The llm columns of one job: the run's (`RunStarted.llm`), with the job's own model filled in
 * when the config lists several models (the run's record then leaves the model empty).
 */
import type { JobSpecRecord, LlmInfo } from "../event-schema.js";

const NO_LLM: LlmInfo = { llm_provider: "", llm_model: "", llm_base_url: "" };

export function jobLlmInfo(run: LlmInfo | undefined, spec: Pick<JobSpecRecord, "llm_model">): LlmInfo {
  const llm = run ?? NO_LLM;
  if (spec.llm_model === undefined) return llm;
  return { ...llm, llm_model: spec.llm_model, llm_agent_model: llm.llm_agent_model || spec.llm_model };
}
