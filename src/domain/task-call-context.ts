import type { TaskLlm } from "./task-llm.js";

/** Passed to agents and guides: cancel long work when the job is interrupted or times out. */
export interface TaskCallContext {
  readonly signal?: AbortSignal;
  /** What the task's code printed (a candidate's stdout and stderr), for the job's log. */
  readonly log?: (text: string) => void;
  /** The audited LLM for the task's agent and guide; absent where the engine gives none (then a call is a task error). */
  readonly llm?: TaskLlm;
}
