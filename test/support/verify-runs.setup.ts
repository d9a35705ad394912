/**
 * After each end-to-end test file: every run directory its tests made must pass `replay
 * --verify` (every job stream is what the job machine would have produced), unless the test
 * doctored that log on purpose. The file only lists them; verify-runs.global.ts checks them all
 * in vitest's own process at the end, so that no test file's process loads the engine's modules
 * for it (about a CPU-second per file: docs/performance.md, ledger).
 */
import { appendFileSync, existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { afterAll, expect, inject } from "vitest";
import { REPO_ROOT, createdTempDirs, doctoredRunDirs } from "./cli.js";

function runDirsUnder(dir: string, depth = 4): string[] {
  if (depth === 0 || !existsSync(dir) || !statSync(dir).isDirectory()) return [];
  if (existsSync(join(dir, "events.db"))) return [dir];
  return readdirSync(dir).flatMap((name) => runDirsUnder(join(dir, name), depth - 1));
}

afterAll(() => {
  const doctored = new Set([...doctoredRunDirs].map((d) => resolve(d)));
  const file = relative(REPO_ROOT, expect.getState().testPath ?? "?");
  const lines = createdTempDirs
    .flatMap((d) => runDirsUnder(d))
    .filter((runDir) => !doctored.has(resolve(runDir)))
    .map((runDir) => `${JSON.stringify({ file, runDir })}\n`);
  if (lines.length > 0) appendFileSync(inject("verifyRunsList"), lines.join(""));
});
