/**
 * `trace-bench candidates <run_dir>`: every candidate each job's latest attempt evaluated, from
 * its log: the iteration that introduced it, its parents, how often it was evaluated and what it
 * scored, the job's initial, final and best ones marked, what it changed in its parent, and the
 * lineage from the initial values to the best. A verb of its own rather than a `calls` option:
 * `calls` is a transcript of LLM requests, this a table of what the search tried.
 */
import type { ParsedArgs, VerbSpec } from "./args.js";
import { RunQueryError, withRunLog } from "./run-log.js";
import { candidateContentRefs, candidateTables, shortCandidate, type CandidateEntry, type JobCandidates } from "../events/projections/candidate-table.js";
import { matrixJobs } from "../events/projections/token-audit.js";
import type { JobSpecRecord } from "../events/event-schema.js";
import { variantSuffix } from "../config/variant-label.js";
import { roundForPeople } from "./console-format.js";
import { textTable } from "./text-table.js";

export const spec: VerbSpec = {
  name: "candidates",
  summary:
    "Print each job's candidates (latest attempt): the iteration that introduced it, parents, evaluations, mean and best score, initial/final/best marks, what it changed, and the lineage from the initial values to the best.",
  flags: {
    job: { type: "string", value: "ID", description: "Only this job's candidates (job ids: 'trace-bench tokens <run_dir>')." },
    json: { type: "boolean", description: "Print one JSON object: per job, its candidates with their values, evaluations (feedback texts included) and the lineage." },
  },
  positional: { name: "run_dir", description: "A run directory (runs/<run_id>).", required: true },
};

const introducedText = (c: CandidateEntry) => (c.introduced === null ? "final" : c.introduced === 0 ? "initial" : `iteration ${c.introduced}`);
const changeText = (c: CandidateEntry) => c.changes.map((x) => `${x.parameter} +${x.added} -${x.removed} lines`).join(", ");

function jobText(table: JobCandidates, spec: JobSpecRecord | undefined): string {
  const what = spec === undefined ? "" : ` (${spec.task_id} x ${spec.trainer_id}${variantSuffix(spec.raw_params)}, seed ${spec.seed})`;
  const evaluations = table.candidates.reduce((n, c) => n + c.evaluations.filter((e) => e.phase === "training").length, 0);
  const head = `job ${table.job_id} attempt ${table.attempt}${what}: ${table.candidates.length} candidate${table.candidates.length === 1 ? "" : "s"}, ${evaluations} training evaluation${evaluations === 1 ? "" : "s"}`;
  if (table.candidates.length === 0) return `${head}\n  no candidate on record (a log written before candidates were recorded, or the job stopped before its first evaluation)`;
  const rows = table.candidates.map((c) => [
    shortCandidate(c.candidate),
    introducedText(c),
    c.parents.length === 0 ? "-" : c.parents.map(shortCandidate).join(" "),
    String(c.evaluations.filter((e) => e.phase === "training").length),
    roundForPeople(c.mean_score),
    roundForPeople(c.best_score),
    c.marks.join(" "),
    changeText(c),
  ]);
  const table_ = textTable(["candidate", "introduced", "parents", "evals", "mean", "best", "marks", "change"], rows, new Set([3, 4, 5]));
  const lineage = table.lineage.length === 0 ? [] : [`lineage to the best: ${table.lineage.map(shortCandidate).join(" -> ")}`];
  return [head, ...table_.split("\n").map((line) => `  ${line}`), ...lineage.map((line) => `  ${line}`)].join("\n");
}

export async function execute(args: ParsedArgs): Promise<number> {
  const runDir = args.positional!;
  const jobId = typeof args.flags.job === "string" ? args.flags.job : null;
  const { tables, specs, contents } = withRunLog("candidates", runDir, ({ events, contents }) => {
    const jobs = matrixJobs(events).specs;
    if (jobId !== null && !jobs.has(jobId)) throw new RunQueryError({ problem: `unknown job '${jobId}' in ${runDir}; list its jobs with 'trace-bench tokens ${runDir}'` });
    const own = jobId === null ? events : events.filter((e) => e.job_id === jobId);
    const texts = contents(candidateContentRefs(own));
    const feedbackRefs = new Set(own.flatMap((e) => (e.type === "CandidateEvaluated" ? e.data.feedback : [])));
    return { tables: candidateTables(own, texts, jobId), specs: jobs, contents: args.flags.json === true ? contents(feedbackRefs) : new Map<string, string>() };
  });
  if (args.flags.json === true) {
    const jobs = tables.map((t) => ({
      ...t,
      candidates: t.candidates.map((c) => ({
        ...c,
        evaluations: c.evaluations.map(({ feedback_refs, ...e }) => ({ ...e, feedback: e.feedback ?? feedback_refs.map((ref) => contents.get(ref) ?? null) })),
      })),
    }));
    process.stdout.write(`${JSON.stringify({ run_dir: runDir, job: jobId, jobs }, null, 2)}\n`);
    return 0;
  }
  if (tables.length === 0) process.stdout.write("no job has run\n");
  else process.stdout.write(`${tables.map((t) => jobText(t, specs.get(t.job_id))).join("\n\n")}\n`);
  return 0;
}
