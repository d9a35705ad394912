/**
 * `trace-bench tokens <run_dir>`: what the run's LLM calls used, from the event log, per job
 * (or task, trainer, model, role), then a check that results.csv and summary.json say the same.
 * Exit 1 when they do not; a file not written yet (run going or crashed) is said, not an error.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { withRunLog } from "./run-log.js";
import { textTable } from "./text-table.js";
import { parseCsvRecords } from "../codec/python-csv.js";
import { shellWord } from "../codec/shell-word.js";
import { usdForPeople } from "../codec/usd-for-people.js";
import { cliCommand } from "../fs/cli-command.js";
import { RUN_FILES } from "../events/projections/run-files.js";
import { AUDIT_GROUPINGS, tokenAudit, type AuditGrouping, type TokenAudit, type UsageGroup } from "../events/projections/token-audit.js";
import { reconcile, type CheckedValue, type FileRead, type Mismatch, type Reconciliation } from "../events/projections/token-reconciliation.js";

export const spec: VerbSpec = {
  name: "tokens",
  summary:
    "Print the LLM calls (completed, replayed, failed, aborted, lost; the preflight included), billed tokens, what aborted and lost calls may have cost at most, and cost of a run from its event log, per job or --by task|trainer|model|role, then check them against results.csv and summary.json (exit 1 on a mismatch).",
  flags: {
    by: { type: "string", value: "GROUP", choices: AUDIT_GROUPINGS, description: "Group by job (default), task, trainer, model or role." },
    json: { type: "boolean", description: "Print one JSON object: groups, totals and reconciliation." },
  },
  positional: { name: "run_dir", description: "A run directory (runs/<run_id>).", required: true },
};

function readResultsCsv(runDir: string): FileRead<Record<string, string>[]> {
  const path = join(runDir, RUN_FILES.results_csv);
  if (!existsSync(path)) return { state: "missing" };
  try {
    const text = readFileSync(path, "utf8");
    if (!text.startsWith("run_id,job_id,")) return { state: "unreadable", problem: "no results header (run_id,job_id,...)" };
    return { state: "read", value: parseCsvRecords(text) };
  } catch (error) {
    return { state: "unreadable", problem: error instanceof Error ? error.message : String(error) };
  }
}

function readSummaryJson(runDir: string): FileRead<Record<string, unknown>> {
  const path = join(runDir, RUN_FILES.summary_json);
  if (!existsSync(path)) return { state: "missing" };
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (value === null || typeof value !== "object" || Array.isArray(value)) return { state: "unreadable", problem: "not a JSON object" };
    return { state: "read", value: value as Record<string, unknown> };
  } catch (error) {
    return { state: "unreadable", problem: error instanceof Error ? error.message.split("\n")[0]! : String(error) };
  }
}

const cost = (usd: number | null) => (usd === null ? "unknown" : usdForPeople(usd));

function groupCells(group: UsageGroup, withJob: boolean): string[] {
  const c = group.calls;
  const job = withJob ? [group.job?.task_id ?? "", group.job?.trainer_id ?? "", group.job?.variant ?? "", group.job === undefined ? "" : String(group.job.seed)] : [];
  const b = group.billed;
  const lost = group.lost_at_most;
  const lostAtMost = lost.unbounded > 0 ? "unknown" : String(lost.total_tokens);
  return [group.key, ...job, ...[c.completed, c.replayed, c.failed, c.aborted, c.lost, b.prompt_tokens, b.completion_tokens, b.cached_tokens, b.total_tokens].map(String), lostAtMost, String(group.replayed.total_tokens), cost(group.cost_usd)];
}

function auditText(audit: TokenAudit): string {
  const withJob = audit.by === "job";
  const header = [audit.by, ...(withJob ? ["task", "trainer", "variant", "seed"] : []), "completed", "replayed", "failed", "aborted", "lost", "prompt", "completion", "cached", "total", "lost_at_most", "replayed_total", "cost_usd"];
  const firstNumber = withJob ? 4 : 1;
  const right = new Set(header.map((_, i) => i).filter((i) => i >= firstNumber));
  const totals = groupCells(audit.totals, withJob);
  const rows = [...audit.groups.map((g) => groupCells(g, withJob)), totals];
  const lines = [textTable(header, rows, right)];
  lines.push("prompt..total: tokens billed and known (completed calls, the preflight included); replayed_total: tokens of calls answered from an interrupted attempt's journal (not sent, not billed)");
  const lost = audit.totals.lost_at_most;
  const cutOff = audit.totals.calls.aborted + audit.totals.calls.lost;
  if (cutOff > 0) {
    const bound = lost.unbounded > 0 ? `unknown for ${lost.unbounded} of them (logged without their max_tokens)` : `at most ${lost.total_tokens} tokens (${lost.prompt_tokens} prompt + ${lost.completion_tokens} completion at most)`;
    lines.push(
      `lost_at_most: the ${cutOff} aborted or lost call(s) may have been billed without the log knowing: ${bound}; the provider's bill lies between total and total + lost_at_most`,
    );
  }
  if (audit.totals.estimated) lines.push("tokens are estimated (stub LLM), not counted by a provider");
  if (audit.totals.cost_usd === null) lines.push("cost_usd unknown: some billed call's model has no price (see configs/pricing.yaml)");
  return lines.join("\n");
}

const shown = (value: CheckedValue) => (value === null ? "null" : String(value));

function mismatchLine(m: Mismatch): string {
  const where = m.job_id === null ? m.file : `${m.file} job ${m.job_id}`;
  return `mismatch: ${where} ${m.column}: events ${shown(m.events)}, file ${shown(m.found)}`;
}

function reconciliationText(r: Reconciliation, runFinished: boolean, audit: TokenAudit, runDir: string): string {
  const lines: string[] = [];
  const files = [
    ["results.csv", r.results_csv],
    ["summary.json", r.summary_json],
  ] as const;
  for (const [file, state] of files) if (state === "missing") lines.push(`${file}: not written yet (the run is still going, or stopped before writing it): not checked`);
  lines.push(...r.mismatches.map(mismatchLine));
  const checked = files.filter(([, state]) => state === "checked").map(([file]) => file);
  if (r.mismatches.length > 0) {
    if (!runFinished) lines.push("note: the run has not finished (going, interrupted or crashed): its files may lag the log");
    lines.push(`not reconciled: ${r.mismatches.length} mismatch(es) between the event log and the files (the log is the source of truth; '${cliCommand(`replay ${shellWord(runDir)}`)}' rebuilds the files)`);
  } else if (checked.length === 0) lines.push("not reconciled: no results.csv or summary.json to check");
  else {
    const files = checked.length === 2 ? ", results.csv and summary.json agree" : ` and ${checked[0]} agree`;
    const cutOff = audit.totals.calls.aborted + audit.totals.calls.lost;
    // The files can only agree on what the log knows: calls cut off without a bill are not reconciled.
    if (cutOff === 0) lines.push(`reconciled: events${files}`);
    else lines.push(`known tokens only: events${files} on the billed tokens; not known: what ${cutOff} aborted or lost call(s) were billed (see lost_at_most)`);
  }
  return lines.join("\n");
}

export async function execute(args: ParsedArgs): Promise<number> {
  const runDir = args.positional!;
  const by = (args.flags.by ?? "job") as AuditGrouping;
  const { audit, reconciliation, finished } = withRunLog("tokens", runDir, ({ events, peek }) => ({
    audit: tokenAudit(events, by),
    reconciliation: reconcile(events, { resultsCsv: readResultsCsv(runDir), summaryJson: readSummaryJson(runDir) }),
    finished: peek.finished,
  }));
  const ok = reconciliation.mismatches.length === 0;
  if (args.flags.json === true) {
    const everyTokenKnown = audit.totals.calls.aborted + audit.totals.calls.lost === 0;
    process.stdout.write(`${JSON.stringify({ run_dir: runDir, run_finished: finished, ...audit, reconciliation: { ...reconciliation, reconciled: ok, every_token_known: everyTokenKnown } }, null, 2)}\n`);
  } else {
    process.stdout.write(`${auditText(audit)}\n\n${reconciliationText(reconciliation, finished, audit, runDir)}\n`);
  }
  return ok ? 0 : 1;
}
