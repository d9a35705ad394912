/**
 * Runs started from the page: each is a `trace-bench run` process of its own, detached in its own
 * process group with its console going to a file under the runs dir, so stopping the dashboard
 * never stops a run. Cancel sends SIGINT to the process holding a run's writer lock, once it is
 * verified as that run's writer (the run then cancels its jobs, records RunInterrupted and stays
 * resumable, as with Ctrl-C); Resume and Retry failed start `run --resume auto|failed` on the
 * run's own config snapshot, and signal nothing. Cancel job signals nothing either: it drops a
 * request into the run dir that the running `run` takes, checks and acts on (job-cancel-requests.ts).
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join, resolve } from "node:path";
import { RUN_FILES } from "../events/projections/run-files.js";
import type { LaunchPayload, LaunchStatusPayload } from "./api-types.js";
import type { RunsIndex } from "./runs-index.js";
import { relativePosix, resolveInside } from "../fs/safe-path.js";
import { writerDoubt } from "./run-writer-check.js";
import { requestJobCancel } from "../engine/job-cancel-requests.js";
import { jobCancellable } from "./job-cancellable.js";
import type { WatchedRun } from "./watched-run.js";

/** A request the launcher refuses as asked (HTTP 400 or 409, with the message). */
export class LaunchError extends Error {
  override readonly name = "LaunchError";
  constructor(
    message: string,
    readonly status: 400 | 409,
  ) {
    super(message);
  }
}

export const CONFIG_EXTENSIONS = [".yaml", ".yml", ".json"];
/** Where launched runs' console output goes, inside the runs dir (dot folders are not searched for runs). */
export const LAUNCH_LOG_DIR = ".trace-bench-ui";
const OUTPUT_TAIL_BYTES = 8000;

interface Launch {
  readonly id: string;
  readonly pid: number;
  readonly logPath: string;
  exitCode: number | null;
  running: boolean;
  relDir: string | null;
}

/** The `trace-bench` arguments that resume a run: its own config snapshot, its run id, its folder's parent as runs dir. */
export function resumeArgs(run: WatchedRun, mode: "auto" | "failed"): string[] {
  return ["run", "--config", join(run.runDir, RUN_FILES.config_snapshot), "--resume", mode, "--run-id", run.run.runId, "--runs-dir", dirname(run.runDir)];
}

export interface LaunchOptions {
  /** The config, relative to the working directory. */
  readonly config: string;
  /** A folder inside the dashboard's runs dir to write the run into ("" = the runs dir). */
  readonly runsSubdir?: string;
  readonly maxWorkers?: number;
}

export class Launcher {
  private readonly launches = new Map<string, Launch>();
  private counter = 0;

  constructor(
    private readonly options: { readonly cwd: string; readonly runsDir: string; readonly cli: string; readonly env: NodeJS.ProcessEnv; readonly runArgs: readonly string[] },
    private readonly index: RunsIndex,
  ) {}

  /** Only a config file under the working directory may be launched. */
  configPath(rel: string): string {
    const path = resolveInside(this.options.cwd, rel);
    if (!CONFIG_EXTENSIONS.some((ext) => path.endsWith(ext))) throw new LaunchError(`${rel}: a config is a .yaml, .yml or .json file`, 400);
    if (!existsSync(path) || !statSync(path).isFile()) throw new LaunchError(`${rel}: no such config file under ${this.options.cwd}`, 400);
    return path;
  }

  launch(request: LaunchOptions): LaunchPayload {
    const config = this.configPath(request.config);
    // A first launch creates the runs dir (as `run` would).
    mkdirSync(this.options.runsDir, { recursive: true });
    const runsDir = resolveInside(this.options.runsDir, request.runsSubdir ?? "");
    const args = ["run", "--config", config, "--runs-dir", runsDir];
    if (request.maxWorkers !== undefined) {
      if (!Number.isInteger(request.maxWorkers) || request.maxWorkers < 1) throw new LaunchError("max workers must be a whole number ≥ 1", 400);
      args.push("--max-workers", String(request.maxWorkers));
    }
    return this.start(args);
  }

  /** `run --resume auto|failed` of a run that is not running, with the config that made it. */
  resume(run: WatchedRun, mode: "auto" | "failed"): LaunchPayload {
    if (run.liveWriter !== null) throw new LaunchError(`run ${run.relDir} is running (pid ${run.liveWriter.pid}); cancel it first`, 409);
    if (!existsSync(join(run.runDir, RUN_FILES.config_snapshot))) throw new LaunchError(`run ${run.relDir} has no ${RUN_FILES.config_snapshot} to resume from`, 409);
    return this.start(resumeArgs(run, mode), run.relDir);
  }

  /** SIGINT to the process writing the run (verified as its writer first): it ends interrupted and resumable. */
  cancel(run: WatchedRun): { pid: number } {
    const writer = run.liveWriter;
    if (writer === null || !writer.command.includes(" run")) throw new LaunchError(`run ${run.relDir} is not running`, 409);
    const doubt = writerDoubt(run.runDir, writer);
    if (doubt !== null) throw new LaunchError(`run ${run.relDir} was not cancelled: ${doubt}; nothing was signalled (stop the run from its own terminal)`, 409);
    try {
      process.kill(writer.pid, "SIGINT");
    } catch (error) {
      throw new LaunchError(`run ${run.relDir}: cannot signal process ${writer.pid} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 409);
    }
    return { pid: writer.pid };
  }

  /**
   * Asks the process writing the run to cancel one running job (no pid is trusted: the run takes
   * the request from its own run dir and checks it); the job then records `cancelled`, the run goes on.
   */
  cancelJob(run: WatchedRun, jobId: string): { requested: string } {
    const job = run.jobStates().find((j) => j.job_id === jobId);
    if (job === undefined) throw new LaunchError(`run ${run.relDir} has no job '${jobId}'`, 400);
    const refused = jobCancellable(run, job);
    if (refused !== null) throw new LaunchError(`job ${jobId} was not cancelled: ${refused}`, 409);
    requestJobCancel(run.runDir, run.run.runId, jobId, "the dashboard");
    return { requested: jobId };
  }

  status(id: string): LaunchStatusPayload {
    const launch = this.launches.get(id);
    if (launch === undefined) throw new LaunchError(`no launch '${id}'`, 400);
    if (launch.relDir === null) launch.relDir = this.runOf(launch);
    return { launch_id: launch.id, pid: launch.pid, rel_dir: launch.relDir, exit_code: launch.exitCode, running: launch.running, output: this.outputTail(launch) };
  }

  private start(args: string[], relDir: string | null = null): LaunchPayload {
    const logDir = join(this.options.runsDir, LAUNCH_LOG_DIR);
    mkdirSync(logDir, { recursive: true });
    const id = `${new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}-${process.pid}-${++this.counter}`;
    const logPath = join(logDir, `launch-${id}.log`);
    const fd = openSync(logPath, "a");
    let child;
    try {
      child = spawn(process.execPath, [this.options.cli, ...args, ...this.options.runArgs], { cwd: this.options.cwd, env: this.options.env, detached: true, stdio: ["ignore", fd, fd] });
    } finally {
      closeSync(fd);
    }
    if (child.pid === undefined) throw new LaunchError(`could not start ${this.options.cli}`, 409);
    const launch: Launch = { id, pid: child.pid, logPath, exitCode: null, running: true, relDir };
    child.on("exit", (code, signal) => {
      launch.running = false;
      launch.exitCode = code ?? (signal === null ? null : 128);
    });
    child.on("error", () => {
      launch.running = false;
    });
    // The dashboard may exit first; the run must not wait for it, nor keep it alive.
    child.unref();
    this.launches.set(id, launch);
    return { launch_id: id, pid: child.pid, log: relativePosix(this.options.runsDir, logPath) };
  }

  /** The run a launch writes: the run whose writer lock names its process, else the run dir its console named. */
  private runOf(launch: Launch): string | null {
    this.index.discover();
    const byWriter = this.index.payload().runs.find((r) => r.writer?.pid === launch.pid && r.writer.host === hostname());
    if (byWriter !== undefined) return byWriter.rel_dir;
    const named = /^Run dir: (.+)$/m.exec(this.outputTail(launch))?.[1];
    if (named === undefined) return null;
    const dir = resolve(this.options.cwd, named);
    const rel = relativePosix(this.options.runsDir, dir);
    return rel.startsWith("..") ? null : rel;
  }

  private outputTail(launch: Launch): string {
    try {
      const text = readFileSync(launch.logPath);
      return text.subarray(Math.max(0, text.length - OUTPUT_TAIL_BYTES)).toString("utf8");
    } catch {
      return "";
    }
  }
}
