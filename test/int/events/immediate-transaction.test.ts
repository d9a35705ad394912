/** `immediateTransaction` on a real SQLite file: commits, rolls back on a throw, nests as a savepoint, and holds the write lock from its start. */
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { immediateTransaction } from "../../../src/events/immediate-transaction.js";
import { tempDir } from "../../support/cli.js";

function database(): { db: Database.Database; path: string } {
  const path = join(tempDir(), "t.db");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (x INTEGER)");
  return { db, path };
}
const rows = (db: Database.Database) => db.prepare("SELECT x FROM t ORDER BY x").pluck().all();

describe("immediateTransaction", () => {
  it("commits what its function wrote and returns its result", () => {
    const { db } = database();
    expect(immediateTransaction(db, () => db.prepare("INSERT INTO t VALUES (1)").run().changes)).toBe(1);
    expect(db.inTransaction).toBe(false);
    expect(rows(db)).toEqual([1]);
  });

  it("rolls everything back when its function throws, and rethrows", () => {
    const { db } = database();
    const failing = () =>
      immediateTransaction(db, () => {
        db.prepare("INSERT INTO t VALUES (2)").run();
        throw new Error("refused");
      });
    expect(failing).toThrow("refused");
    expect(db.inTransaction).toBe(false);
    expect(rows(db)).toEqual([]);
  });

  it("inside another transaction is a savepoint: its failure undoes only its own writes", () => {
    const { db } = database();
    immediateTransaction(db, () => {
      db.prepare("INSERT INTO t VALUES (1)").run();
      expect(() =>
        immediateTransaction(db, () => {
          db.prepare("INSERT INTO t VALUES (2)").run();
          throw new Error("inner");
        }),
      ).toThrow("inner");
      expect(db.inTransaction).toBe(true);
    });
    expect(rows(db)).toEqual([1]);
  });

  it("takes the write lock at its start: another connection cannot begin writing meanwhile", () => {
    const { db, path } = database();
    const other = new Database(path);
    other.pragma("busy_timeout = 0");
    try {
      immediateTransaction(db, () => {
        expect(() => other.prepare("BEGIN IMMEDIATE").run()).toThrow(/database is locked/);
      });
      other.prepare("BEGIN IMMEDIATE").run();
      other.prepare("COMMIT").run();
    } finally {
      other.close();
    }
  });
});
