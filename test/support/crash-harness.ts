/**
 * Helpers for the crash-safety end-to-end test: the built CLI as an asynchronous child process
 * (so the test can watch the run's SQLite log while it runs and SIGKILL it), read-only looks at
 * the event log, the jsonl mirror format, and whole-directory snapshots.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { CLI } from "./cli.js";

export interface CrashCliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CrashCliOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Wall-clock limit; past it the child is SIGKILLed and the call rejects. */
  readonly timeoutMs: number;
  /**
   * Called about every `pollMs` while the child runs; returning true SIGKILLs the child (once).
   * An exception thrown by it is kept and reported if the limit is reached.
   */
  readonly killWhen?: () => boolean;
  readonly pollMs?: number;
  /** Node's own flags, before the CLI's path (e.g. `--import` of a module hook). */
  readonly nodeArgs?: readonly string[];
}

export interface CrashCliResult extends CrashCliRun {
  /** Whether `killWhen` asked for the kill (and the child was sent SIGKILL). */
  readonly killedByTest: boolean;
}

export function describeRun(what: string, run: CrashCliRun): string {
  return `${what}: exit code ${String(run.code)}, signal ${String(run.signal)}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
}

/** Runs `node bin/trace-bench.js ...args` without blocking the test's event loop. */
export function runCliAsync(args: readonly string[], options: CrashCliOptions): Promise<CrashCliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let killedByTest = false;
    let timedOut = false;
    let lastPollError = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));

    const poller =
      options.killWhen === undefined
        ? null
        : setInterval(() => {
            if (killedByTest) return;
            try {
              if (options.killWhen!()) {
                killedByTest = true;
                child.kill("SIGKILL");
              }
            } catch (error) {
              lastPollError = error instanceof Error ? error.message : String(error);
            }
          }, options.pollMs ?? 10);
    const deadline = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);

    const finish = () => {
      if (poller !== null) clearInterval(poller);
      clearTimeout(deadline);
    };
    child.on("error", (error) => {
      finish();
      reject(error);
    });
    child.on("close", (code, signal) => {
      finish();
      const run = { code, signal, stdout, stderr };
      if (timedOut) {
        const poll = lastPollError === "" ? "" : ` (last poll error: ${lastPollError})`;
        reject(new Error(describeRun(`trace-bench ${args.join(" ")} did not end within ${options.timeoutMs} ms${poll}`, run)));
        return;
      }
      resolve({ ...run, killedByTest });
    });
  });
}

export interface EventRow {
  readonly seq: number;
  readonly v: number;
  readonly stream: string;
  readonly position: number;
  readonly type: string;
  readonly run_id: string;
  readonly job_id: string | null;
  readonly ts: string;
  /** The JSON text exactly as stored. */
  readonly data: string;
}

/** Every committed event of a run directory, in seq order (read-only connection). */
export function readEvents(runDir: string): EventRow[] {
  const db = new Database(join(runDir, "events.db"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT seq, v, stream, position, type, run_id, job_id, ts, data FROM events ORDER BY seq").all() as EventRow[];
  } finally {
    db.close();
  }
}

/**
 * How many JobFinished events are committed, or null while the log is not readable yet (no file,
 * no table, WAL files not created yet): a poll for the kill-after-N scenarios.
 */
export function committedJobFinished(runDir: string): number | null {
  const path = join(runDir, "events.db");
  if (!existsSync(path)) return null;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    return (db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'JobFinished'").get() as { n: number }).n;
  } catch (error) {
    if (/no such table|unable to open|SQLITE_CANTOPEN|SQLITE_BUSY|database is locked/i.test(String(error))) return null;
    throw error;
  } finally {
    db?.close();
  }
}

/** A row as a jsonl mirror line (the format of `mirrorLine` in src/events/log-database.ts). */
export function mirrorLine(row: EventRow): string {
  return `{"seq":${row.seq},"v":${row.v},"stream":${JSON.stringify(row.stream)},"position":${row.position},"type":${JSON.stringify(row.type)},"run_id":${JSON.stringify(row.run_id)},"job_id":${JSON.stringify(row.job_id)},"ts":${JSON.stringify(row.ts)},"data":${row.data}}\n`;
}

export function mirrorText(rows: readonly EventRow[]): string {
  return rows.map(mirrorLine).join("");
}

/** Seq of the last complete line of a mirror (0 when the file is missing or empty). */
export function lastMirrorSeq(path: string): number {
  if (!existsSync(path)) return 0;
  const lines = readFileSync(path, "utf8").split("\n").slice(0, -1);
  const last = lines.at(-1);
  if (last === undefined) return 0;
  const match = /^\{"seq":(\d+),/.exec(last);
  if (match === null) throw new Error(`${path}: last line is not a mirror line: ${last}`);
  return Number(match[1]);
}

/**
 * Every entry under `root`, keyed by its path relative to root with `/` separators: a file's
 * bytes, or null for a directory.
 */
export function snapshotTree(root: string, keep: (relPath: string, isDir: boolean) => boolean = () => true): Map<string, Buffer | null> {
  const out = new Map<string, Buffer | null>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!keep(rel, true)) continue;
        out.set(`${rel}/`, null);
        walk(full, rel);
      } else if (keep(rel, false)) {
        out.set(rel, readFileSync(full));
      }
    }
  };
  walk(root, "");
  return out;
}

/**
 * A CSV file (Python csv dialect: `\r\n` records, `"` quoting) as records of raw cells: quotes
 * are kept, so `records.map(r => r.join(",") + "\r\n").join("")` gives the text back exactly.
 * Throws when the text does not end with a complete `\r\n` record.
 */
export function csvRawRecords(text: string): string[][] {
  const records: string[][] = [];
  let cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      cell += ch;
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      }
    } else if (ch === '"') {
      quoted = true;
      cell += ch;
    } else if (ch === ",") {
      cells.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      cells.push(cell);
      records.push(cells);
      cells = [];
      cell = "";
      i++;
    } else if (ch === "\n") {
      throw new Error(`CSV has a bare \\n line end at offset ${i}`);
    } else {
      cell += ch;
    }
  }
  if (quoted || cell !== "" || cells.length > 0) throw new Error("CSV does not end with a complete \\r\\n record");
  return records;
}

/** A raw CSV cell's value. */
export function csvValue(raw: string): string {
  return raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw;
}
