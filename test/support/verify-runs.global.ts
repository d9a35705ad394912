/**
 * The end-to-end tier's global setup: at the end of the tier, every run directory the test files
 * listed (verify-runs.setup.ts) must pass `replay --verify`; a run that does not fails the tier,
 * naming the run directory and the test file that made it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The file each test file appends its run directories to, one JSON line each. */
    verifyRunsList: string;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "trace-bench-verify-runs-"));
  const list = join(dir, "runs.jsonl");
  writeFileSync(list, "");
  project.provide("verifyRunsList", list);
  return async () => {
    const runs = readFileSync(list, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as { file: string; runDir: string });
    rmSync(dir, { recursive: true, force: true });
    if (runs.length === 0) return;
    const { verifyLog } = await import("../../src/engine/verify-log.js");
    const { EventReader } = await import("../../src/events/event-reader.js");
    const failures: string[] = [];
    for (const { file, runDir } of runs) {
      // A test's own cleanup may have removed it since: what is gone was checked by nothing before either.
      if (!existsSync(join(runDir, "events.db"))) continue;
      const reader = EventReader.open(runDir);
      try {
        const problems = verifyLog(reader.readAfter(0));
        if (problems.length > 0) failures.push(`replay --verify ${runDir} (made by ${file}): ${JSON.stringify(problems)}`);
      } finally {
        reader.close();
      }
    }
    if (failures.length > 0) throw new Error(`${failures.length} of ${runs.length} runs the end-to-end tests made fail replay --verify:\n${failures.join("\n")}`);
  };
}
