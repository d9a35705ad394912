/** Builders for event-log tests: a small but complete run, appended through the real store. */
import { streamOf, type NewEvent, type StoredEvent } from "../../src/events/event-schema.js";
import type { EventStore } from "../../src/events/event-store.js";

export const RUN_ID = "20260101-000000-abcdef01";

export function specRecord(jobId: string, taskId = "internal:numeric_param", trainerId = "NoOpTrainer", seed = 1) {
  return {
    job_id: jobId,
    task_id: taskId,
    suite: taskId.split(":")[0]!,
    trainer_id: trainerId,
    seed,
    raw_params: {},
    resolved_kwargs: { trainer_kwargs: {}, optimizer: null, optimizer_kwargs: {}, guide: null, guide_kwargs: {}, logger: null, logger_kwargs: {}, eval_kwargs: {} },
  };
}

export function runStarted(jobIds: readonly string[], invocation = 1): NewEvent {
  return {
    type: "RunStarted",
    data: {
      invocation,
      config_hash: "0123456789abcdef",
      config_snapshot: { run_id: RUN_ID, runs_dir: "runs" },
      config_snapshot_yaml: `run_id: ${RUN_ID}\n`,
      matrix: jobIds.map((id, i) => specRecord(id, i % 2 === 0 ? "internal:numeric_param" : "internal:multi_param", "NoOpTrainer", i + 1)),
      mode: "stub",
      max_workers: 1,
      job_timeout_seconds: 0,
      resume_mode: "auto",
      fail_fast: false,
      tags: ["t"],
      llm: { llm_provider: "stub", llm_model: "stub", llm_base_url: "" },
      env: { captured_at: "2026-01-01T00:00:00Z", env: {}, runtime: {} },
      git: {},
    },
  };
}

/** A whole successful attempt of a job: queued → done, with evaluations and one iteration. */
export function finishedJob(jobId: string, attempt = 1, score = -3, status: "ok" | "failed" = "ok"): NewEvent[] {
  const t = (from: string, to: string, event: string): NewEvent => ({ type: "JobTransitioned", job_id: jobId, data: { attempt, from, to, event, reason: null } });
  const evaluation = (phase: "initial" | "final"): NewEvent => ({
    type: "EvaluationCompleted",
    job_id: jobId,
    data: { attempt, phase, split: "train_dataset", score, feedback: "fb", example_scores: [score] },
  });
  return [
    { type: "JobQueued", job_id: jobId, data: { attempt, invocation: 1 } },
    t("queued", "building", "START"),
    evaluation("initial"),
    t("building", "training", "BUILT"),
    { type: "IterationCompleted", job_id: jobId, data: { attempt, step: 1, score, best_score: score, values: { value: 0 }, llm_calls: 1, evaluations: 1 } },
    { type: "LlmCallCompleted", job_id: jobId, data: { attempt, role: "optimizer", model: "stub", prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, latency_ms: 1, estimated: true } },
    t("training", "evaluating", "TRAINED"),
    evaluation("final"),
    t("evaluating", status === "ok" ? "done" : "failed", "EVALUATED"),
    {
      type: "JobFinished",
      job_id: jobId,
      data: {
        attempt,
        status,
        feedback: "fb",
        score_val_initial: score,
        score_val_final: score,
        score_val: score,
        score_test: null,
        time_seconds: 0.5,
        resolved: { optimizer: "OPROv2", guide: "g", logger: "l", trainer_kwargs: {}, optimizer_kwargs: { memory_size: 5 }, guide_kwargs: {}, logger_kwargs: {} },
        agent: "Agent",
        parameters: [{ name: "value", kind: "number", trainable: true }],
        initial_values: { value: 0 },
        final_values: { value: 0 },
        best_values: { value: 0 },
      },
    },
  ];
}

/** Appends events of any streams in order, each consecutive same-stream group at that stream's current version. */
export function appendEvents(store: Pick<EventStore, "append" | "streamVersion">, events: readonly NewEvent[]): StoredEvent[] {
  const stored: StoredEvent[] = [];
  for (let i = 0; i < events.length; ) {
    const stream = streamOf(events[i]!.job_id ?? null);
    let j = i;
    while (j < events.length && streamOf(events[j]!.job_id ?? null) === stream) j++;
    stored.push(...store.append(stream, store.streamVersion(stream), events.slice(i, j)));
    i = j;
  }
  return stored;
}
