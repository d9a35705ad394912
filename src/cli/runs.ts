/**
 * `trace-bench runs [--runs-dir DIR] [--json]`: the runs under a runs dir, found at any depth (a
 * folder with an `events.db` is a run; other folders are searched), each read from its event log
 * without the writer lock, so listing never disturbs a run in progress. A log that cannot be read
 * (damaged, or not trace-bench's) is skipped with a warning line on stderr.
 *
 * Status: `running` while a live process holds the run's writer lock (`trace-bench run`), else
 * `finished` when the latest invocation recorded RunFinished, else `interrupted` (it recorded
 * RunInterrupted, or it crashed: `crashed` says which). Counts are of each job's latest attempt;
 * tokens and cost are everything billed (every attempt, replayed replies excluded), cost null when
 * a model had no price.
 */
import { existsSync, statSync } from "node:fs";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { JSON_FLAG } from "./common-flags.js";
import { textTable } from "./text-table.js";
import { listRuns } from "../events/run-listing.js";
import { usdForPeople } from "../codec/usd-for-people.js";

export const spec: VerbSpec = {
  name: "runs",
  summary: "List the runs under a runs dir (nested folders too): status (running, finished, interrupted), mode (stub or real), config, job counts, tokens, cost and start time. Read-only.",
  flags: {
    "runs-dir": { type: "string", value: "DIR", aliases: ["output-dir"], description: "Runs root to search (default: runs)." },
    json: { ...JSON_FLAG, description: 'Print one JSON document: {"runs_dir", "runs": [...], "warnings": [...]}.' },
  },
};

const JOB_ORDER = ["ok", "no_valid_candidate", "failed", "timeout", "skipped", "cancelled", "running", "queued", "not_executed"];

function jobsText(jobs: Record<string, number>): string {
  const parts = Object.entries(jobs)
    .filter(([status]) => status !== "matrix")
    .sort(([a], [b]) => (JOB_ORDER.indexOf(a) + 1 || 99) - (JOB_ORDER.indexOf(b) + 1 || 99))
    .map(([status, n]) => `${n} ${status}`);
  return `${parts.join(", ")} (of ${jobs.matrix})`;
}

export async function execute(args: ParsedArgs): Promise<number> {
  const runsDir = (args.flags["runs-dir"] as string | undefined) ?? "runs";
  if (existsSync(runsDir) && !statSync(runsDir).isDirectory()) {
    process.stderr.write(`trace-bench: --runs-dir ${runsDir} is not a directory\n`);
    return 2;
  }
  const { runs, warnings } = listRuns(runsDir);
  for (const warning of warnings) process.stderr.write(`trace-bench: warning: ${warning}\n`);
  if (args.flags.json === true) {
    process.stdout.write(`${JSON.stringify({ runs_dir: runsDir, runs, warnings }, null, 2)}\n`);
    return 0;
  }
  if (runs.length === 0) {
    process.stdout.write(`No runs under ${runsDir}\n`);
    return 0;
  }
  const rows = runs.map((r) => [
    r.run_id,
    r.status + (r.crashed ? " (crashed)" : ""),
    // stub or real: a stub run's $0 is no free real run.
    r.mode,
    r.started_at.replace("T", " ").replace(/\.\d+Z$|Z$/, ""),
    r.config_name === null ? r.config_hash.slice(0, 12) : `${r.config_name} (${r.config_hash.slice(0, 12)})`,
    jobsText(r.jobs),
    String(r.tokens.total_tokens),
    r.cost_usd === null ? "unknown" : usdForPeople(r.cost_usd),
    r.run_dir,
  ]);
  process.stdout.write(`${textTable(["RUN", "STATUS", "MODE", "STARTED (UTC)", "CONFIG", "JOBS", "TOKENS", "COST", "DIR"], rows, new Set([6, 7]))}\n`);
  return 0;
}
