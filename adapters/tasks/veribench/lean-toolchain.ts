/**
 * The Lean toolchain on this machine: `lean` on PATH, else `lake` on PATH (run as `lake env lean`,
 * which gives lean the toolchain's library path). elan installs both as proxies in ~/.elan/bin.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

export interface LeanToolchain {
  readonly command: string;
  /** Arguments before the source file. */
  readonly args: readonly string[];
  /** How it is run, for messages: `lean` or `lake env lean`, with the path found. */
  readonly label: string;
}

function executableOnPath(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return null;
}

export function findLeanToolchain(env: NodeJS.ProcessEnv): LeanToolchain | null {
  const lean = executableOnPath("lean", env.PATH);
  if (lean !== null) return { command: lean, args: [], label: `lean (${lean})` };
  const lake = executableOnPath("lake", env.PATH);
  if (lake !== null) return { command: lake, args: ["env", "lean"], label: `lake env lean (${lake})` };
  return null;
}

export const LEAN_INSTALL_HINT = "install Lean 4 with elan (curl https://elan.lean-lang.org/elan-init.sh -sSf | sh -s -- -y --default-toolchain leanprover/lean4:v4.18.0) so that `lean` is on PATH";
