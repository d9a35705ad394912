/** Per-job projection files: job_meta.json, results.json, stdout.log, the state artifacts and a TensorboardLogger job's event file. */
import type { JobView } from "../run-state.js";
import { jsonArtifact, jsonLine, yamlArtifact } from "./artifact-format.js";
import { jobLlmInfo } from "./job-llm-info.js";
import { stateFiles, stateHistoryPath, statePath, tbDir } from "./job-paths.js";
import { resolvedColumns, resultRow, TOKEN_SCOPE, type JobRenderContext } from "./results-table.js";
import { stateSnapshot } from "./state-snapshot.js";
import { tbEventFilePath, tensorboardEventFile } from "./tensorboard-file.js";
import { BoundedMemo } from "../../runtime/bounded-memo.js";

/** A file's content: text (UTF-8), or bytes (TensorBoard event files). */
export type FileContent = string | Uint8Array;

/**
 * Rendered state artifacts by snapshot: the jobs of a matrix share most of their states (every
 * seed of a task starts from the same initial values), and YAML rendering is the dearest part of
 * a job's files. The key is the snapshot's JSON (-0 told apart from 0, which JSON is not); the
 * snapshots come from parsed events, so they hold nothing JSON cannot say.
 */
const renderedStates = new BoundedMemo<string, { readonly json: string; readonly yaml: string }>(256);

/** The memo key of `snapshot`; null when it holds a class instance (a test's PyFloat), which its JSON does not tell apart. */
function stateKey(snapshot: unknown): string | null {
  let plainOnly = true;
  const key = JSON.stringify(snapshot, (_key: string, value: unknown): unknown => {
    if (value === 0 && 1 / value < 0) return "\u0000-0";
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) plainOnly = false;
    }
    return value;
  });
  return plainOnly ? key : null;
}

function renderState(snapshot: unknown): { readonly json: string; readonly yaml: string } {
  return { json: jsonArtifact(snapshot), yaml: yamlArtifact(snapshot) };
}

function renderedState(snapshot: unknown): { readonly json: string; readonly yaml: string } {
  const key = stateKey(snapshot);
  // A snapshot its JSON does not tell apart is rendered every time.
  if (key === null) return renderState(snapshot);
  return renderedStates.get(key, () => renderState(snapshot));
}

export function jobFiles(state: JobRenderContext, job: JobView): Map<string, FileContent> {
  if (job.released) throw new Error(`job ${job.job_id}: its files were already written from this state and its details released (rebuild them with 'trace-bench replay')`);
  const files = new Map<string, FileContent>();
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
      llm: state.started === null ? {} : jobLlmInfo(state.started.llm, spec),
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
    const rendered = renderedState(stateSnapshot(done, values));
    files.set(statePath(job.job_id, which, "json"), rendered.json);
    files.set(statePath(job.job_id, which, "yaml"), rendered.yaml);
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
  const events = tensorboardEventFile(job);
  if (events !== null) files.set(tbEventFilePath(job.spec), events);
  return files;
}
