/**
 * meta/git.json's facts (spec §4.4): the checkout's root, commit and branch, asked of a real git
 * in real repositories; one without a commit gives the partial record the original gives.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { captureGit } from "../../../src/engine/run-environment.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function repo(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "trace-bench-git-")));
  dirs.push(dir);
  execFileSync("git", ["init", "-q", "-b", "trunk"], { cwd: dir });
  return dir;
}

const gitIn = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" }).trim();

describe("captureGit", () => {
  it("records the root, the commit and the branch of a checkout", () => {
    const dir = repo();
    writeFileSync(join(dir, "f.txt"), "x");
    gitIn(dir, "add", "f.txt");
    gitIn(dir, "commit", "-q", "-m", "one");
    gitIn(dir, "checkout", "-q", "-b", "feature");
    expect(captureGit(dir)).toEqual({ repo_root: dir, commit: gitIn(dir, "rev-parse", "HEAD"), branch: "feature" });
  });

  it("records only the root of a checkout without a commit", () => {
    const dir = repo();
    expect(captureGit(dir)).toEqual({ repo_root: dir });
  });

  it("records nothing outside a checkout", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "trace-bench-nogit-")));
    dirs.push(dir);
    expect(captureGit(dir)).toEqual({});
  });
});
