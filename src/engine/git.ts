import { execFileSync } from "node:child_process";

/** `git rev-parse HEAD` in `cwd`, or "unknown" outside a repository (part of the run_id hash). */
export function gitHeadSha(cwd = process.cwd()): string {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || "unknown";
  } catch {
    return "unknown";
  }
}
