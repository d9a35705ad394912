import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Three tiers (npm run test:unit | test:int | test:e2e; npm test runs all of them). A project does
// not inherit the root's test options: each sets its own timeout, generous for a busy machine.
// TRACE_BENCH_TEST_CPU_LOG=<file> makes each test file log its CPU seconds (cpu-by-file.setup.ts).
export default defineConfig({
  test: {
    // Vitest 3 sizes the one pool all projects share from the root's settings only (a project's
    // maxWorkers is not read). Its default, one worker fewer than the cores, is a single file at a
    // time on a 2-core machine, while an int or e2e file spends much of its time waiting on a child
    // process or a socket: two files at once, or one per core.
    maxWorkers: Math.max(2, availableParallelism()),
    minWorkers: 1,
    projects: [
      // Pure code: one module graph for all files, in one child process (singleFork, which vitest 3
      // does read per project; the projects' `isolate: false` alone is not: every file got a fresh
      // process, and starting and importing were most of the tier's CPU). Its files run after the
      // int and e2e files. Not worker threads: isolated-vm (the JS sandbox) aborts the whole run when
      // a thread that loaded it is torn down.
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"], pool: "forks", isolate: false, poolOptions: { forks: { singleFork: true } }, testTimeout: 30_000, setupFiles: ["test/support/cpu-by-file.setup.ts"] } },
      // Real SQLite and real HTTP in temp dirs; a fresh process per file.
      { test: { name: "int", include: ["test/int/**/*.test.ts"], pool: "forks", testTimeout: 30_000, setupFiles: ["test/support/cpu-by-file.setup.ts"] } },
      // The built CLI as child processes; every run they make must pass `replay --verify` (checked
      // at the tier's end, in vitest's process: verify-runs.global.ts). A file's shared
      // runs are made once in beforeAll, hence the hooks' long timeout. A test's timeout is there to
      // catch a hang, not to time it: each child has its own limit, and a test of three CLI runs took
      // over 60 s at a load average of 20 on 2 cores.
      { test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], pool: "forks", testTimeout: 180_000, hookTimeout: 180_000, setupFiles: ["test/support/cpu-by-file.setup.ts", "test/support/verify-runs.setup.ts"], globalSetup: ["test/support/verify-runs.global.ts"] } },
    ],
  },
});
