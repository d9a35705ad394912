/**
 * Paths the page names (a run, a file of a run, a config) resolved inside the one folder they may
 * come from. Anything that would leave it (`..`, an absolute path, a symbolic link pointing out, a
 * NUL byte) is refused, so a request can never read or launch what lies outside.
 */
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** The request names a path outside the folder it may use (HTTP 403). */
export class OutsideRootError extends Error {
  override readonly name = "OutsideRootError";
}

const isInside = (root: string, path: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * `rel` (POSIX-style, relative) resolved inside `root`; the real path (links followed) must be
 * inside the real root too. A path that does not exist yet is checked through its nearest
 * existing parent.
 */
export function resolveInside(root: string, rel: string): string {
  if (rel.includes("\0") || isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) throw new OutsideRootError(`'${rel}' is not a relative path`);
  if (rel.split(/[\\/]+/).includes("..")) throw new OutsideRootError(`'${rel}' leaves its folder`);
  const realRoot = realpathSync(root);
  const target = resolve(realRoot, rel);
  if (!isInside(realRoot, target)) throw new OutsideRootError(`'${rel}' leaves its folder`);
  let existing = target;
  while (!existsSync(existing) && existing !== realRoot) existing = resolve(existing, "..");
  if (!isInside(realRoot, realpathSync(existing))) throw new OutsideRootError(`'${rel}' leads outside its folder`);
  return target;
}

/** `path` relative to `root`, POSIX-style (the form the page uses). */
export const relativePosix = (root: string, path: string) => relative(root, path).split(sep).join("/");
