/**
 * bubblewrap (`bwrap`, Debian's `bubblewrap`) puts a process in namespaces of its own: a root file
 * system of read-only binds and one private tmpfs, no network (its own loopback only), its own pid
 * and IPC namespaces (the process is their init: when it dies, every process it left dies with
 * it), a new session (no terminal to inject keystrokes into), and an environment built from
 * nothing. This file builds that command line and checks, once per process, that this machine
 * lets bwrap make those namespaces.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readlinkSync } from "node:fs";

/** A host path shown read-only inside the sandbox, at `inside` (default: the same path). */
export interface ReadOnlyPath {
  readonly host: string;
  readonly inside?: string;
}

export interface BubblewrapSpec {
  readonly readOnly: readonly ReadOnlyPath[];
  /** The sandbox's only writable place (a tmpfs), e.g. /tmp. */
  readonly scratch: string;
  readonly scratchMb: number;
  readonly env: Readonly<Record<string, string>>;
  readonly command: readonly string[];
}

/** The top-level entries a program needs to start: /usr and what Debian's merged /usr links to it. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** Files of /etc a dynamically linked interpreter reads; never passwd, shadow or the machine's keys. */
const SYSTEM_FILES = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/alternatives"];

function systemMounts(): string[] {
  const args: string[] = [];
  for (const path of SYSTEM_DIRS) {
    if (!existsSync(path)) continue;
    const info = lstatSync(path);
    if (info.isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
    else if (info.isDirectory()) args.push("--ro-bind", path, path);
  }
  for (const path of SYSTEM_FILES) args.push("--ro-bind-try", path, path);
  return args;
}

const runsAsRoot = () => process.getuid?.() === 0;

/** The bwrap arguments that make the namespaces (root makes them itself; any other user needs a user namespace). */
function namespaceArgs(): string[] {
  return [
    ...(runsAsRoot() ? [] : ["--unshare-user"]),
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent",
    "--new-session",
    "--as-pid-1",
  ];
}

/** The full `bwrap` command line (without the program name) that runs `spec.command` confined. */
export function bubblewrapArgs(spec: BubblewrapSpec): string[] {
  const args = [...namespaceArgs(), ...systemMounts()];
  // First, so that a bind under it (a tasks root in /tmp) is not hidden by it.
  args.push("--perms", "1777", "--size", String(spec.scratchMb * 1024 * 1024), "--tmpfs", spec.scratch);
  const made = new Set<string>(["/", spec.scratch]);
  const bound: ReadOnlyPath[] = [];
  const shownBy = (inside: string) => [...SYSTEM_DIRS, ...bound.map((b) => b.inside ?? b.host)].find((dir) => inside === dir || inside.startsWith(`${dir}/`));
  for (const path of spec.readOnly) {
    const inside = path.inside ?? path.host;
    const covering = shownBy(inside);
    // Already visible through a bind of a folder above it (an interpreter's site-packages in its prefix).
    if (covering !== undefined && (path.inside === undefined || inside === covering)) continue;
    // bwrap makes missing folders on the way with mode 0700, which the worker's own uid could not enter.
    for (let at = inside.indexOf("/", 1); at !== -1; at = inside.indexOf("/", at + 1)) {
      const folder = inside.slice(0, at);
      if (made.has(folder)) continue;
      made.add(folder);
      args.push("--perms", "0755", "--dir", folder);
    }
    bound.push(path);
    args.push("--ro-bind", path.host, inside);
  }
  args.push("--proc", "/proc", "--dev", "/dev");
  args.push("--clearenv");
  for (const [name, value] of Object.entries(spec.env)) args.push("--setenv", name, value);
  args.push("--chdir", spec.scratch, "--", ...spec.command);
  return args;
}

let probed: string | null | undefined;

/**
 * Null when bwrap runs here with every namespace the sandbox uses, else why not (one line, with
 * the fix). Checked once per process by running `true` in such a sandbox.
 */
export function bubblewrapProblem(): string | null {
  if (probed !== undefined) return probed;
  const truePath = ["/usr/bin/true", "/bin/true"].find(existsSync) ?? "/usr/bin/true";
  const result = spawnSync("bwrap", [...namespaceArgs(), ...systemMounts(), "--proc", "/proc", "--dev", "/dev", "--", truePath], { encoding: "utf8", timeout: 20_000 });
  if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT") {
    probed = "candidate code runs in a bubblewrap sandbox, and bwrap is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap)";
  } else if (result.status !== 0) {
    const why = (result.stderr || result.error?.message || `exit ${String(result.status)}`).trim().split("\n").at(-1);
    probed = `candidate code runs in a bubblewrap sandbox, and bwrap cannot make its namespaces here (${why}); allow user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run as root`;
  } else {
    probed = null;
  }
  return probed;
}
