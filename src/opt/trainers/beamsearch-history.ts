/**
 * BeamsearchHistoryAlgorithm (algorithms reference §3.4): Beamsearch whose optimizer also sees
 * the parameter sets kept at earlier depths with their validation scores. After every depth the
 * kept beams with a valid score join a history of at most `max_history_size` entries (the most
 * recent); when a beam is expanded, the batched feedback is wrapped as
 *
 *     --- Current Feedback ---
 *     <the feedback>
 *
 *     --- History Context ---
 *     <one sentence>
 *       Attempt i (Score: s): {name: value, ...}
 *
 * Defaults differ from Beamsearch: `num_proposals` 1 and `min_score` 0 (a failing validation
 * example scores 0 rather than making the candidate −∞).
 *
 * The port's `feedbackSuffix` can only append, and the reference puts a header before the
 * feedback, so the wrapper replaces the problem's feedback instead.
 */
import type { ParameterSpec, ParameterValues } from "../../domain/parameter.js";
import { renderValue } from "../problem.js";
import type { Trainer } from "../trainer.js";
import { runBeamsearch, BEAMSEARCH_KWARGS, type ScoredCandidate } from "./beamsearch.js";
import { kwargReader } from "./classic-kwargs.js";

const ID = "BeamsearchHistoryAlgorithm";

export const BEAMSEARCH_HISTORY_KWARGS = [...BEAMSEARCH_KWARGS, "max_history_size"] as const;

/** A kept beam and the validation (minibatch) score it was kept with. */
export type HistoryEntry = ScoredCandidate;

/** A value as a history line shows it: floats to 4 decimals, long lists abbreviated. */
function historyValue(value: ParameterValues[string], kind: ParameterSpec["kind"]): string {
  if (typeof value === "number") return kind === "integer" || (kind !== "number" && Number.isInteger(value)) ? String(value) : value.toFixed(4);
  if (Array.isArray(value) && value.length > 5) {
    return `[${value
      .slice(0, 2)
      .map((v) => renderValue(v))
      .join(", ")}...${renderValue(value[value.length - 1])}]`;
  }
  return renderValue(value, kind);
}

/** The history block the optimizer sees, with the trainable parameters of each entry. */
export function historyFeedback(feedback: string, history: readonly HistoryEntry[], parameters: readonly ParameterSpec[]): string {
  const trainable = parameters.filter((p) => p.trainable);
  const lines = history.map((entry, i) => {
    const shown = trainable.map((p) => `${p.name}: ${historyValue(entry.values[p.name] ?? p.value, p.kind)}`).join(", ");
    return `  Attempt ${i + 1} (Score: ${entry.score.toFixed(4)}): {${shown}}\n`;
  });
  const context =
    "\n--- History Context ---\n" +
    "Below are the parameter sets kept at earlier search depths with the validation score each reached; take them into account when proposing new values.\n" +
    (lines.length === 0 ? "(Nothing has been kept yet.)\n" : lines.join(""));
  return `--- Current Feedback ---\n${feedback}\n${context}`;
}

export const beamsearchHistoryTrainer: Trainer = {
  id: ID,
  kwargs: BEAMSEARCH_HISTORY_KWARGS,
  train(context) {
    const maxHistory = kwargReader(ID, context.kwargs).int("max_history_size", 10, 0);
    let history: HistoryEntry[] = [];
    return runBeamsearch(context, {
      id: ID,
      defaultNumProposals: 1,
      defaultMinScore: 0,
      problem: (problem) => ({ ...problem, feedback: historyFeedback(problem.feedback, history, context.parameters) }),
      selected(beams) {
        history = [...history, ...beams.filter((b) => b.score > -Infinity)];
        if (history.length > maxHistory) history = history.slice(history.length - maxHistory);
      },
    });
  },
};
