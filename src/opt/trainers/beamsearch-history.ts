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
 * As the reference (parity scenario beamsearch-history), an entry lists every trainable parameter
 * of the kept candidate, code included, in the candidate's own key order (a proposal's returned
 * parameters first, then the beam's others: runBeamsearch builds candidates so), under Trace's
 * node name (`float:0`, `__code:0`: the name the prompt shows with its counter after a colon);
 * floats have 4 decimals, other values are written as the prompt writes them.
 *
 * Defaults differ from Beamsearch: `num_proposals` 1 and `min_score` 0 (a failing validation
 * example scores 0 rather than making the candidate −∞).
 *
 * The port's `feedbackSuffix` can only append, and the reference puts a header before the
 * feedback, so the wrapper replaces the problem's feedback instead.
 */
import type { ParameterSpec, ParameterValues } from "../../domain/parameter.js";
import { parameterOf, renderValue, type ProblemInstance } from "../problem.js";
import { traceNodeName } from "../trace/summary.js";
import type { Trainer } from "../trainer.js";
import { runBeamsearch, BEAMSEARCH_KWARGS, type ScoredCandidate } from "./beamsearch.js";
import { kwargReader } from "./classic-kwargs.js";

const ID = "BeamsearchHistoryAlgorithm";

export const BEAMSEARCH_HISTORY_KWARGS = [...BEAMSEARCH_KWARGS, "max_history_size"] as const;

/** A kept beam and the validation (minibatch) score it was kept with. */
export type HistoryEntry = ScoredCandidate;

/** Python's `f"{x:.4f}"` (the sign of −0.0 kept, inf and nan as Python writes them). */
function fixed4(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  return Object.is(x, -0) ? "-0.0000" : x.toFixed(4);
}

/** A value as a history line shows it: floats to 4 decimals, long lists abbreviated. */
function historyValue(value: ParameterValues[string], kind: ParameterSpec["kind"]): string {
  if (typeof value === "number") return kind === "integer" || (kind !== "number" && Number.isInteger(value)) ? String(value) : fixed4(value);
  if (Array.isArray(value) && value.length > 5) {
    return `[${value
      .slice(0, 2)
      .map((v) => renderValue(v))
      .join(", ")}...${renderValue(value[value.length - 1])}]`;
  }
  return renderValue(value, kind);
}

/**
 * The name each parameter has in a history entry, by parameter: Trace's node name for a traced
 * agent's variables, the parameter's own name otherwise (an untraced agent's variables carry it).
 */
export function historyNames(problem: ProblemInstance): Map<string, string> {
  return new Map(problem.variables.map((v) => [parameterOf(v), problem.graph ? traceNodeName(v.name) : v.name]));
}

/**
 * The history block the optimizer sees: each entry's trainable parameters in the entry's key
 * order, named by `names` (a parameter missing there, one the graph did not reach, by its own name).
 */
export function historyFeedback(feedback: string, history: readonly HistoryEntry[], parameters: readonly ParameterSpec[], names: ReadonlyMap<string, string>): string {
  const trainable = new Map(parameters.filter((p) => p.trainable).map((p) => [p.name, p]));
  const lines = history.map((entry, i) => {
    const shown = Object.entries(entry.values)
      .filter(([name]) => trainable.has(name))
      .map(([name, value]) => `${names.get(name) ?? name}: ${historyValue(value, trainable.get(name)!.kind)}`)
      .join(", ");
    return `  Attempt ${i + 1} (Score: ${fixed4(entry.score)}): {${shown}}\n`;
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
      problem: (problem) => ({ ...problem, feedback: historyFeedback(problem.feedback, history, context.parameters, historyNames(problem)) }),
      selected(beams) {
        history = [...history, ...beams.filter((b) => b.score > -Infinity)];
        if (history.length > maxHistory) history = history.slice(history.length - maxHistory);
      },
    });
  },
};
