/**
 * Loopback socket folders left behind by runs that died without running their exit handler
 * (kill -9, a crash of the machine): each folder is named after its owner, `tb-llm-<pid>-<start>-`,
 * where start is the process's start time (Linux: clock ticks since boot, /proc/<pid>/stat), so a
 * later run can tell a dead owner from a live one even when the pid was given to another process.
 * A folder is removed only when its owner is known to be gone: a live pid whose start time cannot
 * be read is kept, and so is a folder of another user or of an older name that says no owner.
 * Before removing, its sockets are tried: one that still accepts a connection belongs to a live
 * process (a pid seen from another pid namespace may look dead), and its folder stays.
 */
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";

export const SOCKET_DIR_PREFIX = "tb-llm-";
const OWNED = /^tb-llm-(\d+)-(\d+|x)-/;

/** When the process started (an opaque stamp), or null when this system does not say (no /proc). */
export function processStartStamp(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22, counted after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** The name part that says whose a folder is: `tb-llm-<pid>-<start or x>-`. */
export function ownedPrefix(pid: number = process.pid): string {
  return `${SOCKET_DIR_PREFIX}${pid}-${processStartStamp(pid) ?? "x"}-`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the folder's owner is gone for sure. */
export function ownerGone(name: string): boolean {
  const match = OWNED.exec(name);
  if (match === null) return false;
  const pid = Number(match[1]);
  if (pid === process.pid) return false;
  if (!alive(pid)) return true;
  // The pid lives: gone only if it now names a process started at another time (the pid was reused).
  const recorded = match[2]!;
  const now = processStartStamp(pid);
  return recorded !== "x" && now !== null && now !== recorded;
}

/** Whether something listens on the Unix socket at `path` (a refused or failed connection: no). */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function anyListening(folder: string): Promise<boolean> {
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith(".sock"));
  } catch {
    return false;
  }
  const answers = await Promise.all(names.map((name) => listening(join(folder, name))));
  return answers.includes(true);
}

/** Removes this user's folders in `parent` whose owner is gone; resolves to the names removed. */
export async function sweepLoopbackSocketDirs(parent: string): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    if (!name.startsWith(SOCKET_DIR_PREFIX) || !ownerGone(name)) continue;
    const path = join(parent, name);
    try {
      const stat = statSync(path);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
      if (await anyListening(path)) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Gone already (another run swept it) or not ours to remove: either way, nothing to do.
    }
  }
  return removed;
}
