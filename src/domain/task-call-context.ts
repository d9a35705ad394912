/** Passed to agents and guides: cancel long work when the job is interrupted or times out. */
export interface TaskCallContext {
  readonly signal?: AbortSignal;
  /** What the task's code printed (a candidate's stdout and stderr), for the job's log. */
  readonly log?: (text: string) => void;
}
