/**
 * After each end-to-end test file: every run directory its tests made must pass `replay
 * --verify` (every job stream is what the job machine would have produced), unless the test
 * doctored that log on purpose.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, expect } from "vitest";
import { verifyLog } from "../../src/engine/verify-log.js";
import { EventReader } from "../../src/events/event-reader.js";
import { createdTempDirs, doctoredRunDirs } from "./cli.js";

function runDirsUnder(dir: string, depth = 4): string[] {
  if (depth === 0 || !existsSync(dir) || !statSync(dir).isDirectory()) return [];
  if (existsSync(join(dir, "events.db"))) return [dir];
  return readdirSync(dir).flatMap((name) => runDirsUnder(join(dir, name), depth - 1));
}

afterAll(() => {
  const doctored = new Set([...doctoredRunDirs].map((d) => resolve(d)));
  for (const runDir of createdTempDirs.flatMap((d) => runDirsUnder(d))) {
    if (doctored.has(resolve(runDir))) continue;
    const reader = EventReader.open(runDir);
    try {
      expect(verifyLog(reader.readAfter(0)), `replay --verify ${runDir}`).toEqual([]);
    } finally {
      reader.close();
    }
  }
});
