/**
 * What a run directory holds, each folder read once, when first asked about: `replay` asks before
 * it writes, so that it creates no folder that exists and asks the file system about no file it
 * does not hold (a 1,000-job run has 3,000 folders and as many absent optional files), and removes
 * strays from the same listing. A folder read after this process wrote into it also lists what it
 * wrote; every question asked is about what was there before (a folder to create, a file it did
 * not write), which that does not change.
 *
 * A folder named `oneByOne` (`jobs/`: an entry per job) is never held whole: an entry of it is
 * looked up by reading that entry as a folder (which a job's folder is read for anyway), and its
 * entries are read as they are iterated (a 50,000-job run's `jobs/` held as a listing was a few MB
 * of a replay's peak: docs/performance.md, row 12).
 */
import { lstatSync, opendirSync, readdirSync, type Dirent } from "node:fs";
import { childPath } from "../fs/child-path.js";

export interface ListedEntry {
  readonly name: string;
  readonly isDirectory: boolean;
  /** A regular file (not a folder, a link or anything else). */
  readonly isFile: boolean;
}

const listed = (entry: Dirent): ListedEntry => ({ name: entry.name, isDirectory: entry.isDirectory(), isFile: entry.isFile() });

export class RunDirListing {
  /** Entries by folder path relative to the run directory ("" for itself); only folders asked about. */
  private readonly folders = new Map<string, Map<string, ListedEntry>>();
  /** The entries of the `oneByOne` folders asked about, by path (undefined: absent). */
  private readonly lookedUp = new Map<string, ListedEntry | undefined>();
  private readonly oneByOne: ReadonlySet<string>;

  constructor(
    readonly runDir: string,
    oneByOne: readonly string[] = [],
  ) {
    this.oneByOne = new Set(oneByOne);
  }

  /** The entries of `folder` ("" for the run directory itself); none if it does not exist. */
  entries(folder: string): Iterable<ListedEntry> {
    if (this.oneByOne.has(folder)) return this.streamed(folder);
    return this.folder(folder).values();
  }

  /** Whether the directory holds a file or folder at `path` (relative). */
  has(path: string): boolean {
    return this.entry(path) !== undefined;
  }

  /** Whether the directory holds a regular file at `path` (relative). */
  hasFile(path: string): boolean {
    return this.entry(path)?.isFile === true;
  }

  /** Forgets what `folder` and the folders under it hold (a job folder whose files are settled). */
  forget(folder: string): void {
    for (const path of this.folders.keys()) if (path === folder || path.startsWith(`${folder}/`)) this.folders.delete(path);
    this.lookedUp.delete(folder);
  }

  private entry(path: string): ListedEntry | undefined {
    const slash = path.lastIndexOf("/");
    const parent = slash < 0 ? "" : path.slice(0, slash);
    if (this.oneByOne.has(parent)) return this.lookUp(path);
    return this.folder(parent).get(path.slice(slash + 1));
  }

  private folder(folder: string): Map<string, ListedEntry> {
    let entries = this.folders.get(folder);
    if (entries !== undefined) return entries;
    entries = new Map();
    // A folder its parent does not list as one is not read (it cannot be listed).
    if (folder === "" || this.entry(folder)?.isDirectory === true) {
      for (const entry of readdirSync(folder === "" ? this.runDir : childPath(this.runDir, folder), { withFileTypes: true })) entries.set(entry.name, listed(entry));
    }
    this.folders.set(folder, entries);
    return entries;
  }

  /** The entry at `path` in a `oneByOne` folder: read as a folder, which it usually is (no more system calls than its parent's listing needed). */
  private lookUp(path: string): ListedEntry | undefined {
    if (this.lookedUp.has(path)) return this.lookedUp.get(path);
    const name = path.slice(path.lastIndexOf("/") + 1);
    let entry: ListedEntry | undefined;
    try {
      const entries = new Map<string, ListedEntry>();
      for (const child of readdirSync(childPath(this.runDir, path), { withFileTypes: true })) entries.set(child.name, listed(child));
      this.folders.set(path, entries);
      entry = { name, isDirectory: true, isFile: false };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR") entry = { name, isDirectory: false, isFile: lstatSync(childPath(this.runDir, path)).isFile() };
      else if (code !== "ENOENT") throw error;
      // Not a folder: nothing under it can be listed.
      this.folders.set(path, new Map());
    }
    this.lookedUp.set(path, entry);
    return entry;
  }

  /** A `oneByOne` folder's entries as the file system hands them over, none held (none if it is absent or not a folder). */
  private *streamed(folder: string): Generator<ListedEntry> {
    const at = this.entry(folder);
    if (at?.isDirectory !== true) return;
    const dir = opendirSync(childPath(this.runDir, folder));
    try {
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) yield listed(entry);
    } finally {
      dir.closeSync();
    }
  }
}
