/** Passed to agents and guides: cancel long work when the job is interrupted or times out. */
export interface TaskCallContext {
  readonly signal?: AbortSignal;
}
