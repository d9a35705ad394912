/**
 * What a run directory holds besides what its log produces: strays (a user's notes or plots, a
 * folder of a job the log does not know, a file someone dropped into a job's folder). `replay`
 * makes every derived file right in place and never destroys a stray: it finds them here, from the
 * same listing it wrote by, and leaves them where they are, or with `--prune` moves them aside to
 * `.replay-strays/<timestamp>/` under the same relative paths, where nothing reads them.
 */
import { mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { EVENTS_DB } from "./log-database.js";
import { RUN_MIRROR } from "./mirror-writer.js";
import { JOB_GENERATED, PROJECTION_TEMP_DIR } from "./projection-writer.js";
import { RUN_FILES } from "./projections/run-files.js";
import { RERUN_ANSWERS_DIR } from "./run-dir-answers.js";
import { TB_EVENT_FILE, tbRunName, type TbRunSubject } from "./projections/tensorboard-file.js";
import { RunDirListing } from "./run-dir-listing.js";
import { checkedJobId } from "./safe-id.js";

/** The folder, under a run directory, that `replay --prune` moves strays into (one timestamped folder per replay). */
export const STRAYS_DIR = ".replay-strays";

/** A job's tb/ folder, as a pattern. */
const TB_FOLDER = "jobs/*/tb";

/** Names asked about one at a time (the run's job ids are its state's, not copied into a set of their own). */
export type Names = Pick<ReadonlySet<string>, "has">;

/** Which entries a folder may keep, by the folder's pattern (`jobs/*` for any job's folder). */
type AllowedAt = (pattern: string) => Names | undefined;

/** Paths relative to a folder, by folder: the entries it may keep (a folder's own entries are listed under its path). */
function allowedEntries(jobIds: Names): Map<string, Names> {
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
  allow(STRAYS_DIR);
  allow(RERUN_ANSWERS_DIR);
  // A job's files are the same names for every job: one set, looked up under each job's folder.
  allow("jobs/*/events.jsonl");
  for (const name of JOB_GENERATED) allow(`jobs/*/${name}`);
  // The original's logdir, made for every job: it holds the job's TensorBoard run folder, if any (`findJobStrays`).
  allow(TB_FOLDER);
  allowed.set(TB_FOLDER, new Set());
  const names: Map<string, Names> = allowed;
  names.set("jobs", jobIds);
  return names;
}

/** Folders whose content is not looked into: the writer's temp files, strays moved aside before, saved re-run answers. */
const NOT_LOOKED_INTO = new Set([PROJECTION_TEMP_DIR, STRAYS_DIR, RERUN_ANSWERS_DIR]);

/** Adds to `strays` what `allowed` does not account for under `folder` (matched against `pattern`), as `listing` finds it. */
function findUnder(listing: RunDirListing, allowed: AllowedAt, folder: string, pattern: string, skipJobs: Names, strays: string[]): void {
  const keep = allowed(pattern);
  // Paths are made only for what is a stray or looked into (most entries are neither).
  const pathOf = (name: string) => (folder === "" ? name : `${folder}/${name}`);
  for (const entry of listing.entries(folder)) {
    if (keep === undefined || !keep.has(entry.name)) {
      strays.push(entry.isDirectory ? `${pathOf(entry.name)}/` : pathOf(entry.name));
      continue;
    }
    if (!entry.isDirectory || (pattern === "jobs" && skipJobs.has(entry.name))) continue;
    const entryPattern = pattern === "jobs" ? "jobs/*" : pattern === "" ? entry.name : `${pattern}/${entry.name}`;
    if (!NOT_LOOKED_INTO.has(entryPattern)) findUnder(listing, allowed, pathOf(entry.name), entryPattern, skipJobs, strays);
  }
}

/**
 * The files and folders under the run directory that are neither the log nor derived from it for
 * `jobIds`, as `listing` finds the directory (anything this process wrote is derived), relative
 * to it; a stray folder is one entry, its path ending in `/`. The folders of `settledJobs` are not looked into:
 * `findJobStrays` looked into them already.
 */
export function findStrays(jobIds: Names, listing: RunDirListing, settledJobs: Names = new Set()): string[] {
  const strays: string[] = [];
  const allowed = allowedEntries(jobIds);
  findUnder(listing, (pattern) => allowed.get(pattern), "", "", settledJobs, strays);
  return strays;
}

/** What may be in a job's folder, the same for every job. */
const JOB_FOLDER_ALLOWED = allowedEntries(new Set());

const EVENT_FILE_ONLY: ReadonlySet<string> = new Set([TB_EVENT_FILE]);

/**
 * What a job's folder holds besides its mirror and generated files (replay, job by job). Its tb/
 * may hold the one folder named after the job (tensorboard-file.ts), holding its event file, whether
 * or not the job writes one now; anything else there (an event file of the layout before run
 * names carried the variant, right in tb/) is a stray.
 */
export function findJobStrays(job: TbRunSubject, listing: RunDirListing): string[] {
  const strays: string[] = [];
  const runName = tbRunName(job);
  const runFolder = `${TB_FOLDER}/${runName}`;
  const allowed: AllowedAt = (pattern) => (pattern === TB_FOLDER ? new Set([runName]) : pattern === runFolder ? EVENT_FILE_ONLY : JOB_FOLDER_ALLOWED.get(pattern));
  findUnder(listing, allowed, `jobs/${checkedJobId(job.job_id)}`, "jobs/*", new Set(), strays);
  return strays;
}

/** `2026-11-26T16-20-05.123Z`: an ISO time that every file system takes as a folder name, and sorts. */
const folderStamp = (now: Date) => now.toISOString().replace(/:/g, "-");

/**
 * Moves `strays` (relative paths) to `.replay-strays/<timestamp>/` under the same relative paths,
 * and returns that folder (relative to the run directory). Renames only: nothing is copied or
 * deleted, and a folder made in the same millisecond as another gets a suffix rather than mixing.
 */
export function moveStraysAside(runDir: string, strays: readonly string[], now = new Date()): string {
  const stamp = folderStamp(now);
  let target = `${STRAYS_DIR}/${stamp}`;
  for (let n = 2; ; n++) {
    try {
      mkdirSync(join(runDir, STRAYS_DIR), { recursive: true });
      mkdirSync(join(runDir, target));
      break;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST") throw error;
      target = `${STRAYS_DIR}/${stamp}-${n}`;
    }
  }
  for (const stray of strays) {
    const path = stray.endsWith("/") ? stray.slice(0, -1) : stray;
    const destination = join(runDir, target, path);
    mkdirSync(dirname(destination), { recursive: true });
    renameSync(join(runDir, path), destination);
  }
  return target;
}
