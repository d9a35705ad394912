/**
 * A run on a disk that fills up (a small tmpfs mounted for the child alone, in a mount namespace of
 * its own: `unshare --mount`, as root) stops with one line and exit 2 and leaves no empty or partial
 * temp file behind (issue 32, item 14: it printed 11 lines and left empty temp files). The
 * simulated full disk of run-dir-faults.test.ts fails SQLite's appends only; here every write
 * (the log, its mirror, the reports, each job's files) meets the real ENOSPC.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, runProcess, tempDir } from "../support/cli.js";

/** Whether this machine lets a child mount a tmpfs in a mount namespace of its own. */
function canMountTmpfs(): boolean {
  return spawnSync("unshare", ["--mount", "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$0"', tempDir()], { encoding: "utf8" }).status === 0;
}

/**
 * `trace-bench ...args` with a tmpfs of `kib` KiB mounted on `disk` for it alone; what it printed,
 * its exit code and the files left in the writer's temp folders, read before the mount goes.
 */
async function onSmallDisk(disk: string, kib: number, args: readonly string[], cwd: string): Promise<{ code: number; stderr: string; leftovers: string[] }> {
  const script = 'disk="$0"; out="$1"; shift 2; mount -t tmpfs -o size="$KIB"k tmpfs "$disk" || exit 99; "$@" > "$out/stdout" 2> "$out/stderr"; echo $? > "$out/code"; find "$disk" -type f -path "*/.tmp/*" > "$out/leftovers"';
  const out = tempDir();
  const child = await runProcess("unshare", ["--mount", "sh", "-c", script, disk, out, process.execPath, CLI, ...args], { cwd, env: { ...process.env, KIB: String(kib) }, timeoutMs: 120_000 });
  if (child.code !== 0) throw new Error(`unshare: exit ${child.code}: ${child.stderr}`);
  const read = (name: string) => readFileSync(join(out, name), "utf8");
  return { code: Number(read("code").trim()), stderr: read("stderr"), leftovers: read("leftovers").split("\n").filter((line) => line !== "") };
}

describe.skipIf(!canMountTmpfs())("a run whose disk fills up", () => {
  it("stops with exit 2, says the disk is full, and leaves no temp file behind", async () => {
    const work = tempDir();
    const config = join(work, "config.yaml");
    const seeds = Array.from({ length: 200 }, (_, i) => i + 1).join(", ");
    writeFileSync(config, `mode: stub\nseeds: [${seeds}]\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n`);
    const disk = tempDir();
    const run = await onSmallDisk(disk, 600, ["run", "--config", config, "--runs-dir", join(disk, "runs"), "--run-id", "full"], REPO_ROOT);
    expect(run.code, run.stderr).toBe(2);
    const lines = run.stderr.trim().split("\n");
    expect(lines.filter((line) => !line.includes("warning"))).toEqual([expect.stringMatching(/^trace-bench: cannot write .*: the disk is full; free space and run the same command again to resume$/)]);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.leftovers).toEqual([]);
  }, 180_000);
});
