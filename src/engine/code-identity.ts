/**
 * The code that writes and reads a run's caches (the finished-run record, the answered re-run):
 * the package version and the build (the bundle's time), so that a cache is never read by code
 * that might render the run otherwise. Kept apart from plan-digest.ts so that the CLI's main
 * thread can ask it without loading the plan's code.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../fs/package-root.js";

let identity: string | null = null;

export function codeIdentity(): string {
  if (identity !== null) return identity;
  const root = packageRoot();
  let version = "unknown";
  try {
    version = String((JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown }).version);
  } catch {
    // No package.json: the build's time alone tells builds apart.
  }
  const bundle = join(root, "dist", "cli", "main.js");
  identity = `${version}@${existsSync(bundle) ? statSync(bundle).mtimeMs : "source"}`;
  return identity;
}
