// The file system's own cost of a run directory's files: how long writing one small file
// atomically (a temp file, then a rename into a job folder) takes where the runs live. Replay
// writes about 11 such files per job; this is the floor under its per-event figure, before any
// rendering. Informational: it measures the disk and kernel, not trace-bench.
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

/** Microseconds per file: `jobs` job folders of `filesPerJob` 1.2 KB files each, written through `dir/.tmp`; best of `tries`. */
export function fileFloorMicros(dir, { jobs = 500, filesPerJob = 11, tries = 3 } = {}) {
  const text = "x".repeat(1200);
  const times = [];
  try {
    mkdirSync(join(dir, ".tmp"), { recursive: true });
    for (let j = 0; j < jobs; j++) mkdirSync(join(dir, "jobs", String(j), "artifacts"), { recursive: true });
    for (let t = 0; t < tries; t++) {
      let n = 0;
      const started = performance.now();
      for (let j = 0; j < jobs; j++) {
        for (let f = 0; f < filesPerJob; f++) {
          const temp = join(dir, ".tmp", String(n++));
          writeFileSync(temp, text);
          renameSync(temp, join(dir, "jobs", String(j), f < 4 ? `f${f}` : `artifacts/f${f}`));
        }
      }
      times.push(((performance.now() - started) * 1000) / (jobs * filesPerJob));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return Math.min(...times);
}
