/**
 * Paths a user names (the dashboard's runs, files and configs; a task id's folder) resolved inside
 * the one folder they may come from. Anything that would leave it (`..`, an absolute path, a
 * symbolic link pointing out, a NUL byte) is refused, so a name can never reach what lies outside.
 */
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** A name that leads outside the folder it may use (the dashboard answers HTTP 403). */
export class OutsideRootError extends Error {
  override readonly name = "OutsideRootError";
}

const isInside = (root: string, path: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/** How `rel` leaves any folder it is joined to by its spelling alone (no disk access), or null. */
export function leavesByName(rel: string): "not relative" | "parent segment" | null {
  if (rel.includes("\0") || isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) return "not relative";
  if (rel.split(/[\\/]+/).includes("..")) return "parent segment";
  return null;
}

/**
 * `rel` (POSIX-style, relative) resolved inside `root`; the real path (links followed) must be
 * inside the real root too. A path that does not exist yet is checked through its nearest
 * existing parent.
 */
export function resolveInside(root: string, rel: string): string {
  const leaves = leavesByName(rel);
  if (leaves !== null) throw new OutsideRootError(`'${rel}' ${leaves === "not relative" ? "is not a relative path" : "leaves its folder"}`);
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
