/**
 * `trace-bench calls <run_dir>`: the transcript of a run's LLM calls in log order: who asked
 * (job, attempt, call, role, model), how it ended, its tokens and latency, every prompt message
 * and the reply, read from the content table. `--step N` keeps, per job and attempt, the calls
 * that started after the previous IterationCompleted (or the attempt's start) up to the
 * IterationCompleted with step N (so the initial evaluation's calls belong to the first step).
 */
import type { ParsedArgs, VerbSpec } from "./args.js";
import { UsageError } from "./args.js";
import { usdForPeople } from "../codec/usd-for-people.js";
import { RunQueryError, withRunLog } from "./run-log.js";
import { callsOfStep, contentRefsOf, stepsOf, transcriptEntries, type TranscriptEntry } from "../events/projections/call-transcript.js";
import { llmCallRecords } from "../events/projections/llm-call-records.js";
import { cutOffBound, type CutOffBound } from "../events/projections/cut-off-calls.js";
import { matrixJobs, PREFLIGHT_KEY, preflightCallRecords, promptTokensByHash } from "../events/projections/token-audit.js";

export const spec: VerbSpec = {
  name: "calls",
  summary: "Print the LLM calls of a run in log order: job, attempt, call, role, model, outcome, tokens, latency, then each prompt message and the reply.",
  flags: {
    job: { type: "string", value: "ID", description: "Only this job's calls (job ids: 'trace-bench tokens <run_dir>')." },
    step: {
      type: "string",
      value: "N",
      description: "Only the calls of step N: per attempt, those started after the previous IterationCompleted (or the attempt's start) up to the IterationCompleted with step N.",
    },
    json: { type: "boolean", description: "Print one JSON object with the calls, prompts and replies." },
  },
  positional: { name: "run_dir", description: "A run directory (runs/<run_id>).", required: true },
};

const NOT_STORED = "(not stored)";
const indent = (text: string) => text.split("\n").map((line) => (line === "" ? "" : `    ${line}`)).join("\n");

/** What a call cut off without a bill may have cost, at most. */
function boundText(bound: CutOffBound | undefined): string {
  if (bound === undefined || bound.tokens === null) return "tokens unknown";
  return `billed at most ${bound.tokens} tokens (${bound.prompt_tokens} prompt${bound.prompt_known ? "" : " at most"} + max_tokens ${bound.completion_tokens})`;
}

function outcomeText(e: TranscriptEntry, bound?: CutOffBound): string {
  const tokens = `${e.prompt_tokens}+${e.completion_tokens}=${e.total_tokens} tokens${e.cached_tokens ? ` (${e.cached_tokens} cached)` : ""}${e.estimated ? " (estimated)" : ""}`;
  const latency = e.latency_ms === null ? "" : `, ${e.latency_ms} ms`;
  switch (e.outcome) {
    case "completed":
      return `completed, ${tokens}${latency}${e.cost_usd === null ? "" : `, ${usdForPeople(e.cost_usd)}`}`;
    case "replayed":
      return `replayed from the journal (not sent, not billed), ${tokens}`;
    case "failed":
      return `failed (${e.error})${latency}`;
    case "aborted":
      return `aborted (${e.error})${latency}; ${boundText(bound)}`;
    case "lost":
      return `lost: no outcome in the log (the process stopped mid-call; a resume sends it again); ${boundText(bound)}`;
  }
}

function entryText(e: TranscriptEntry, bound?: CutOffBound): string {
  const call = e.call === null ? "call ?" : `call ${e.call}`;
  const who = e.job_id === PREFLIGHT_KEY ? `preflight of invocation ${e.attempt}` : `job ${e.job_id} attempt ${e.attempt} ${call}`;
  const lines = [`=== ${who} (event ${e.seq}): ${e.role} ${e.model}: ${outcomeText(e, bound)}`];
  if (e.job_id === PREFLIGHT_KEY) {
    lines.push("--- prompt and reply: not stored (the fixed preflight request, recorded with RunStarted)");
    return lines.join("\n");
  }
  if (e.messages === null) lines.push(`--- prompt: ${NOT_STORED}`);
  for (const m of e.messages ?? []) lines.push(`--- prompt [${m.role}]`, indent(m.text ?? NOT_STORED));
  if (e.outcome === "completed" || e.outcome === "replayed") lines.push("--- reply", indent(e.reply ?? NOT_STORED));
  else lines.push(`--- reply: none (${e.outcome})`);
  return lines.join("\n");
}

function parseStep(text: string | undefined): number | null {
  if (text === undefined) return null;
  if (!/^-?\d+$/.test(text)) throw new UsageError({ verb: "calls", problem: `--step must be a whole number, got '${text}'` });
  return Number(text);
}

export async function execute(args: ParsedArgs): Promise<number> {
  const runDir = args.positional!;
  const jobId = typeof args.flags.job === "string" ? args.flags.job : null;
  const step = parseStep(args.flags.step as string | undefined);
  const bounds = new Map<number, CutOffBound>();
  const entries = withRunLog("calls", runDir, ({ events, contents }) => {
    const jobs = matrixJobs(events).specs;
    if (jobId !== null && !jobs.has(jobId)) {
      throw new RunQueryError({ problem: `unknown job '${jobId}' in ${runDir}; list its jobs with 'trace-bench tokens ${runDir}'` });
    }
    const all = llmCallRecords(events);
    const promptByHash = promptTokensByHash(all);
    let records = all.filter((r) => jobId === null || r.job_id === jobId);
    if (step !== null) {
      const ofStep = callsOfStep(events.filter((e) => jobId === null || e.job_id === jobId), records, step);
      if (ofStep === null) {
        const steps = stepsOf(events, jobId);
        const what = jobId === null ? `no job of ${runDir} has a step ${step}` : `job ${jobId} has no step ${step}`;
        throw new RunQueryError({ problem: `${what} (steps: ${steps.length === 0 ? "none" : steps.join(", ")})` });
      }
      records = ofStep;
    }
    // The run's preflight requests belong to no job or step: listed with the whole run's calls.
    if (jobId === null && step === null) records = [...preflightCallRecords(events), ...records].sort((a, b) => a.seq - b.seq);
    for (const r of records) if (r.started !== null && (r.outcome === "aborted" || r.outcome === "lost")) bounds.set(r.seq, cutOffBound(r.started, promptByHash));
    return transcriptEntries(records, contents(contentRefsOf(records)));
  });
  if (args.flags.json === true) {
    process.stdout.write(`${JSON.stringify({ run_dir: runDir, job: jobId, step, calls: entries }, null, 2)}\n`);
    return 0;
  }
  if (entries.length === 0) process.stdout.write("no LLM calls\n");
  else process.stdout.write(`${entries.map((e) => entryText(e, bounds.get(e.seq))).join("\n\n")}\n`);
  return 0;
}
