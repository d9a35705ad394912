/**
 * What a run directory holds, read once: every folder's entries, by path relative to the run
 * directory. `replay` lists the directory before it writes, so that it creates no folder that
 * exists and asks the file system about no file it does not hold (a 1,000-job run has 3,000
 * folders and as many absent optional files), and removes strays from the same listing.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { PROJECTION_TEMP_DIR } from "./projection-writer.js";

export interface ListedEntry {
  readonly name: string;
  readonly isDirectory: boolean;
}

export class RunDirListing {
  private readonly folders = new Map<string, ListedEntry[]>();
  private readonly paths = new Set<string>();

  private constructor(readonly runDir: string) {}

  /** Lists `runDir` and every folder under it (the projection writer's temp folder is listed, not entered). */
  static read(runDir: string): RunDirListing {
    const listing = new RunDirListing(runDir);
    listing.visit("");
    return listing;
  }

  /** The entries of `folder` ("" for the run directory itself). */
  entries(folder: string): readonly ListedEntry[] {
    return this.folders.get(folder) ?? [];
  }

  /** Whether the directory held a file or folder at `path` (relative) when it was listed. */
  has(path: string): boolean {
    return this.paths.has(path);
  }

  private visit(folder: string): void {
    const entries: ListedEntry[] = [];
    for (const entry of readdirSync(join(this.runDir, folder), { withFileTypes: true })) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      const isDirectory = entry.isDirectory();
      entries.push({ name: entry.name, isDirectory });
      this.paths.add(path);
      if (isDirectory && path !== PROJECTION_TEMP_DIR) this.visit(path);
    }
    this.folders.set(folder, entries);
  }
}
