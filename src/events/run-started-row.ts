/**
 * A `RunStarted` row decoded a matrix entry at a time. A start holds the whole matrix (megabytes
 * of JSON on a big run): read as one string and parsed whole, it was that string plus nine
 * objects and a few strings per job alive at once, the peak of `replay --verify` and `replay` on a
 * big run. Here SQLite hands over the payload without its matrix, then the matrix's entries one
 * by one, each made to share its repeated parts (kwargs, names) with the entries before it as it
 * is parsed, so the decoded matrix is one small object per job (docs/performance.md, row 12).
 */
import type Database from "better-sqlite3";
import { decodeEvent, type JobSpecRecord, type StoredEvent } from "./event-schema.js";
import type { EventRow } from "./log-database.js";
import { SharedValues } from "./shared-values.js";
import { sharedSpec } from "./views/run-header-projection.js";

/** The row's columns but its payload (a start's is read by `decodeRunStartedRow`). */
export type RowWithoutPayload = Omit<EventRow, "data"> & { readonly data: string | null };

/**
 * The `RunStarted` row `row` (its payload left out) decoded from `source` in `db`. A payload that
 * is not a JSON object is read whole and decoded as any row is (which says what is wrong with it).
 */
export function decodeRunStartedRow(db: Database.Database, source: string, row: RowWithoutPayload, decodeWhole: (row: EventRow) => StoredEvent): StoredEvent {
  // One statement for the check and the header: SQLite parses the payload once for both.
  const header = db
    .prepare(`SELECT CASE WHEN json_valid(d) AND json_type(d) = 'object' AND json_type(d, '$.matrix') = 'array' THEN json_remove(d, '$.matrix') END FROM (SELECT data AS d FROM ${source} WHERE seq = ?)`)
    .pluck()
    .get(row.seq) as string | null;
  if (header === null) return decodeWhole({ ...row, data: db.prepare(`SELECT data FROM ${source} WHERE seq = ?`).pluck().get(row.seq) as string });
  const fields = JSON.parse(header) as Record<string, unknown>;
  const payload = `(SELECT data FROM ${source} WHERE seq = ?)`;
  const shared = new SharedValues();
  const matrix: JobSpecRecord[] = [];
  for (const entry of db.prepare(`SELECT value FROM json_each(${payload}, '$.matrix')`).pluck().iterate(row.seq) as IterableIterator<string>) {
    const spec = JSON.parse(entry) as JobSpecRecord;
    // An entry that is not a spec is left as it is, for the payload's check to name.
    matrix.push(isSpecLike(spec) ? sharedSpec(shared, spec) : spec);
  }
  // The payload's keys in their stored order, the matrix where it was.
  const data: Record<string, unknown> = {};
  for (const key of db.prepare(`SELECT key FROM json_each(${payload})`).pluck().iterate(row.seq) as IterableIterator<string>) data[key] = key === "matrix" ? matrix : fields[key];
  return decodeEvent({ seq: row.seq, v: row.v, stream: row.stream, position: row.position, type: row.type, run_id: row.run_id, job_id: row.job_id, ts: row.ts, data });
}

const SPEC_KEYS: ReadonlySet<string> = new Set(["job_id", "task_id", "suite", "trainer_id", "seed", "llm_model", "raw_params", "resolved_kwargs"]);

/**
 * An entry with a spec's keys and no others, which `sharedSpec` copies whole; any other (an older
 * or damaged log) is left as parsed, for the payload's decoder to upgrade or name.
 */
function isSpecLike(value: unknown): value is JobSpecRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === ("llm_model" in value ? 8 : 7) && keys.every((key) => SPEC_KEYS.has(key));
}
