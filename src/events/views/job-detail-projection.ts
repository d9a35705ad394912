/**
 * What only a job's own files show: its machine state, evaluations, iterations (with their wall
 * time and tokens) and the parameter values its finished attempt recorded.
 */
import { finishedAttempt } from "./job-view.js";
import type { JobProjection } from "./projection.js";

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
        // After the attempt projection, which recorded the outcome and its totals.
        const data = event.data;
        view.finished = finishedAttempt(view.finished!, {
          parameters: run.shared.value(data.parameters),
          initial_values: data.initial_values,
          final_values: data.final_values,
          best_values: data.best_values,
          iterations: view.iterations,
          iteration_marks: view.iterationMarks,
        });
        return;
      }
    }
  },
};
