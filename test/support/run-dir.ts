/** Reading a run directory in tests: its events (straight from SQLite), rows and files. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import Database from "better-sqlite3";
import { REPO_ROOT } from "./cli.js";

export const FIXTURE_SUITE = join(REPO_ROOT, "test", "fixtures", "suites", "fixture-suite.mjs");
export const FIXTURE_ENV = { TRACE_BENCH_TASK_MODULES: FIXTURE_SUITE };

export interface EventRow {
  seq: number;
  type: string;
  job_id: string | null;
  data: Record<string, unknown>;
}

export function eventsOf(runDir: string): EventRow[] {
  const db = new Database(join(runDir, "events.db"), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT seq, type, job_id, data FROM events ORDER BY seq").all() as { seq: number; type: string; job_id: string | null; data: string }[]).map(
      (r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }),
    );
  } finally {
    db.close();
  }
}

/** results.csv as objects (simple split: the tests' rows have no embedded commas in the columns read). */
export function csvRows(path: string): Record<string, string>[] {
  const [header, ...rows] = readFileSync(path, "utf8").split("\r\n").filter(Boolean);
  const columns = header!.split(",");
  return rows.map((line) => {
    const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, "").replace(/^"|"$/g, "").replace(/""/g, '"'));
    return Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? ""]));
  });
}

/**
 * Every file under a directory, relative path → content, but the SQLite log itself (its bytes
 * change with checkpoints and the projection position; compare its events with `eventsOf`) and
 * the writer's `.tmp/` folder (temp files that every writer and replay empty) and the answers
 * saved for re-runs (`.rerun-answers/`, a cache checked against the log: cli/answered-rerun.ts).
 */
export function filesUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (name === "events.db" || name.startsWith("events.db-")) continue;
      if (name === ".tmp" || name === ".rerun-answers") continue;
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.set(relative(dir, full), readFileSync(full, "utf8"));
    }
  };
  walk(dir);
  return out;
}

export function singleRunDir(runsDir: string): string {
  const runs = readdirSync(runsDir).filter((n) => statSync(join(runsDir, n)).isDirectory());
  if (runs.length !== 1) throw new Error(`expected one run in ${runsDir}, found ${runs.join(", ")}`);
  return join(runsDir, runs[0]!);
}
