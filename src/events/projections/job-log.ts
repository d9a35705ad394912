/**
 * `stdout.log`: a job's events, every attempt, as lines a person reads. It is a projection like
 * the others, so `replay` rebuilds it exactly.
 */
import type { StoredEvent } from "../event-schema.js";
import { pythonFloatRepr } from "../../codec/python-json.js";

const score = (s: number | null) => (s === null ? "none" : pythonFloatRepr(s));
const indent = (text: string) => text.split("\n").join("\n    ");

function describe(event: StoredEvent): string | null {
  switch (event.type) {
    case "JobQueued":
      return `=== attempt ${event.data.attempt} (invocation ${event.data.invocation}) queued`;
    case "JobTransitioned": {
      const d = event.data;
      const deadline = d.deadline ? ` (deadline ${d.deadline})` : "";
      return `${d.from} -> ${d.to} on ${d.event}${deadline}${d.reason ? `: ${indent(d.reason)}` : ""}${d.detail ? `\n    ${indent(d.detail)}` : ""}`;
    }
    case "EvaluationCompleted":
      return `${event.data.phase} evaluation on ${event.data.split}: score=${score(event.data.score)} | ${indent(event.data.feedback)}`;
    case "IterationCompleted": {
      const d = event.data;
      return `[Step ${d.step}] score=${score(d.score)} best=${score(d.best_score)} llm_calls=${d.llm_calls} evaluations=${d.evaluations}`;
    }
    case "LlmCallStarted":
      return null; // its outcome says it all
    case "LlmCallCompleted": {
      const d = event.data;
      const call = d.call === undefined ? "" : ` #${d.call}`;
      const how = d.replayed ? " (replayed from the journal, not billed)" : ` in ${d.latency_ms} ms${d.retries ? ` after ${d.retries} retries` : ""}`;
      return `llm${call} ${d.role} ${d.model}: ${d.prompt_tokens}+${d.completion_tokens} tokens${d.estimated ? " (estimated)" : ""}${how}`;
    }
    case "LlmCallFailed": {
      const d = event.data;
      return `llm #${d.call} ${d.role} ${d.model} failed (${d.error_class}${d.http_status === null ? "" : ` ${d.http_status}`}, ${d.retries} retries): ${d.message}`;
    }
    case "LlmCallAborted": {
      const d = event.data;
      return `llm #${d.call} ${d.role} ${d.model} aborted after ${d.latency_ms} ms (${d.reason}); tokens unknown`;
    }
    case "JournalDiverged":
      return `journal: request #${event.data.call} differs from the interrupted attempt's after ${event.data.replayed} replayed calls; calls go live`;
    case "TaskOutput":
      return `task output:\n    ${indent(event.data.text.replace(/\n$/, ""))}`;
    case "ReplyUnusable":
      return `unusable optimizer reply: ${event.data.reason}`;
    case "JobFinished": {
      const d = event.data;
      return `finished ${d.status}: score_val=${score(d.score_val)} score_test=${score(d.score_test)} in ${d.time_seconds.toFixed(3)}s${d.feedback ? `\n    ${indent(d.feedback)}` : ""}`;
    }
    default:
      return null;
  }
}

/** One event's line of `stdout.log`, or null for an event the log leaves out. */
export function jobLogLine(event: StoredEvent): string | null {
  const text = describe(event);
  return text === null ? null : `[${event.ts}] ${text}\n`;
}

export function jobLog(events: readonly StoredEvent[]): string {
  let log = "";
  for (const event of events) log += jobLogLine(event) ?? "";
  return log;
}
