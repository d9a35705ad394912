#!/usr/bin/env node
// `npm test` builds only when dist/ was not built from the sources as they are now, so `npm ci &&
// npm test` (whose install already ran `npm run build`) builds once, not twice.
//
//   node scripts/build-stamp.mjs begin   before a build: forget the stamp, hash the inputs as they are now
//   node scripts/build-stamp.mjs end     after a build that succeeded: that hash becomes the stamp
//   node scripts/build-stamp.mjs build   run `npm run build` unless dist/ holds the current hash
//
// The hash covers the contents of every file the build reads (sources, tsconfigs, the bundler
// script, package.json and the lock file, for the compiler's and bundler's versions), so an edit, a
// checkout or a dependency change rebuilds; timestamps play no part.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const STAMP = join(ROOT, "dist", "build-inputs.sha256");
// The inputs as the build began: an edit made while it runs is not in dist/, so it must not be in the stamp.
const PENDING = join(ROOT, "dist", "build-inputs.pending");
const INPUT_DIRS = ["src", "machines", "adapters"];
const INPUT_FILES = ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "scripts/bundle-cli.mjs"];

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "__pycache__" ? [] : filesUnder(path);
      return entry.isFile() ? [path] : [];
    });
}

function inputsHash() {
  const hash = createHash("sha256");
  const files = [...INPUT_DIRS.flatMap((dir) => filesUnder(join(ROOT, dir))), ...INPUT_FILES.map((file) => join(ROOT, file)).filter((file) => existsSync(file))];
  for (const file of files) {
    hash.update(`${relative(ROOT, file)}\0`);
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const verb = process.argv[2];
if (verb === "begin") {
  rmSync(STAMP, { force: true });
  mkdirSync(dirname(PENDING), { recursive: true });
  writeFileSync(PENDING, `${inputsHash()}\n`);
} else if (verb === "end") {
  renameSync(PENDING, STAMP);
} else if (verb === "build") {
  const built = existsSync(STAMP) ? readFileSync(STAMP, "utf8").trim() : null;
  if (built !== inputsHash()) {
    const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath, "run", "build"]] : ["npm", ["run", "build"]];
    const result = spawnSync(npm[0], npm[1], { cwd: ROOT, stdio: "inherit" });
    process.exit(result.status ?? 1);
  }
  console.log("dist/ is built from the current sources (dist/build-inputs.sha256); not building again");
} else {
  console.error("usage: node scripts/build-stamp.mjs begin|end|build");
  process.exit(2);
}
