/**
 * A `RunStarted` row decoded a matrix entry at a time (`decodeRunStartedRow`) is the event a whole
 * parse of its payload decodes: the same fields in the same order, the matrix's entries equal and
 * sharing their repeated kwargs; a payload that is not an object with a matrix is decoded whole
 * (so its error is the one any row gets).
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EventReader } from "../../../src/events/event-reader.js";
import { EventStore, decodeRow } from "../../../src/events/event-store.js";
import { EVENTS_DB, ROW_COLUMNS, type EventRow } from "../../../src/events/log-database.js";
import { decodeRunStartedRow } from "../../../src/events/run-started-row.js";
import { tempDir } from "../../support/cli.js";
import { appendEvents, finishedJob, RUN_ID, runStarted } from "../../support/events.js";

function logWithStart(jobs: readonly string[]): string {
  const dir = tempDir();
  const store = EventStore.open(dir, RUN_ID, { command: "test" });
  appendEvents(store, [runStarted(jobs), ...finishedJob(jobs[0]!)]);
  store.close();
  return dir;
}

const wholeStart = (db: Database.Database) => decodeRow(db.prepare(`SELECT ${ROW_COLUMNS} FROM events WHERE type = 'RunStarted'`).get() as EventRow);

describe("decodeRunStartedRow", () => {
  it("decodes the start a whole parse decodes, fields in their stored order, the matrix's kwargs shared", () => {
    const dir = logWithStart(["a", "b", "c", "d", "e"]);
    const db = new Database(join(dir, EVENTS_DB), { readonly: true });
    try {
      const whole = wholeStart(db);
      const row = db.prepare(`SELECT seq, v, stream, position, type, run_id, job_id, ts, NULL AS data FROM events WHERE type = 'RunStarted'`).get() as EventRow;
      const streamed = decodeRunStartedRow(db, "events", row, decodeRow);
      expect(streamed).toEqual(whole);
      expect(Object.keys(streamed.data)).toEqual(Object.keys(whole.data));
      expect(JSON.stringify(streamed)).toBe(JSON.stringify(whole));
      const matrix = (streamed.data as unknown as { matrix: { task_id: string; resolved_kwargs: object }[] }).matrix;
      // Entries 0, 2 and 4 are one task's: one kwargs object among them (parsed whole, each its own).
      expect(matrix[2]!.resolved_kwargs).toBe(matrix[0]!.resolved_kwargs);
      expect(matrix[4]!.resolved_kwargs).toBe(matrix[0]!.resolved_kwargs);
    } finally {
      db.close();
    }
  });

  it("decodes a payload that is not an object with a matrix whole, so its error is any row's", () => {
    const dir = logWithStart(["a"]);
    const db = new Database(join(dir, EVENTS_DB));
    try {
      const row = db.prepare(`SELECT seq, v, stream, position, type, run_id, job_id, ts, NULL AS data FROM events WHERE type = 'RunStarted'`).get() as EventRow;
      for (const payload of ["not json", "[1, 2]", '{"matrix": 3}']) {
        db.prepare("UPDATE events SET data = ? WHERE seq = ?").run(payload, row.seq);
        const expected = (() => {
          try {
            return wholeStart(db);
          } catch (error) {
            return (error as Error).message;
          }
        })();
        expect(typeof expected).toBe("string");
        expect(() => decodeRunStartedRow(db, "events", row, decodeRow)).toThrow(expected as string);
      }
    } finally {
      db.close();
    }
  });

  it("is what `replay --verify`'s scan and `replay`'s latest start read", () => {
    const dir = logWithStart(["a", "b"]);
    const db = new Database(join(dir, EVENTS_DB), { readonly: true });
    const whole = wholeStart(db);
    db.close();
    const reader = EventReader.open(dir);
    let scanned: unknown = null;
    try {
      reader.scanWithStreamEnds((event) => {
        if (event.type === "RunStarted") scanned = event;
      });
    } finally {
      reader.close();
    }
    expect(scanned).toEqual(whole);
    const store = EventStore.openExisting(dir, { command: "test" })!;
    try {
      expect(store.latestRunStarted()).toEqual(whole);
    } finally {
      store.close();
    }
  });
});
