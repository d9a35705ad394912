import { defineConfig } from "vitest/config";

// Three tiers (npm run test:unit | test:int | test:e2e; npm test runs all of them). A project does
// not inherit the root's test options: each sets its own timeout, generous for a busy machine.
// TRACE_BENCH_TEST_CPU_LOG=<file> makes each test file log its CPU seconds (cpu-by-file.setup.ts).
export default defineConfig({
  test: {
    projects: [
      // Pure code: one module graph for all files (no per-file isolation), in one child process per core.
      // Not worker threads: isolated-vm (the JS sandbox, which some unit files load) aborts the whole
      // run when a thread that loaded it is torn down.
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"], pool: "forks", isolate: false, testTimeout: 30_000, setupFiles: ["test/support/cpu-by-file.setup.ts"] } },
      // Real SQLite and real HTTP in temp dirs.
      { test: { name: "int", include: ["test/int/**/*.test.ts"], pool: "forks", testTimeout: 30_000, setupFiles: ["test/support/cpu-by-file.setup.ts"] } },
      // The built CLI as child processes; every run they make must pass `replay --verify`. A file's shared
      // runs are made once in beforeAll, hence the hooks' long timeout.
      { test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], pool: "forks", testTimeout: 60_000, hookTimeout: 120_000, setupFiles: ["test/support/cpu-by-file.setup.ts", "test/support/verify-runs.setup.ts"] } },
    ],
  },
});
