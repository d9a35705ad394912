/**
 * `fn` inside `BEGIN IMMEDIATE … COMMIT` (rolled back if it throws): the write lock is waited for up
 * front. A deferred transaction reading first fails at once ("database is locked", no busy wait)
 * when a live run commits meanwhile, and a second `run` or `replay` then crashed instead of naming
 * the lock's holder. better-sqlite3's `db.transaction(fn).immediate` does the same, but its first
 * use on a connection prepares the statements of every kind of transaction and savepoint (nine),
 * a cost to every command that opens a log (docs/performance.md: ledger, 230ec48).
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
