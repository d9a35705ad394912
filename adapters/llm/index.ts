/** Which LLM a run's jobs use: the seeded stub in mode stub, an OpenAI-compatible server in mode real. */
import type { JobSpec } from "../../src/config/matrix.js";
import type { RunConfig } from "../../src/config/run-config.js";
import type { Llm } from "../../src/llm/llm.js";
import { createStubLlm } from "./stub-llm.js";

export function llmFactory(config: RunConfig): (job: JobSpec) => Llm {
  if (config.mode === "stub") return (job) => createStubLlm(job.seed);
  return () => {
    throw new Error("mode real needs the OpenAI-compatible LLM client, which is not implemented yet");
  };
}
