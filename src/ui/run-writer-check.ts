/**
 * Whether the process a run's lock row names really is that run's writer, checked before the
 * dashboard signals it: anything that can write into the runs dir (a candidate's code, another
 * user) can plant a row naming any pid. The process must be on this machine, not the dashboard,
 * alive with the start time the lock recorded (a reused pid differs), a `run` command, and hold
 * the run's own events.db open (a planted row that copied another process's start time names one
 * that does not).
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { hostname } from "node:os";
import { eventsDbPath } from "../events/log-database.js";
import { processStartOf } from "../events/writer-lock.js";
import type { WatchedRun } from "./watched-run.js";

type LiveWriter = NonNullable<WatchedRun["liveWriter"]>;

const holdsOpen = (pid: number, path: string) => readdirSync(`/proc/${pid}/fd`).some((fd) => {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
  } catch {
    return false; // closed meanwhile
  }
});

/** Null when `writer` is verified as the live writer of the run in `runDir`, else why not (one sentence). */
export function writerDoubt(runDir: string, writer: LiveWriter): string | null {
  const { pid } = writer;
  if (writer.host !== hostname()) return `its writer runs on ${writer.host}, not on this machine`;
  if (pid === process.pid) return `its lock names the dashboard's own process ${pid}`;
  if (writer.processStart === null) return `its lock names process ${pid} without the start time that would prove it is the run's writer`;
  const start = processStartOf(pid);
  if (start !== writer.processStart) return `process ${pid} is not the one that took its lock (${start === null ? "it cannot be read" : "its start time differs: the pid was reused"})`;
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    if (!args.includes("run")) return `process ${pid} is not a 'trace-bench run'`;
    if (!holdsOpen(pid, realpathSync(eventsDbPath(runDir)))) return `process ${pid} does not have the run's events.db open`;
  } catch (error) {
    return `process ${pid} cannot be checked (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  return null;
}
