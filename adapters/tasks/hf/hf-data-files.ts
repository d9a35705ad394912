/**
 * Where a split of a HuggingFace dataset is on this machine, without Python or the network:
 * 1. a data directory (`data_dir` eval kwarg, else TRACE_BENCH_HF_DATA_DIR) holding
 *    `<org>/<name>/<config>/<split>.jsonl` or `.parquet` (config "default" when the entry has
 *    none; `<org>/<name>/<split>.*` is accepted then too);
 * 2. the HuggingFace hub cache a user already has (HF_HUB_CACHE, else HF_HOME/hub, else
 *    ~/.cache/huggingface/hub): `datasets--<org>--<name>/snapshots/<rev>/…` Parquet shards, the
 *    revision `refs/main` names first, then the other snapshots newest first.
 * Every place tried is kept, so a dataset that is not found can say where it was looked for.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative, sep } from "node:path";

export interface SplitLocation {
  readonly datasetId: string;
  readonly config: string | null;
  readonly split: string;
}

export interface FoundSplit {
  /** Shards in reading order (one file for a data directory). */
  readonly files: readonly string[];
  readonly format: "jsonl" | "parquet";
}

export interface SplitSearch {
  readonly found: FoundSplit | null;
  /** The places tried, for the "not found" message. */
  readonly looked: readonly string[];
}

export function hubCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HUGGINGFACE_HUB_CACHE) return env.HUGGINGFACE_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, "hub");
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "huggingface", "hub");
}

export function findSplit(where: SplitLocation, dataDir: string | null, env: NodeJS.ProcessEnv): SplitSearch {
  const looked: string[] = [];
  if (dataDir !== null) {
    const base = join(dataDir, ...where.datasetId.split("/"));
    const folders = where.config === null ? [join(base, "default"), base] : [join(base, where.config)];
    for (const folder of folders) {
      for (const format of ["jsonl", "parquet"] as const) {
        const file = join(folder, `${where.split}.${format}`);
        looked.push(file);
        if (isFile(file)) return { found: { files: [file], format }, looked };
      }
    }
  }
  const repo = join(hubCacheDir(env), `datasets--${where.datasetId.split("/").join("--")}`);
  looked.push(`${join(repo, "snapshots")}${sep}*${sep}**${sep}*.parquet (hub cache)`);
  for (const snapshot of snapshotsOf(repo)) {
    const files = parquetShards(snapshot, where);
    if (files.length > 0) return { found: { files, format: "parquet" }, looked };
  }
  return { found: null, looked };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The snapshot `refs/main` names first, then the others, newest first. */
function snapshotsOf(repo: string): string[] {
  const dir = join(repo, "snapshots");
  if (!existsSync(dir)) return [];
  const revisions = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() || d.isSymbolicLink())
    .map((d) => join(dir, d.name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs || a.localeCompare(b));
  let main: string | null = null;
  try {
    main = join(dir, readFileSync(join(repo, "refs", "main"), "utf8").trim());
  } catch {
    main = null;
  }
  return main !== null && revisions.includes(main) ? [main, ...revisions.filter((r) => r !== main)] : revisions;
}

function parquetFilesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // The hub cache links snapshot files to blobs; statSync follows the link.
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".parquet") && isFile(path)) out.push(path);
    }
  };
  walk(root);
  return out;
}

/**
 * The shards of one split in a snapshot, in the hub's layouts: `<config>/<split>-0000N-of-…parquet`,
 * `data/<split>-…parquet` (no config), and the converted `<config>/<split>/000N.parquet`.
 */
function parquetShards(snapshot: string, where: SplitLocation): string[] {
  const candidates = parquetFilesUnder(snapshot).map((file) => ({ file, parts: relative(snapshot, file).split(sep) }));
  const isSplit = ({ parts }: { parts: string[] }) => {
    const name = parts[parts.length - 1]!;
    return name === `${where.split}.parquet` || name.startsWith(`${where.split}-`) || parts[parts.length - 2] === where.split;
  };
  const ofSplit = candidates.filter(isSplit);
  const config = where.config ?? "default";
  const inConfig = ofSplit.filter(({ parts }) => parts.slice(0, -1).includes(config));
  // A dataset with one config keeps its shards in data/ (or at the top), named by split only.
  const chosen = inConfig.length > 0 ? inConfig : where.config === null ? ofSplit : ofSplit.filter(({ parts }) => parts.length <= 2 && (parts.length === 1 || parts[0] === "data"));
  return chosen.map(({ file }) => file).sort();
}
