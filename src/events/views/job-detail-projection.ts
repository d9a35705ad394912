/**
 * What only a job's own files show: its machine state, evaluations, iterations (with their wall
 * time and tokens) and the parameter values its finished attempt recorded.
 */
import type { FinishedAttempt } from "./job-view.js";
import type { JobProjection } from "./projection.js";

/** The fields of a finished attempt only a job's own files show, writable. */
type FinishedDetail = { -readonly [K in "parameters" | "initial_values" | "final_values" | "best_values" | "iterations" | "iteration_marks"]: FinishedAttempt[K] };

export const jobDetailProjection: JobProjection = {
  canHandle: new Set(["JobQueued", "JobTransitioned", "EvaluationCompleted", "IterationCompleted", "JobFinished"]),
  evolve(view, event, run) {
    switch (event.type) {
      case "JobQueued":
        view.evaluations = {};
        view.iterations = [];
        view.iterationMarks = [];
        return;
      case "JobTransitioned":
        view.state = event.data.to;
        return;
      case "EvaluationCompleted":
        view.evaluations[event.data.phase] = event.data;
        return;
      case "IterationCompleted":
        view.iterations.push(event.data);
        view.iterationMarks.push({ wall_time: Date.parse(event.ts) / 1000, total_tokens: view.estimatedTokens ? null : view.tokens.total_tokens });
        return;
      case "JobFinished": {
        // After the attempt projection, which recorded the outcome and its totals in an object of
        // its own that nothing else holds yet: filled in place (no second object per finished job).
        const data = event.data;
        const finished = view.finished as FinishedDetail;
        finished.parameters = run.shared.value(data.parameters);
        finished.initial_values = data.initial_values;
        finished.final_values = data.final_values;
        finished.best_values = data.best_values;
        finished.iterations = view.iterations;
        finished.iteration_marks = view.iterationMarks;
        return;
      }
    }
  },
};
