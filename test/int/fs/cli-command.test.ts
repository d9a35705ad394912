/**
 * The start of a printed command (cli-command.ts), decided from real folders: a PATH whose first
 * `trace-bench` is this launcher, one whose first is another, npm's own `node_modules/.bin`, a
 * clone, a project that depends on the package, and a folder where only the launcher's path works.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPrefixFor } from "../../../src/fs/cli-command.js";
import { tempDir } from "../../support/cli.js";

/** A package root with its launcher, as a clone has it. */
function clone(dir: string): string {
  const root = join(dir, "clone");
  mkdirSync(join(root, "bin"), { recursive: true });
  writeFileSync(join(root, "package.json"), '{"name":"trace-bench"}');
  writeFileSync(join(root, "bin", "trace-bench.js"), "#!/usr/bin/env node\n");
  chmodSync(join(root, "bin", "trace-bench.js"), 0o755);
  return root;
}

/** A folder holding a `trace-bench` link to `target`, as `npm i -g` or `npm link` makes one. */
function binFolder(dir: string, name: string, target: string): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  symlinkSync(target, join(folder, "trace-bench"));
  return folder;
}

describe("cliPrefixFor", () => {
  it("is the bare name when the first trace-bench on PATH is this launcher", () => {
    const dir = tempDir();
    const root = clone(dir);
    const global = binFolder(dir, "global-bin", join(root, "bin", "trace-bench.js"));
    expect(cliPrefixFor({ path: ["/nonexistent", global, "/usr/bin"].join(":"), cwd: dir, root })).toEqual(["trace-bench"]);
  });

  it("is npx in a clone when trace-bench is not on PATH, or PATH's first one is another installation", () => {
    const dir = tempDir();
    const root = clone(dir);
    const other = clone(join(dir, "other"));
    const otherBin = binFolder(dir, "other-bin", join(other, "bin", "trace-bench.js"));
    const ours = binFolder(dir, "our-bin", join(root, "bin", "trace-bench.js"));
    expect(cliPrefixFor({ path: "/usr/bin:/bin", cwd: root, root })).toEqual(["npx", "trace-bench"]);
    expect(cliPrefixFor({ path: `${otherBin}:${ours}`, cwd: root, root })).toEqual(["npx", "trace-bench"]);
    // A subfolder of the clone without a package.json of its own (a runs dir) is still the clone's project.
    mkdirSync(join(root, "runs"));
    expect(cliPrefixFor({ path: undefined, cwd: join(root, "runs"), root })).toEqual(["npx", "trace-bench"]);
  });

  it("passes over npm's own node_modules/.bin folders, which the user's shell does not have", () => {
    const dir = tempDir();
    const root = clone(dir);
    const npxBin = binFolder(join(dir, ".npm", "_npx", "0123", "node_modules"), ".bin", join(root, "bin", "trace-bench.js"));
    expect(cliPrefixFor({ path: `${npxBin}:/usr/bin`, cwd: root, root })).toEqual(["npx", "trace-bench"]);
  });

  it("is npx in a project that has the package in its node_modules", () => {
    const dir = tempDir();
    const project = join(dir, "project");
    mkdirSync(join(project, "node_modules"), { recursive: true });
    writeFileSync(join(project, "package.json"), "{}");
    const root = clone(join(project, "node_modules"));
    symlinkSync(root, join(project, "node_modules", "trace-bench"));
    expect(cliPrefixFor({ path: "/usr/bin", cwd: project, root })).toEqual(["npx", "trace-bench"]);
  });

  it("is the launcher run by node, by its absolute path, where npx would not find it", () => {
    const dir = tempDir();
    const root = clone(join(dir, "it's here"));
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, "package.json"), "{}");
    expect(cliPrefixFor({ path: "/usr/bin", cwd: elsewhere, root })).toEqual(["node", `'${join(root, "bin", "trace-bench.js").replace(/'/g, "'\\''")}'`]);
  });
});
