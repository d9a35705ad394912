/**
 * How a command this process prints (a resume hint, a rebuild hint, the dashboard's commands) must
 * start to work as printed, from the directory the process was started in:
 *
 * * `trace-bench` when the shell finds this very launcher under that name: the first `trace-bench`
 *   on PATH resolves to this package's `bin/trace-bench.js` (a global install or `npm link`).
 *   Folders under a `node_modules` are passed over: npm puts its own there for the commands it
 *   runs (`npx`, `npm run`), and the user's shell does not have them;
 * * `npx trace-bench` when npx finds it from here: this package is the project here (a clone after
 *   `npm ci`) or that project's `node_modules/trace-bench`;
 * * otherwise `node <absolute path of the launcher>`, which works from anywhere.
 */
import { accessSync, constants, existsSync, realpathSync } from "node:fs";
import { delimiter, dirname, join, sep } from "node:path";
import { shellWord } from "../codec/shell-word.js";
import { packageRoot } from "./package-root.js";

export const CLI_NAME = "trace-bench";

export interface CliInvocation {
  /** The PATH the process was started with. */
  readonly path: string | undefined;
  /** The directory it was started in. */
  readonly cwd: string;
  /** The package's root (its `bin/trace-bench.js` is the launcher). */
  readonly root: string;
}

const real = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The words that start a printed command (each a shell word) for `invocation`. */
export function cliPrefixFor(invocation: CliInvocation): string[] {
  const launcher = join(invocation.root, "bin", `${CLI_NAME}.js`);
  const realLauncher = real(launcher);
  const realRoot = real(invocation.root);
  for (const folder of (invocation.path ?? "").split(delimiter)) {
    if (folder === "" || folder.split(sep).includes("node_modules")) continue;
    const candidate = join(folder, CLI_NAME);
    if (!existsSync(candidate) || !executable(candidate)) continue;
    // The first one found is the one the shell runs: this launcher, or another installation.
    if (realLauncher !== null && real(candidate) === realLauncher) return [CLI_NAME];
    break;
  }
  // The project npx works in: the nearest folder up from here with a package.json or a node_modules.
  for (let dir = invocation.cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) || existsSync(join(dir, "node_modules"))) {
      if (realRoot !== null && (real(dir) === realRoot || real(join(dir, "node_modules", CLI_NAME)) === realRoot)) return ["npx", CLI_NAME];
      break;
    }
    if (dirname(dir) === dir) break;
  }
  return ["node", shellWord(launcher)];
}

let prefix: string | undefined;

/** `words` (already shell words) as a command line that works as printed from this process's directory. */
export function cliCommand(words: string): string {
  prefix ??= cliPrefixFor({ path: process.env.PATH, cwd: process.cwd(), root: packageRoot() }).join(" ");
  return `${prefix} ${words}`;
}
