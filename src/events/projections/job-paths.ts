/** Paths inside a run directory, POSIX-style as they appear in reports. */
export const jobDir = (jobId: string) => `jobs/${jobId}`;
export const tbDir = (jobId: string) => `jobs/${jobId}/tb`;
// One template each: a job's files, its results row and its manifest and index entries name these
// paths again, two dozen times a job.
export const statePath = (jobId: string, which: "initial" | "best" | "final", ext: "json" | "yaml") => `jobs/${jobId}/artifacts/${which}_state.${ext}`;
export const stateHistoryPath = (jobId: string) => `jobs/${jobId}/artifacts/state_history.jsonl`;

export function stateFiles(jobId: string) {
  return {
    initial_state_path: statePath(jobId, "initial", "yaml"),
    best_state_path: statePath(jobId, "best", "yaml"),
    final_state_path: statePath(jobId, "final", "yaml"),
    state_history_path: stateHistoryPath(jobId),
  };
}
