/**
 * Rebuilds a run's lost `events.db` from its mirror `events.jsonl`, which holds every committed
 * event as the log stored it (mirror-writer.ts), the payload byte for byte. Each line must be a
 * line trace-bench writes (its envelope and payload give back the same line), a known event,
 * in seq order, without a hole in any stream; otherwise nothing is written. A last line that no
 * newline ends (a write the loss cut short) is left out and said. The new log appears whole
 * (`createLogFile`): a repair that stops half-way leaves no `events.db`.
 *
 * What the mirror does not hold is lost with the database: the prompt and reply texts of LLM
 * calls (stored once in its content table), the writer's snapshot (rebuilt by the next fold)
 * and the projections' position (0: the next writer or replay rebuilds every report).
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { decodeEvent, EventDecodeError } from "./event-schema.js";
import { LogRepairError } from "./event-log-errors.js";
import { immediateTransaction } from "./immediate-transaction.js";
import { holdsRunMirror } from "./lost-log.js";
import { createLogFile, EVENTS_DB, eventsDbPath, mirrorLine, type EventRow } from "./log-database.js";
import { RUN_MIRROR } from "./mirror-writer.js";
import { forEachLine } from "../fs/line-reader.js";

export interface RebuiltLog {
  readonly events: number;
  readonly jobs: number;
  /** LLM calls whose prompt and reply texts were kept only in the lost database. */
  readonly callsWithoutTexts: number;
  /** The mirror's last line was cut short and left out. */
  readonly droppedTornLine: boolean;
}

/** Where the payload starts in a line trace-bench writes (an envelope has nothing to escape). */
const ENVELOPE = /^[^\\]*?,"data":/;

/** The row a mirror line holds, or why it is not a line trace-bench writes. */
function rowOfLine(line: string): EventRow | string {
  const envelope = ENVELOPE.exec(line);
  if (envelope === null || !line.endsWith("}")) return "not an event line as trace-bench writes them";
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return "not JSON";
  }
  const { seq, v, stream, position, type, run_id, job_id, ts } = parsed;
  if (![seq, v, position].every(Number.isSafeInteger) || ![stream, type, run_id, ts].every((x) => typeof x === "string") || !(job_id === null || typeof job_id === "string")) {
    return "not an event envelope (seq, v, stream, position, type, run_id, job_id, ts, data)";
  }
  const row = { seq, v, stream, position, type, run_id, job_id, ts, data: line.slice(envelope[0].length, -1) } as EventRow;
  // The same bytes again from the row: the payload is stored as the line holds it.
  if (mirrorLine(row) !== `${line}\n`) return "not an event line as trace-bench writes them";
  return row;
}

/** Refuses unless `runDir` lost its log and kept a run's mirror with nothing of the old database beside it. */
function requireRepairable(runDir: string): string {
  const refuse = (problem: string) => new LogRepairError({ runDir, problem });
  if (!existsSync(runDir) || !statSync(runDir).isDirectory()) throw refuse("no such directory; pass a run directory such as runs/<run_id>");
  if (existsSync(eventsDbPath(runDir))) {
    throw refuse(`it has its ${EVENTS_DB}; repair only rebuilds a missing one (if that file is damaged, move it away with its -wal and -shm files, then repair)`);
  }
  for (const leftover of [`${EVENTS_DB}-wal`, `${EVENTS_DB}-shm`, `${EVENTS_DB}-journal`]) {
    // SQLite would take a leftover journal for the new database's own and apply it.
    if (existsSync(join(runDir, leftover))) throw refuse(`${leftover} is left from the lost database; move it away first`);
  }
  const mirror = join(runDir, RUN_MIRROR);
  if (!holdsRunMirror(runDir)) throw refuse(`${mirror} is missing or does not begin with a run's first event; there is nothing to rebuild the log from`);
  return mirror;
}

/** Rebuilds `runDir/events.db` from `runDir/events.jsonl`; throws `LogRepairError` (nothing written) when it cannot. */
export function rebuildLogFromMirror(runDir: string): RebuiltLog {
  const mirror = requireRepairable(runDir);
  let events = 0;
  let callsWithoutTexts = 0;
  let droppedTornLine = false;
  const jobs = new Set<string>();
  const fill = (db: Database.Database) => {
    const insert = db.prepare("INSERT INTO events (seq, v, stream, position, type, run_id, job_id, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const versions = new Map<string, number>();
    let lastSeq = 0;
    immediateTransaction(db, () =>
      forEachLine(mirror, (line, number, complete) => {
        if (!complete) {
          droppedTornLine = true;
          return;
        }
        const refuse = (problem: string) => new LogRepairError({ runDir, problem: `${mirror} line ${number}: ${problem}` });
        const row = rowOfLine(line);
        if (typeof row === "string") throw refuse(row);
        try {
          decodeEvent({ ...row, data: JSON.parse(row.data) });
        } catch (error) {
          if (error instanceof EventDecodeError) throw refuse(error.message);
          throw error;
        }
        if (row.seq <= lastSeq) throw refuse(`seq ${row.seq} after seq ${lastSeq}`);
        const expected = (versions.get(row.stream) ?? 0) + 1;
        if (row.position !== expected) throw refuse(`stream ${row.stream} has no event at position ${expected} (the mirror holds position ${row.position} next): the mirror misses events too`);
        insert.run(row.seq, row.v, row.stream, row.position, row.type, row.run_id, row.job_id, row.ts, row.data);
        versions.set(row.stream, row.position);
        lastSeq = row.seq;
        events += 1;
        if (row.job_id !== null) jobs.add(row.job_id);
        if (row.type === "LlmCallStarted") callsWithoutTexts += 1;
      }),
    );
    if (events === 0) throw new LogRepairError({ runDir, problem: `${mirror} holds no complete event line` });
  };
  if (!createLogFile(runDir, fill)) throw new LogRepairError({ runDir, problem: `another process created ${EVENTS_DB} meanwhile` });
  return { events, jobs: jobs.size, callsWithoutTexts, droppedTornLine };
}
