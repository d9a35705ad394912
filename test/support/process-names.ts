/**
 * Processes found by the name they gave themselves (Linux /proc/<pid>/comm, which a process sets with
 * prctl(PR_SET_NAME), inside a sandbox too): a candidate or a task names itself when it has reached
 * the point a test waits for, and the test waits on that instead of a fixed sleep.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Pids of the live processes named `name` (at most 15 characters, as Linux keeps them). */
export function processesNamed(name: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trimEnd() === name && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Whether `pid` descends from `ancestor` (parents followed through /proc). */
export function descendsFrom(pid: number, ancestor: number): boolean {
  for (let at = pid, hops = 0; at > 1 && hops < 64; hops++) {
    if (at === ancestor) return true;
    try {
      at = Number(readFileSync(`/proc/${at}/stat`, "utf8").replace(/^.*\) /, "").split(" ")[1]);
    } catch {
      return false;
    }
  }
  return false;
}
