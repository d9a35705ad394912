/** `emptyFolder`: a writer's temp folder, emptied of what a killed writer left, kept when it already is a folder. */
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyFolder } from "../../../src/fs/empty-folder.js";
import { tempDir } from "../../support/cli.js";

describe("emptyFolder", () => {
  it("removes every file and folder inside and keeps the folder itself", () => {
    const dir = join(tempDir(), ".tmp");
    mkdirSync(join(dir, "helper", "deep"), { recursive: true });
    writeFileSync(join(dir, "7"), "half a file");
    writeFileSync(join(dir, "helper", "deep", "3"), "x");
    const inode = statSync(dir).ino;
    emptyFolder(dir);
    expect(readdirSync(dir)).toEqual([]);
    expect(statSync(dir).ino).toBe(inode);
  });

  it("makes the folder, with its parents, when there is none, and replaces a file where it goes", () => {
    const missing = join(tempDir(), "run", ".tmp");
    emptyFolder(missing);
    expect(statSync(missing).isDirectory()).toBe(true);
    const file = join(tempDir(), ".tmp");
    writeFileSync(file, "not a folder");
    emptyFolder(file);
    expect(statSync(file).isDirectory()).toBe(true);
    expect(readdirSync(file)).toEqual([]);
  });
});
