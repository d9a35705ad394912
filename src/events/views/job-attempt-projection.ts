/**
 * A job's latest attempt and its outcome: attempt number, LLM calls and what they cost, and the
 * finished attempt with its totals (what plans, budgets, the console and the reports read).
 */
import { NO_COST, NO_TOKENS, addCost, addTokens, reportedCost } from "./totals.js";
import { finishedAttempt, NO_FINISHED_DETAIL, ownTotals } from "./job-view.js";
import type { JobProjection } from "./projection.js";

export const jobAttemptProjection: JobProjection = {
  canHandle: new Set(["JobQueued", "JobFinished", "LlmCallCompleted", "LlmCallFailed", "LlmCallAborted", "ReplyUnusable", "IterationCompleted"]),
  evolve(view, event, run) {
    switch (event.type) {
      case "JobQueued":
        view.attempt = event.data.attempt;
        view.state = "queued";
        view.llmCalls = 0;
        view.llmErrors = 0;
        view.llmAborted = 0;
        view.replayedCalls = 0;
        view.unusableReplies = 0;
        view.tokens = NO_TOKENS;
        view.cost = NO_COST;
        view.estimatedTokens = false;
        view.iterationCount = 0;
        return;
      case "IterationCompleted":
        // Counted here, not only listed by the detail projection: results.csv shows the count of a released job too.
        view.iterationCount += 1;
        return;
      case "LlmCallCompleted":
        ownTotals(view);
        view.llmCalls += 1;
        view.estimatedTokens ||= event.data.estimated;
        addTokens(view.tokens, event.data);
        addCost(view.cost, event.data.cost_usd);
        if (event.data.replayed === true) {
          view.replayedCalls += 1;
        } else {
          addTokens(view.allAttemptTokens, event.data);
          addCost(view.allAttemptCost, event.data.cost_usd);
        }
        return;
      case "LlmCallFailed":
        view.llmErrors += 1;
        return;
      case "LlmCallAborted":
        view.llmAborted += 1;
        return;
      case "ReplyUnusable":
        view.unusableReplies += 1;
        return;
      case "JobFinished": {
        const data = event.data;
        // What only the job's own files show is the detail projection's (job-detail-projection.ts).
        view.finished = finishedAttempt(data, {
          // Field by field, not spread: a spread here left V8 a dozen hidden classes per job (docs/performance.md).
          parameters: NO_FINISHED_DETAIL.parameters,
          initial_values: NO_FINISHED_DETAIL.initial_values,
          final_values: NO_FINISHED_DETAIL.final_values,
          best_values: NO_FINISHED_DETAIL.best_values,
          iterations: NO_FINISHED_DETAIL.iterations,
          iteration_marks: NO_FINISHED_DETAIL.iteration_marks,
          feedback: run.shared.string(data.feedback),
          resolved: run.shared.value(data.resolved),
          agent: run.shared.value(data.agent),
          ts: event.ts,
          tokens: view.tokens === NO_TOKENS ? NO_TOKENS : { ...view.tokens },
          llm_calls: view.llmCalls,
          llm_errors: view.llmErrors,
          replayed_calls: view.replayedCalls,
          unusable_replies: view.unusableReplies,
          cost_usd: view.llmCalls === 0 ? 0 : reportedCost(view.cost),
          estimated_tokens: view.estimatedTokens,
          iteration_count: view.iterationCount,
        });
        return;
      }
    }
  },
};
