/** Looking at child processes from tests (Linux /proc): which ones a process started, and whether they run. */
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** Processes whose parent is `pid` and whose command line contains `marker`. */
export function childrenOf(pid: number, marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
        const parent = Number(readFileSync(`/proc/${name}/stat`, "utf8").replace(/^.*\) /, "").split(" ")[1]);
        return cmdline.includes(marker) && parent === pid ? [Number(name)] : [];
      } catch {
        return [];
      }
    });
}

/** Whether the process still runs (a zombie waiting to be reaped does not). */
export function isRunning(pid: number): boolean {
  try {
    return existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Polls `condition` until it holds or `ms` pass; its last answer. */
export async function until(condition: () => boolean, ms: number, everyMs = 20): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return condition();
}

/** Sends `signal` to `child` once its stdout has said `text`; what it has written so far, and whether the signal went. */
export function signalWhenSaid(child: ChildProcess, text: string, signal: NodeJS.Signals = "SIGINT"): { stdout(): string; sent(): boolean } {
  let stdout = "";
  let sent = false;
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (!sent && stdout.includes(text)) {
      sent = true;
      child.kill(signal);
    }
  });
  return { stdout: () => stdout, sent: () => sent };
}
