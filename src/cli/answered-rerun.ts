/**
 * A re-run with nothing to do, answered on the CLI's main thread before the job thread starts and
 * before any of the run verb's code loads: what an identical invocation printed last time, when
 * nothing it depends on changed since.
 *
 * When the run verb answers a re-run from the finished run's record (engine/nothing-to-do.ts: the
 * config parsed, the matrix planned, the log's pages checked), and when a run finishes with a
 * record that would answer it, it saves beside the log (in the run dir's `.rerun-answers/`) what
 * it printed and its exit code, under a key of everything the answer was computed from outside the
 * run dir: the build, the working directory, the arguments, the config file's bytes, the
 * environment and whether the output is a terminal. An invocation with the same key is answered
 * from that transcript when the run dir is as it was:
 *
 * * the log file is the same file, untouched: its device, inode, size, modification and change
 *   times to the nanosecond, with no WAL frames and no rollback journal. Any write to it (a writer
 *   taking the lock, appending, a replay, SQL from another tool) changes its size or times, and the
 *   change time cannot be set back; so the log still ends with the record, no writer holds it, and
 *   its pages are the ones SQLite's `quick_check` found sound when the answer was saved;
 * * each file the record vouches for (the run-level reports and the run's mirror) has its size and
 *   time as then;
 * * the machine did not reboot since (files written and not synced may have been lost).
 *
 * When the log was written since (a `replay` rewrites it and appends nothing), the answer is
 * checked again from the log, read-only, as the record's own answer checks it but for the plan:
 * the record at the log's end gives the same answer (plan digest, statuses, closing block), the log
 * lost no event, its last invocation finished, its projections are level with it, no live process
 * writes it, the files are as the record left them, and `quick_check` passes. The plan is the same
 * as when the answer was saved, as the key is. The answer is then saved again under the log as it
 * is, so the next re-run needs only the stats. A `replay` does this check itself once it is done
 * (`refreshSavedAnswers`): what it costs (every page read) is small beside a replay, and the re-run
 * after it is answered from the stats alone.
 *
 * The plan is a function of the key's parts but for the task suites' own files and modules: an
 * answer is saved only for a matrix whose tasks are all in suites that are part of the build
 * (`internal`, `trace_examples`), with no task modules of the user's (TRACE_BENCH_TASK_MODULES)
 * and no `--root`. Anything else, or any doubt, leaves it to the run verb, which decides as before.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { codeIdentity } from "../engine/code-identity.js";
import { RERUN_ANSWERS_DIR } from "../events/run-dir-answers.js";
import { bootId } from "../fs/boot-id.js";
import { sqliteAddonPath } from "../events/sqlite-addon.js";

const FORMAT = 2;
/** Saved answers kept per run dir (one per distinct invocation): the oldest go when there are more. */
const MAX_SAVED_ANSWERS = 16;
const EVENTS_DB = "events.db";
/** The suites whose tasks are the build's code: their plan reads no file of the user's. */
const BUILT_IN_SUITES: ReadonlySet<string> = new Set(["internal", "trace_examples"]);
/** A config larger than this is not read here (the run verb refuses what is too big). */
const MAX_CONFIG_BYTES = 16 * 2 ** 20;
/** Variables whose values are secrets: only whether they are set enters the key. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PAT$/i;
/** A test hook: the answer says on stderr that it came from here. Not part of the key. */
const NOTE_VARIABLE = "TRACE_BENCH_TEST_NOTE_ANSWERED_RERUN";
/**
 * Left out of the key: the hook, and what a shell keeps of itself, which nothing in trace-bench or
 * Node reads (the working directory is in the key as the process has it): a nested shell or a
 * `cd` elsewhere and back would otherwise miss the answer.
 */
const NOT_KEYED: ReadonlySet<string> = new Set([NOTE_VARIABLE, "SHLVL", "OLDPWD", "PWD", "_"]);
export const ANSWERED_NOTE = "(answered on the main thread)";

export type OutputStream = "stdout" | "stderr";

interface SavedAnswer {
  readonly format: number;
  readonly key: string;
  /** The plan's run dir, absolute. */
  readonly runDir: string;
  readonly log: string;
  readonly files: Readonly<Record<string, readonly [number, number]>>;
  /** `answerOfRecord` of the record it was made from (finished-run-facts.ts). */
  readonly record: string;
  readonly boot: string;
  readonly writes: readonly (readonly [OutputStream, string])[];
  readonly exitCode: number;
}

/** The value of `--name` in `argv` (`--name V` or `--name=V`), the last one given. */
function flagValue(argv: readonly string[], names: readonly string[]): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, i) => {
    for (const name of names) {
      if (arg === `--${name}`) value = argv[i + 1];
      else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
    }
  });
  return value;
}

/** A top-level `key: value` of a YAML config, read by eye (only to find where a run dir may be: the answer checks it). */
function topLevelValue(text: string, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const match = new RegExp(`^${key}:[ \\t]*([^#\\n]*?)[ \\t]*(?:#.*)?$`, "m").exec(text);
    if (match?.[1]) return match[1].replace(/^(['"])(.*)\1$/, "$2");
  }
  return undefined;
}

/** The environment as the key holds it: every name, and each value but a secret's (only whether it is set). */
function environmentPart(env: NodeJS.ProcessEnv): string {
  const names = Object.keys(env).filter((name) => !NOT_KEYED.has(name)).sort();
  return JSON.stringify(names.map((name) => [name, SECRET_NAME.test(name) ? (env[name] === "" ? "" : "set") : env[name]]));
}

/** What the output looks like where it goes (colour and width follow it). */
const streamPart = (stream: NodeJS.WriteStream) => [stream.isTTY === true, stream.columns ?? null];

/** The key of an invocation of `run` with `argv` (after the verb) whose config holds `configBytes`. */
function inputKey(argv: readonly string[], configBytes: Buffer, env: NodeJS.ProcessEnv): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify([FORMAT, codeIdentity(), process.cwd(), argv, streamPart(process.stdout), streamPart(process.stderr)]));
  hash.update("\n");
  hash.update(environmentPart(env));
  hash.update("\n");
  hash.update(configBytes);
  return hash.digest("hex");
}

/** The config file's bytes, if it is a regular file of a config's size. */
function configBytes(path: string): Buffer | null {
  try {
    const stat = statSync(path);
    if (!stat.isFile() || stat.size > MAX_CONFIG_BYTES) return null;
    return readFileSync(path);
  } catch {
    return null;
  }
}

/**
 * The log file's identity and state: the same string only for the same file untouched since
 * (see the file's comment); null when it has WAL frames or a journal, or is missing.
 */
export function logStamp(runDir: string): string | null {
  const path = join(runDir, EVENTS_DB);
  try {
    const wal = statSync(`${path}-wal`, { throwIfNoEntry: false });
    if (wal !== undefined && wal.size > 0) return null;
    if (statSync(`${path}-journal`, { throwIfNoEntry: false }) !== undefined) return null;
    const db = statSync(path, { bigint: true });
    if (!db.isFile()) return null;
    return [db.dev, db.ino, db.size, db.mtimeNs, db.ctimeNs].join(":");
  } catch {
    return null;
  }
}

function sameFiles(runDir: string, files: Readonly<Record<string, readonly [number, number]>>): boolean {
  return Object.entries(files).every(([name, [size, mtimeMs]]) => {
    const stat = statSync(join(runDir, name), { throwIfNoEntry: false });
    return stat !== undefined && stat.isFile() && stat.size === size && stat.mtimeMs === mtimeMs;
  });
}

const answerPath = (runDir: string, key: string) => join(runDir, RERUN_ANSWERS_DIR, `answered-rerun-${key.slice(0, 32)}.json`);

/** Where `run` with `argv` (after the verb) would find its saved answer, and the key; null when it cannot tell cheaply. */
function locate(argv: readonly string[], env: NodeJS.ProcessEnv): { readonly runDir: string; readonly key: string } | null {
  if (argv.some((arg) => arg === "-h" || arg === "--help" || arg === "--inspect" || arg.startsWith("--inspect="))) return null;
  const config = flagValue(argv, ["config"]);
  if (config === undefined) return null;
  const bytes = configBytes(config);
  if (bytes === null) return null;
  const text = bytes.toString("utf8");
  const runId = flagValue(argv, ["run-id"]) ?? topLevelValue(text, ["run_id"]);
  if (runId === undefined || runId === "") return null;
  const runsDir = flagValue(argv, ["runs-dir", "output-dir"]) ?? topLevelValue(text, ["runs_dir", "runs_root"]) ?? "runs";
  return { runDir: resolve(runsDir, runId), key: inputKey(argv, bytes, env) };
}

/**
 * The saved answer to `run` with `argv` (after the verb), printed, and its exit code; null when
 * there is none that holds (the run verb then decides).
 */
export async function answerSavedRerun(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number | null> {
  try {
    const where = locate(argv, env);
    if (where === null) return null;
    let saved: SavedAnswer;
    try {
      saved = JSON.parse(readFileSync(answerPath(where.runDir, where.key), "utf8")) as SavedAnswer;
    } catch {
      return null;
    }
    const boot = bootId();
    if (saved.format !== FORMAT || saved.key !== where.key || saved.runDir !== where.runDir) return null;
    if (boot === "" || saved.boot !== boot) return null;
    const log = logStamp(where.runDir);
    if (saved.log === null || log !== saved.log || !sameFiles(where.runDir, saved.files)) {
      // Written since (a replay): answered only when the log still vouches for the same answer.
      const files = await recordStillAnswers(where.runDir, saved.record);
      if (files === null) return null;
      if (log !== null && logStamp(where.runDir) === log && sameFiles(where.runDir, files)) writeAnswer({ ...saved, log, files });
    }
    for (const [stream, text] of saved.writes) process[stream].write(text);
    if (env[NOTE_VARIABLE] !== undefined) process.stderr.write(`${ANSWERED_NOTE}\n`);
    return saved.exitCode;
  } catch {
    return null;
  }
}

/**
 * The files the record at the end of `runDir`'s log vouches for, when the log and the files still
 * vouch for it and it gives the answer `answer` (see the file's comment); null otherwise.
 */
async function recordStillAnswers(runDir: string, answer: string): Promise<Readonly<Record<string, readonly [number, number]>> | null> {
  const vouched = await vouchedRecord(runDir, new Set([answer]));
  return vouched?.files ?? null;
}

/**
 * The answer (`answerOfRecord`) of the record at the end of `runDir`'s log and the files it
 * vouches for, when it is one of `answers` and the log and the files still vouch for it (see the
 * file's comment); null otherwise. The log is opened read-only; its code is loaded only here (most
 * answers need none of it).
 */
async function vouchedRecord(runDir: string, answers: ReadonlySet<string>): Promise<{ readonly answer: string; readonly files: Readonly<Record<string, readonly [number, number]>> } | null> {
  const facts = await import("../events/finished-run-facts.js");
  const { LOG_PAGE_CACHE_KIB } = await import("../events/log-checks.js");
  const Database = (await import("better-sqlite3")).default;
  let db: InstanceType<typeof Database>;
  try {
    db = new Database(join(runDir, EVENTS_DB), { readonly: true, fileMustExist: true, nativeBinding: sqliteAddonPath() });
  } catch {
    return null;
  }
  try {
    db.pragma("busy_timeout = 5000");
    // The page cache every log connection keeps: the check reads each page once, and a larger
    // cache would only raise a replay's peak (docs/performance.md: ledger, 21eb092).
    db.pragma(`cache_size = -${LOG_PAGE_CACHE_KIB}`);
    const found = facts.finishedRunFacts(db, codeIdentity());
    if (found === null || facts.logRefusesRecord(found) !== null) return null;
    const answer = facts.answerOfRecord(found.record);
    if (!answers.has(answer) || !facts.filesAsRecorded(runDir, found.record)) return null;
    // Last, as it reads every page.
    return facts.pagesAreSound(db) ? { answer, files: found.record.files } : null;
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/**
 * After a `replay` of `runDir` (which rewrote the log and appended nothing), its saved answers
 * checked against the log as the next re-run would check them (`answerSavedRerun`) and saved again
 * under the log as the replay left it: the next re-run then needs only the stats. The check is the
 * re-run's, between the same two stamps of the log, so it vouches for no more than the re-run's
 * would; it is only done once, here, where its cost (it reads every page) is small beside the
 * replay's. Returns how many answers were saved again; a failure to check or save is no failure of
 * the replay (the next re-run checks for itself).
 */
export async function refreshSavedAnswers(runDir: string): Promise<number> {
  try {
    const dir = resolve(runDir);
    const folder = join(dir, RERUN_ANSWERS_DIR);
    const names = readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isFile() && /^answered-rerun-[0-9a-f]{32}\.json$/.test(entry.name));
    const boot = bootId();
    if (names.length === 0 || boot === "") return 0;
    const saved: SavedAnswer[] = [];
    for (const { name } of names) {
      try {
        const answer = JSON.parse(readFileSync(join(folder, name), "utf8")) as SavedAnswer;
        if (answer.format === FORMAT && answer.runDir === dir && answer.boot === boot && answerPath(dir, answer.key) === join(folder, name)) saved.push(answer);
      } catch {
        // Unreadable: the re-run that finds it decides for itself.
      }
    }
    if (saved.length === 0) return 0;
    const log = logStamp(dir);
    if (log === null) return 0;
    const vouched = await vouchedRecord(dir, new Set(saved.map((answer) => answer.record)));
    // Nothing wrote the log or the files while they were checked.
    if (vouched === null || logStamp(dir) !== log || !sameFiles(dir, vouched.files)) return 0;
    const refreshed = saved.filter((answer) => answer.record === vouched.answer);
    for (const answer of refreshed) writeAnswer({ ...answer, log, files: vouched.files });
    return refreshed.length;
  } catch {
    return 0;
  }
}

/** Writes `saved` where its key finds it, and keeps the run dir's saved answers to the newest few. */
function writeAnswer(saved: SavedAnswer): void {
  const path = answerPath(saved.runDir, saved.key);
  const folder = join(saved.runDir, RERUN_ANSWERS_DIR);
  mkdirSync(folder, { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(saved));
  renameSync(temp, path);
  const names = readdirSync(folder).filter((name) => name.startsWith("answered-rerun-") && name.endsWith(".json"));
  if (names.length <= MAX_SAVED_ANSWERS) return;
  const byAge = names.map((name) => ({ name, mtimeMs: statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 })).sort((a, b) => a.mtimeMs - b.mtimeMs);
  for (const { name } of byAge.slice(0, names.length - MAX_SAVED_ANSWERS)) rmSync(join(folder, name), { force: true });
}

/** What this process printed while `recording`. */
export class OutputTranscript {
  readonly writes: [OutputStream, string][] = [];
  private readonly restore: (() => void)[] = [];

  constructor() {
    for (const name of ["stdout", "stderr"] as const) {
      const stream = process[name];
      const write = stream.write;
      const writes = this.writes;
      stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
        writes.push([name, typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8")]);
        return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
      } as typeof stream.write;
      this.restore.push(() => {
        stream.write = write;
      });
    }
  }

  stop(): void {
    for (const undo of this.restore.splice(0)) undo();
  }
}

/** The arguments after the verb of the invocation this thread runs (main.ts notes them: the key is made of them). */
let invocation: readonly string[] | null = null;

export function noteInvocation(argv: readonly string[]): void {
  invocation = argv;
}

/** What the run verb knows when it answered a re-run from the record. */
export interface AnsweredRerun {
  readonly runDir: string;
  /** `logStamp` taken before the record was read, and the files it vouches for as they were then. */
  readonly logBefore: string | null;
  readonly files: Readonly<Record<string, readonly [number, number]>> | null;
  /** `answerOfRecord` of the record the answer came from. */
  readonly record: string;
  readonly suites: ReadonlySet<string>;
  /** What it printed, in order, and the exit code it gave. */
  readonly writes: readonly (readonly [OutputStream, string])[];
  readonly exitCode: number;
}

/**
 * Saves the answer the run verb gave, for the next identical invocation (`answerSavedRerun`),
 * when it can be trusted as the file's comment says; a failure to save is no failure of the run.
 */
export function saveAnsweredRerun(answer: AnsweredRerun, env: NodeJS.ProcessEnv = process.env): void {
  try {
    const { logBefore, files } = answer;
    const argv = invocation;
    const runDir = resolve(answer.runDir);
    if (argv === null || logBefore === null || files === null || (env.TRACE_BENCH_TASK_MODULES ?? "") !== "") return;
    if ([...answer.suites].some((suite) => !BUILT_IN_SUITES.has(suite))) return;
    if (flagValue(argv, ["root"]) !== undefined) return;
    const where = locate(argv, env);
    if (where === null || where.runDir !== runDir) return;
    // Nothing wrote the log while the answer was made (a writer that started meanwhile changed it).
    if (logStamp(runDir) !== logBefore || !sameFiles(runDir, files)) return;
    const boot = bootId();
    if (boot === "") return;
    writeAnswer({ format: FORMAT, key: where.key, runDir, log: logBefore, files, record: answer.record, boot, writes: answer.writes, exitCode: answer.exitCode });
  } catch {
    // A read-only run dir, a full disk: the next re-run decides as this one did.
  }
}
