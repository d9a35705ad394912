#!/usr/bin/env node
// Bundles the compiled CLI (dist/src, from tsc) into dist/cli: one file per entry point and shared
// chunks for what verbs load on demand. Node 20's ESM loader pays for every module it resolves and
// reads; the run verb's ~660 modules took about 0.5 s to load, its bundle about a tenth of that.
//
// Entry points: the CLI and the job thread (each started from
// `./<name>.js` next to its own chunk, so every output is in one flat folder).
// Kept as packages: better-sqlite3 (native), and the adapters that load only when a run uses
// them (openai, execa, the inspector and ws, bullmq and ioredis for --executor bullmq), so what a verb loads stays visible as packages, and
// isolated-vm (native, loaded on the first trainable JavaScript call).
// The metafile (dist/cli/metafile.json) says which source modules each output holds; the test of
// lazily loaded adapters reads it.
import { build } from "esbuild";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "dist", "cli");

rmSync(OUT, { recursive: true, force: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: ["dist/src/cli/main.js", "dist/src/runtime/job-thread-worker.js"],
  entryNames: "[name]",
  chunkNames: "chunk-[hash]",
  outdir: OUT,
  bundle: true,
  splitting: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: ["better-sqlite3", "isolated-vm", "openai", "execa", "@statelyai/inspect", "ws", "bullmq", "ioredis"],
  // Bundled CommonJS packages call require(): give every output one.
  banner: { js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);' },
  sourcemap: "linked",
  metafile: true,
  logLevel: "warning",
});
writeFileSync(join(OUT, "metafile.json"), JSON.stringify(result.metafile));
