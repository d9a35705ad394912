/**
 * `fn` inside `BEGIN IMMEDIATE … COMMIT` (rolled back if it throws): the write lock is waited for up
 * front. better-sqlite3's `db.transaction` does the same, but its first use on a connection
 * prepares the statements of every kind of transaction and savepoint (nine), about 0.2 ms of each
 * command that opens a log, for the one transaction taking the writer lock.
 */
import type Database from "better-sqlite3";

export function immediateTransaction<T>(db: Database.Database, fn: () => T): T {
  // Nested: a savepoint, as better-sqlite3 makes it.
  if (db.inTransaction) return db.transaction(fn)();
  db.prepare("BEGIN IMMEDIATE").run();
  try {
    const result = fn();
    db.prepare("COMMIT").run();
    return result;
  } catch (error) {
    if (db.inTransaction) db.prepare("ROLLBACK").run();
    throw error;
  }
}
