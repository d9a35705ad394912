/**
 * What a run directory may hold besides what its log produces: nothing. `replay` makes every
 * derived file right in place (a file that differs is replaced atomically, so a reader never finds
 * a report missing) and then removes whatever no derived file accounts for: a stale job's folder,
 * a file someone dropped in. Deleting the whole tree first cost as much as writing it again.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { EVENTS_DB } from "./log-database.js";
import { RUN_MIRROR } from "./mirror-writer.js";
import { JOB_GENERATED, PROJECTION_TEMP_DIR } from "./projection-writer.js";
import { RUN_FILES } from "./projections/run-files.js";
import { RunDirListing } from "./run-dir-listing.js";
import { checkedJobId } from "./safe-id.js";

/** Paths relative to a folder, by folder: the entries it may keep (a folder's own entries are listed under its path). */
function allowedEntries(jobIds: Iterable<string>): Map<string, Set<string>> {
  const allowed = new Map<string, Set<string>>();
  const allow = (path: string) => {
    const slash = path.lastIndexOf("/");
    const folder = slash < 0 ? "" : path.slice(0, slash);
    let entries = allowed.get(folder);
    if (entries === undefined) allowed.set(folder, (entries = new Set()));
    entries.add(path.slice(slash + 1));
    if (folder !== "") allow(folder);
  };
  for (const file of [...Object.values(RUN_FILES), RUN_MIRROR, EVENTS_DB, `${EVENTS_DB}-wal`, `${EVENTS_DB}-shm`, `${EVENTS_DB}-journal`]) allow(file);
  allow(PROJECTION_TEMP_DIR);
  // A job's files are the same names for every job: one set, looked up under each job's folder.
  allow("jobs/*/events.jsonl");
  for (const name of JOB_GENERATED) allow(`jobs/*/${name}`);
  const jobs = new Set(jobIds);
  allowed.set("jobs", jobs);
  return allowed;
}

/** Removes what `allowed` does not account for under `folder` (matched against `pattern`), as `listing` finds it. */
function removeUnder(runDir: string, listing: RunDirListing, allowed: Map<string, Set<string>>, folder: string, pattern: string, skipJobs: ReadonlySet<string>): void {
  const keep = allowed.get(pattern);
  // Paths are made only for what is removed or looked into (most entries are neither).
  const pathOf = (name: string) => (folder === "" ? name : `${folder}/${name}`);
  for (const entry of listing.entries(folder)) {
    if (keep === undefined || !keep.has(entry.name)) {
      rmSync(join(runDir, pathOf(entry.name)), { recursive: true, force: true });
      continue;
    }
    if (!entry.isDirectory || (pattern === "jobs" && skipJobs.has(entry.name))) continue;
    const entryPattern = pattern === "jobs" ? "jobs/*" : pattern === "" ? entry.name : `${pattern}/${entry.name}`;
    if (entryPattern !== PROJECTION_TEMP_DIR) removeUnder(runDir, listing, allowed, pathOf(entry.name), entryPattern, skipJobs);
  }
}

/**
 * Removes every file and folder under `runDir` that is neither the log nor a file derived from it
 * for `jobIds`, as `listing` finds the directory (anything this process wrote is derived). The
 * folders of `settledJobs` are not looked into: `removeJobStrays` already cleaned them.
 */
export function removeStrays(runDir: string, jobIds: Iterable<string>, listing = new RunDirListing(runDir), settledJobs: ReadonlySet<string> = new Set()): void {
  removeUnder(runDir, listing, allowedEntries(jobIds), "", "", settledJobs);
}

/** What may be in a job's folder, the same for every job. */
const JOB_FOLDER_ALLOWED = allowedEntries([]);

/** Removes what a job's folder holds besides its mirror and generated files (replay, job by job). */
export function removeJobStrays(runDir: string, jobId: string, listing: RunDirListing): void {
  removeUnder(runDir, listing, JOB_FOLDER_ALLOWED, `jobs/${checkedJobId(jobId)}`, "jobs/*", new Set());
}
