/**
 * What a run directory holds, each folder read once, when first asked about: `replay` asks before
 * it writes, so that it creates no folder that exists and asks the file system about no file it
 * does not hold (a 1,000-job run has 3,000 folders and as many absent optional files), and removes
 * strays from the same listing. A folder read after this process wrote into it also lists what it
 * wrote; every question asked is about what was there before (a folder to create, a file it did
 * not write), which that does not change.
 */
import { readdirSync } from "node:fs";
import { childPath } from "../fs/child-path.js";

export interface ListedEntry {
  readonly name: string;
  readonly isDirectory: boolean;
  /** A regular file (not a folder, a link or anything else). */
  readonly isFile: boolean;
}

export class RunDirListing {
  /** Entries by folder path relative to the run directory ("" for itself); only folders asked about. */
  private readonly folders = new Map<string, Map<string, ListedEntry>>();

  constructor(readonly runDir: string) {}

  /** The entries of `folder` ("" for the run directory itself); none if it does not exist. */
  entries(folder: string): Iterable<ListedEntry> {
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
  }

  private entry(path: string): ListedEntry | undefined {
    const slash = path.lastIndexOf("/");
    return this.folder(slash < 0 ? "" : path.slice(0, slash)).get(path.slice(slash + 1));
  }

  private folder(folder: string): Map<string, ListedEntry> {
    let entries = this.folders.get(folder);
    if (entries !== undefined) return entries;
    entries = new Map();
    // A folder its parent does not list as one is not read (it cannot be listed).
    if (folder === "" || this.entry(folder)?.isDirectory === true) {
      for (const entry of readdirSync(folder === "" ? this.runDir : childPath(this.runDir, folder), { withFileTypes: true })) entries.set(entry.name, { name: entry.name, isDirectory: entry.isDirectory(), isFile: entry.isFile() });
    }
    this.folders.set(folder, entries);
    return entries;
  }
}
