/** Per-job projection files: job_meta.json, results.json, stdout.log and the state artifacts. */
import type { JobView, RunState } from "../run-state.js";
import { jsonArtifact, jsonLine, yamlArtifact } from "./artifact-format.js";
import { stateFiles, stateHistoryPath, statePath, tbDir } from "./job-paths.js";
import { resolvedColumns, resultRow, TOKEN_SCOPE } from "./results-table.js";
import { stateSnapshot } from "./state-snapshot.js";

export function jobFiles(state: RunState, job: JobView): Map<string, string> {
  const files = new Map<string, string>();
  const dir = `jobs/${job.job_id}`;
  files.set(`${dir}/stdout.log`, job.log);
  const done = job.finished;
  const row = resultRow(state, job);
  if (done === null || row === null) return files;

  const spec = job.spec;
  const kwargs = spec.resolved_kwargs;
  files.set(
    `${dir}/job_meta.json`,
    jsonArtifact({
      job_id: job.job_id,
      task_id: spec.task_id,
      suite: spec.suite,
      trainer_id: spec.trainer_id,
      seed: spec.seed,
      status: done.status,
      raw_params: spec.raw_params,
      params: spec.raw_params,
      ...resolvedColumns(done.resolved),
      optimizer: kwargs.optimizer,
      optimizer_kwargs: kwargs.optimizer_kwargs,
      guide: kwargs.guide,
      guide_kwargs: kwargs.guide_kwargs,
      logger: kwargs.logger,
      logger_kwargs: kwargs.logger_kwargs,
      eval_kwargs: kwargs.eval_kwargs,
      feedback: done.feedback,
      llm: state.started?.llm ?? {},
      token_scope: TOKEN_SCOPE,
      ...done.tokens,
      state_files: stateFiles(job.job_id),
      tb_logdir: tbDir(job.job_id),
    }),
  );
  files.set(`${dir}/results.json`, jsonArtifact(row));

  const snapshots = [
    ["initial", done.initial_values],
    ["final", done.final_values],
    ["best", done.best_values],
  ] as const;
  for (const [which, values] of snapshots) {
    if (values === null) continue;
    const snapshot = stateSnapshot(done, values);
    files.set(statePath(job.job_id, which, "json"), jsonArtifact(snapshot));
    files.set(statePath(job.job_id, which, "yaml"), yamlArtifact(snapshot));
  }
  if (done.initial_values !== null) {
    const lines = [jsonLine({ kind: "initial", step: 0, state: stateSnapshot(done, done.initial_values), score: done.score_val_initial })];
    for (const it of done.iterations) {
      lines.push(
        jsonLine({ kind: "iteration", step: it.step, state: stateSnapshot(done, it.values), score: it.score, best_score: it.best_score, llm_calls: it.llm_calls, evaluations: it.evaluations, ...(it.scores ? { scores: it.scores } : {}) }),
      );
    }
    if (done.final_values !== null) lines.push(jsonLine({ kind: "final", step: null, state: stateSnapshot(done, done.final_values), score: done.score_val_final }));
    if (done.best_values !== null) lines.push(jsonLine({ kind: "best", step: null, state: stateSnapshot(done, done.best_values), score: done.score_val }));
    files.set(stateHistoryPath(job.job_id), lines.join(""));
  }
  return files;
}
