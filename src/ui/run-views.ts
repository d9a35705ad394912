/**
 * What the run view and the job inspector show, built from a followed run: the results table
 * (results.csv's rows, live), leaderboard, iteration series, token audits, and one job's path
 * through its machine, events, iterations, evaluations, LLM calls and files. Everything comes from
 * the event log through the projections `trace-bench` itself writes its reports with.
 */
import { existsSync, readdirSync } from "node:fs";
import { shellWord } from "../codec/shell-word.js";
import { cliCommand } from "../fs/cli-command.js";
import { join } from "node:path";
import { jobStream } from "../events/event-schema.js";
import { contentRefsOf, transcriptEntries } from "../events/projections/call-transcript.js";
import { candidateContentRefs, candidateTables } from "../events/projections/candidate-table.js";
import { jobDir } from "../events/projections/job-paths.js";
import { jobLogLine } from "../events/projections/job-log.js";
import { llmCallRecords } from "../events/projections/llm-call-records.js";
import { resultColumns, resultRow } from "../events/projections/results-table.js";
import { leaderboardRows, RUN_FILES } from "../events/projections/run-files.js";
import { tokenAudit, type TokenAudit } from "../events/projections/token-audit.js";
import type { AuditGroup, CallEntry, CandidatesEntry, IterationPoint, JobPayload, RunPayload, TokensPayload } from "./api-types.js";
import { resumeArgs } from "./launcher.js";
import type { WatchedRun } from "./watched-run.js";
import { jobCancellable } from "./job-cancellable.js";
import { metricScatter } from "./metric-scatter.js";

/** The page could not find what it named inside the run (HTTP 404). */
export class UnknownJobError extends Error {
  override readonly name = "UnknownJobError";
}

/** Files under `dir`, relative to `base`, POSIX-style, sorted; at most `limit`. */
export function filesUnder(base: string, dir: string, limit = 500): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    let entries;
    try {
      entries = readdirSync(join(base, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (found.length >= limit) return;
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) found.push(path);
    }
  };
  walk(dir);
  return found;
}

/** As the dashboard shows a command: one that works as printed from where `trace-bench ui` was started. */
const commandLine = (args: readonly string[]) => cliCommand(args.map(shellWord).join(" "));

export function runPayload(run: WatchedRun): RunPayload {
  const summary = run.summary();
  if (summary === null) throw new UnknownJobError(`run ${run.relDir} has not started yet`);
  const state = run.run;
  const jobs = run.jobStates();
  const stateOf = new Map(jobs.map((j) => [j.job_id, j.state]));
  const rows = state.orderedJobs().map((job) => {
    const row = resultRow(state, job) ?? { run_id: state.runId, job_id: job.job_id, task_id: job.spec.task_id, suite: job.spec.suite, trainer_id: job.spec.trainer_id, seed: job.spec.seed, status: null };
    return { ...row, state: stateOf.get(job.job_id) ?? job.state };
  });
  const finishedRows = state.orderedJobs().flatMap((job) => resultRow(state, job) ?? []);
  const leaderboard = leaderboardRows(finishedRows).map(({ rank, row, n, score_mean, score_std }) => ({
    rank,
    task_id: String(row.task_id),
    suite: String(row.suite),
    job_id: String(row.job_id),
    trainer_id: String(row.trainer_id),
    variant: String(row.variant),
    resolved_optimizer: (row.resolved_optimizer as string | null) ?? null,
    llm_model: (row.llm_model as string | null) ?? null,
    score_val: (row.score_val as number | null) ?? null,
    score_test: (row.score_test as number | null) ?? null,
    time_seconds: Number(row.time_seconds),
    n,
    score_mean,
    score_std,
  }));
  const iterations: Record<string, IterationPoint[]> = {};
  for (const job of state.orderedJobs()) {
    if (job.iterations.length > 0) iterations[job.job_id] = job.iterations.map((i) => ({ step: i.step, score: i.score, best_score: i.best_score }));
  }
  const files = Object.values(RUN_FILES).filter((f) => existsSync(join(run.runDir, f)));
  const scatter = metricScatter(finishedRows, (stream) => run.log.readStream(stream));
  return {
    run: summary,
    last_seq: run.lastSeq,
    columns: [...resultColumns(finishedRows), "state"],
    rows,
    jobs,
    leaderboard,
    iterations,
    files,
    resume_command: summary.status === "running" ? null : commandLine(resumeArgs(run, "auto")),
    retry_command: summary.status === "running" ? null : commandLine(resumeArgs(run, "failed")),
    ...(scatter !== null ? { metric_scatter: scatter } : {}),
  };
}

/** Token audit groups with `name` for `key` (a field called key would be redacted as a secret on the way out). */
function renamedAudit(audit: TokenAudit): TokensPayload["audits"]["trainer"] {
  const rename = (g: TokenAudit["totals"]): AuditGroup => ({ name: g.key, calls: g.calls, billed: g.billed, replayed: g.replayed, cost_usd: g.cost_usd, estimated: g.estimated });
  return { groups: audit.groups.map(rename), totals: rename(audit.totals) };
}

export function tokensPayload(run: WatchedRun): TokensPayload {
  const events = run.log.readAfter(0);
  return {
    audits: {
      trainer: renamedAudit(tokenAudit(events, "trainer")),
      task: renamedAudit(tokenAudit(events, "task")),
      model: renamedAudit(tokenAudit(events, "model")),
      role: renamedAudit(tokenAudit(events, "role")),
    },
  };
}

export function jobPayload(run: WatchedRun, jobId: string): JobPayload {
  const view = run.run.jobs.get(jobId);
  const state = run.jobStates().find((j) => j.job_id === jobId);
  if (view === undefined || state === undefined) throw new UnknownJobError(`run ${run.relDir} has no job '${jobId}'`);
  const events = run.log.readStream(jobStream(jobId));
  const transitions = events.flatMap((e) =>
    e.type === "JobTransitioned" ? [{ attempt: e.data.attempt, from: e.data.from, to: e.data.to, event: e.data.event, reason: e.data.reason, ts: e.ts }] : [],
  );
  const timeline = events.map((e) => ({
    seq: e.seq,
    ts: e.ts,
    type: e.type,
    attempt: "attempt" in e.data ? (e.data.attempt as number) : null,
    text: jobLogLine(e)?.replace(/^\[[^\]]*\] /, "").trimEnd() ?? null,
  }));
  const iterations = events.flatMap((e) =>
    e.type === "IterationCompleted"
      ? [{ attempt: e.data.attempt, step: e.data.step, score: e.data.score, best_score: e.data.best_score, values: e.data.values, llm_calls: e.data.llm_calls, evaluations: e.data.evaluations, notes: e.data.notes ?? [] }]
      : [],
  );
  const evaluations = events.flatMap((e) =>
    e.type === "EvaluationCompleted"
      ? [{ attempt: e.data.attempt, phase: e.data.phase, split: e.data.split, score: e.data.score, feedback: e.data.feedback, example_scores: e.data.example_scores }]
      : [],
  );
  const records = llmCallRecords(events);
  const calls: CallEntry[] = transcriptEntries(records, run.log.contents(contentRefsOf(records))).map((c) => ({
    seq: c.seq,
    attempt: c.attempt,
    call: c.call,
    role: c.role,
    model: c.model,
    outcome: c.outcome,
    error: c.error,
    prompt_tokens: c.prompt_tokens,
    completion_tokens: c.completion_tokens,
    total_tokens: c.total_tokens,
    latency_ms: c.latency_ms,
    cost_usd: c.cost_usd,
    messages: c.messages,
    reply: c.reply,
  }));
  const [table] = candidateTables(events, run.log.contents(candidateContentRefs(events)), jobId);
  const candidates: CandidatesEntry = {
    attempt: table?.attempt ?? 0,
    rows: (table?.candidates ?? []).map((c) => ({
      candidate: c.candidate,
      introduced: c.introduced,
      parents: c.parents,
      evaluations: c.evaluations.filter((e) => e.phase === "training").length,
      mean_score: c.mean_score,
      best_score: c.best_score,
      marks: c.marks,
      changes: c.changes,
    })),
    lineage: table?.lineage ?? [],
  };
  const finished = view.finished;
  const reason = [...transitions].reverse().find((t) => t.attempt === view.attempt && t.reason !== null)?.reason ?? null;
  return {
    rel_dir: run.relDir,
    job: { ...state, spec: view.spec, reason },
    transitions,
    timeline,
    iterations,
    evaluations,
    calls,
    candidates,
    artifacts: filesUnder(run.runDir, jobDir(jobId)),
    cancellable: jobCancellable(run, state) === null,
    finished:
      finished === null
        ? null
        : {
            status: finished.status,
            attempt: finished.attempt,
            feedback: finished.feedback,
            score_val_initial: finished.score_val_initial,
            score_val_final: finished.score_val_final,
            score_val: finished.score_val,
            score_test: finished.score_test,
            time_seconds: finished.time_seconds,
            tokens: finished.tokens,
            llm_calls: finished.llm_calls,
            cost_usd: finished.cost_usd,
            resolved: finished.resolved,
            initial_values: finished.initial_values,
            best_values: finished.best_values,
            final_values: finished.final_values,
          },
  };
}
