/**
 * A run on a disk that fills up (a small tmpfs mounted for the child alone, in a mount namespace of
 * its own: `unshare --mount`, as root) stops with one line and exit 2, the subscribers that failed
 * on the same full disk saying nothing of their own, and leaves no empty or partial temp file behind
 * (issue 32, item 14: it printed 11 lines and left empty temp files); once space is freed, the same
 * command resumes it with every event it had recorded. The simulated full disk of
 * run-dir-faults.test.ts fails SQLite's appends only; here every write (the log, its mirror, the
 * reports, each job's files) meets the real ENOSPC.
 *
 * A disk that fills while a new run's log is being created (issue 32, item 9) left a damaged
 * `events.db` linked in (the draft's tables still in its WAL when the file was linked), which the
 * same command then refused for good: it must leave no log or a whole one, and resume.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, runProcess, tempDir } from "../support/cli.js";
import { csvRows, eventsOf } from "../support/run-dir.js";

/** Whether this machine lets a child mount a tmpfs in a mount namespace of its own. */
function canMountTmpfs(): boolean {
  return spawnSync("unshare", ["--mount", "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$0"', tempDir()], { encoding: "utf8" }).status === 0;
}

/** What one command printed on the small disk, and how it exited. */
interface Invocation {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `trace-bench ...args` with a tmpfs of `kib` KiB mounted on `disk` for it alone, then the same
 * command again once the disk has grown to `grownKib` KiB (the user freed space). What each printed
 * and its exit code, the files left in the writer's temp folders after the first, and copies of the
 * run's log after each (in `logs`/full and `logs`/resumed), all read before the mount goes.
 */
async function onSmallDisk(disk: string, kib: number, grownKib: number, runDir: string, args: readonly string[], cwd: string) {
  const script = [
    'disk="$0"; out="$1"; run="$2"; shift 3',
    'mount -t tmpfs -o size="$KIB"k tmpfs "$disk" || exit 99',
    '"$@" > "$out/stdout" 2> "$out/stderr"; echo $? > "$out/code"',
    'find "$disk" -type f -path "*/.tmp/*" > "$out/leftovers"',
    'mkdir -p "$out/logs/full" && cp "$run"/events.db* "$out/logs/full/" || exit 98',
    'mount -o remount,size="$GROWN"k "$disk" || exit 97',
    '"$@" > "$out/stdout2" 2> "$out/stderr2"; echo $? > "$out/code2"',
    'mkdir -p "$out/logs/resumed" && cp "$run"/events.db* "$run/results.csv" "$out/logs/resumed/" || exit 96',
  ].join("\n");
  const out = tempDir();
  const child = await runProcess("unshare", ["--mount", "sh", "-c", script, disk, out, runDir, process.execPath, CLI, ...args], {
    cwd,
    env: { ...process.env, KIB: String(kib), GROWN: String(grownKib) },
    timeoutMs: 120_000,
  });
  if (child.code !== 0) throw new Error(`unshare: exit ${child.code}: ${child.stderr}`);
  const read = (name: string) => readFileSync(join(out, name), "utf8");
  const invocation = (suffix: string): Invocation => ({ code: Number(read(`code${suffix}`).trim()), stdout: read(`stdout${suffix}`), stderr: read(`stderr${suffix}`) });
  return { full: invocation(""), resumed: invocation("2"), leftovers: read("leftovers").split("\n").filter((line) => line !== ""), logs: join(out, "logs") };
}

describe.skipIf(!canMountTmpfs())("a run whose disk fills up", () => {
  it("stops with exit 2 and one line that says the disk is full, leaves no temp file behind, and resumes once there is space", async () => {
    const work = tempDir();
    const config = join(work, "config.yaml");
    const seeds = Array.from({ length: 200 }, (_, i) => i + 1).join(", ");
    writeFileSync(config, `mode: stub\nseeds: [${seeds}]\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n`);
    const disk = tempDir();
    const runs = join(disk, "runs");
    const { full, resumed, leftovers, logs } = await onSmallDisk(disk, 600, 64 * 1024, join(runs, "full"), ["run", "--config", config, "--runs-dir", runs, "--run-id", "full"], REPO_ROOT);
    expect(full.code, full.stderr).toBe(2);
    // One line in all: the subscribers that failed first or with it (projections, mirrors) say nothing of their own.
    expect(full.stderr.trim().split("\n"), full.stderr).toEqual([expect.stringMatching(/^trace-bench: cannot write .*: the disk is full; free space and run the same command again to resume$/)]);
    expect(leftovers).toEqual([]);

    // What the line says to do works, and loses nothing the full run recorded.
    expect(resumed.code, resumed.stderr).toBe(0);
    const before = eventsOf(join(logs, "full"));
    const after = eventsOf(join(logs, "resumed"));
    const finishedBefore = before.filter((e) => e.type === "JobFinished").length;
    expect(finishedBefore).toBeGreaterThan(0);
    expect(resumed.stdout).toContain(`Resuming full: ${finishedBefore}/200 jobs done`);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(csvRows(join(logs, "resumed", "results.csv")).map((row) => row.status)).toEqual(Array(200).fill("ok"));
  }, 180_000);
});

/**
 * `trace-bench ...args` on a new run directory with a tmpfs of `kib` KiB mounted on `disk` for it
 * alone, then again once the disk has grown to 64 MiB: what each printed and its exit code.
 */
async function newRunOnSmallDisk(disk: string, kib: number, args: readonly string[], cwd: string) {
  const script = [
    'disk="$0"; out="$1"; shift 2',
    'mount -t tmpfs -o size="$KIB"k tmpfs "$disk" || exit 99',
    '"$@" > "$out/stdout" 2> "$out/stderr"; echo $? > "$out/code"',
    'mount -o remount,size=65536k "$disk" || exit 97',
    '"$@" > "$out/stdout2" 2> "$out/stderr2"; echo $? > "$out/code2"',
  ].join("\n");
  const out = tempDir();
  const child = await runProcess("unshare", ["--mount", "sh", "-c", script, disk, out, process.execPath, CLI, ...args], {
    cwd,
    env: { ...process.env, KIB: String(kib) },
    timeoutMs: 120_000,
  });
  if (child.code !== 0) throw new Error(`unshare: exit ${child.code}: ${child.stderr}`);
  const read = (name: string) => readFileSync(join(out, name), "utf8");
  const invocation = (suffix: string): Invocation => ({ code: Number(read(`code${suffix}`).trim()), stdout: read(`stdout${suffix}`), stderr: read(`stderr${suffix}`) });
  return { full: invocation(""), resumed: invocation("2") };
}

describe.skipIf(!canMountTmpfs())("a new run whose disk fills up while its log is created", () => {
  // 80-112 KiB filled the disk while the draft log's WAL was checkpointed into its file (on the code before the fix).
  it.each([64, 80, 96, 112, 128])("on %i KiB: one line that says the disk is full, and the same command runs once there is space", async (kib) => {
    const work = tempDir();
    const config = join(work, "config.yaml");
    writeFileSync(config, "mode: stub\nseeds: [1, 2, 3]\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n");
    const disk = tempDir();
    const runs = join(disk, "runs");
    const { full, resumed } = await newRunOnSmallDisk(disk, kib, ["run", "--config", config, "--runs-dir", runs, "--run-id", "new"], REPO_ROOT);
    expect(full.code, full.stderr).toBe(2);
    expect(full.stderr.trim().split("\n"), full.stderr).toEqual([expect.stringMatching(/^trace-bench: cannot write .*: the disk is full; free space and run the same command again to resume$/)]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("Run complete");
  }, 180_000);
});
