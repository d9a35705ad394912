/**
 * The dashboard's per-job Cancel, end to end: a run launched from the dashboard has one job that
 * hangs on a child process; cancelling it through `/api/job/cancel` signals no process: the run
 * takes the request from its run dir, the job records `cancelled` (its child killed), the other
 * jobs finish ok, the run ends RunFinished (not interrupted) with exit 1, and replay rebuilds the
 * same files. A job that is not running is refused (409), and nothing is requested.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { startDashboard, waitForExit, type RunningDashboard } from "../support/dashboard.js";
import { isRunning } from "../support/processes.js";
import { csvRows, eventsOf, filesUnder, FIXTURE_ENV } from "../support/run-dir.js";

interface JobRow {
  job_id: string;
  task_id: string;
  state: string;
}

describe("dashboard: cancel one job of a running run", () => {
  let dir: string;
  let dashboard: RunningDashboard;
  const launched: number[] = [];
  const post = (path: string, body: unknown = {}) => dashboard.request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const getJson = async <T>(path: string): Promise<T> => {
    const reply = await dashboard.request(path);
    expect(reply.status, reply.body).toBe(200);
    return JSON.parse(reply.body) as T;
  };

  beforeAll(async () => {
    dir = tempDir();
    mkdirSync(join(dir, "configs"));
    const pidFile = join(dir, "child.pid");
    writeFileSync(
      join(dir, "configs", "hang.yaml"),
      `mode: stub\nmax_workers: 3\ntasks:\n  - {id: fixture:hang_child, eval_kwargs: {pid_file: ${JSON.stringify(pidFile)}}}\n  - internal:numeric_param\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 200}}\ntrainers: [NoOpTrainer]\n`,
    );
    dashboard = await startDashboard({ cwd: dir, args: ["--runs-dir", "runs"], env: FIXTURE_ENV });
  }, 120_000);

  afterAll(async () => {
    expect(await waitForExit(launched)).toBe(true);
    await dashboard?.stop();
  }, 150_000);

  it("the cancelled job records cancelled, its child is killed, the other jobs finish, replay reproduces the files", async () => {
    const launch = await post("/api/launch", { config: "configs/hang.yaml" });
    expect(launch.status, launch.body).toBe(200);
    const { launch_id: launchId, pid } = JSON.parse(launch.body) as { launch_id: string; pid: number };
    launched.push(pid);

    // The run dir, then the hanging job under way and the others done.
    let rel: string | null = null;
    expect(await untilAsync(async () => (rel = (await getJson<{ rel_dir: string | null }>(`/api/launch?id=${launchId}`)).rel_dir) !== null, 60_000)).toBe(true);
    const runQuery = `run=${encodeURIComponent(rel!)}`;
    let jobs: JobRow[] = [];
    const settled = await untilAsync(async () => {
      jobs = (await getJson<{ jobs: JobRow[] }>(`/api/run?${runQuery}`)).jobs;
      const hang = jobs.find((j) => j.task_id === "fixture:hang_child");
      return hang?.state === "building" && jobs.filter((j) => j !== hang).every((j) => j.state === "done");
    }, 60_000);
    expect(settled, JSON.stringify(jobs)).toBe(true);
    const hang = jobs.find((j) => j.task_id === "fixture:hang_child")!;
    const other = jobs.find((j) => j !== hang)!;
    const childPid = Number(readFileSync(join(dir, "child.pid"), "utf8"));
    expect(isRunning(childPid)).toBe(true);

    // The page offers Cancel job on the running job only.
    expect((await getJson<{ cancellable: boolean }>(`/api/job?${runQuery}&job=${hang.job_id}`)).cancellable).toBe(true);
    expect((await getJson<{ cancellable: boolean }>(`/api/job?${runQuery}&job=${other.job_id}`)).cancellable).toBe(false);
    const refused = await post(`/api/job/cancel?${runQuery}&job=${other.job_id}`);
    expect(refused.status, refused.body).toBe(409);
    expect((JSON.parse(refused.body) as { error: string }).error).toMatch(new RegExp(`^job ${other.job_id} was not cancelled: it is done, not running`));
    // The same rules as the run's Cancel: JSON only (a form from another page cannot send it).
    const form = await dashboard.request(`/api/job/cancel?${runQuery}&job=${hang.job_id}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "" });
    expect(form.status).toBe(415);

    const cancel = await post(`/api/job/cancel?${runQuery}&job=${hang.job_id}`);
    expect(cancel.status, cancel.body).toBe(200);
    expect(JSON.parse(cancel.body)).toEqual({ requested: hang.job_id });

    // The run ends on its own: RunFinished, exit 1 (a job without its result).
    let status: { running: boolean; exit_code: number | null; output: string } = { running: true, exit_code: null, output: "" };
    expect(await untilAsync(async () => !(status = await getJson(`/api/launch?id=${launchId}`)).running, 60_000)).toBe(true);
    expect(status.exit_code, status.output).toBe(1);
    expect(status.output).toMatch(new RegExp(`job ${hang.job_id} cancelled alone, as the dashboard asked`));
    expect(isRunning(childPid)).toBe(false);

    const runDir = join(dir, "runs", rel!);
    const events = eventsOf(runDir);
    const finished = events.filter((e) => e.type === "JobFinished").map((e) => [e.job_id, (e.data as { status: string }).status]);
    expect(new Map(finished as [string, string][])).toEqual(new Map(jobs.map((j) => [j.job_id, j === hang ? "cancelled" : "ok"])));
    const cancelled = events.find((e) => e.type === "JobFinished" && e.job_id === hang.job_id)!;
    expect((cancelled.data as { feedback: string }).feedback).toMatch(/^cancelled: this job alone was cancelled \(asked by the dashboard\)/);
    expect(events.at(-1)!.type).toBe("RunFinished");
    expect(events.some((e) => e.type === "RunInterrupted")).toBe(false);
    expect((events.at(-1)!.data as { counts: Record<string, number> }).counts).toEqual({ ok: 2, cancelled: 1 });
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows.find((r) => r.job_id === hang.job_id)!.status).toBe("cancelled");
    // The request folder went with the run: nothing is left for replay to call a stray.
    expect(existsSync(join(runDir, "control"))).toBe(false);

    // Replay reproduces every file the run wrote, and the job machine re-derives every stream.
    const before = filesUnder(runDir);
    const replay = await runCli(["replay", runDir], { cwd: dir });
    expect(replay.code, replay.stderr).toBe(0);
    expect(filesUnder(runDir)).toEqual(before);
    const verify = await runCli(["replay", runDir, "--verify"], { cwd: dir });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 180_000);
});

async function untilAsync(condition: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (await condition()) return true;
  return false;
}
