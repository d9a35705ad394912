/**
 * Where KernelBench problems come from: the few reference models shipped with trace-bench
 * (`benchmarks/kernelbench/<name>.py`, ids `kernelbench:<name>`), or a KernelBench checkout given
 * as `--root` (its `KernelBench/level<L>/<N>_<Name>.py` files, ids `kernelbench:level<L>_problem<N>`,
 * the original's own naming of its preset problems). A root that is not a checkout (an LLM4AD
 * tasks root: `--root` is shared by the suites) leaves the shipped problems listed.
 *
 * Ids are checked against fixed patterns and files are only ever the ones listed, so no task id
 * reaches outside its root.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../../src/fs/package-root.js";

export interface KernelProblem {
  /** The full task id. */
  readonly taskId: string;
  /** The problem's own name (`relu`, `19_ReLU`). */
  readonly name: string;
  readonly file: string;
  /** KernelBench's level (1 for the shipped problems). */
  readonly level: number;
  /** KernelBench's problem id: the number of a checkout's file, or the 1-based rank of a shipped one. */
  readonly problemId: number;
}

export interface KernelProblemListing {
  /** Where the problems were read from. */
  readonly folder: string;
  readonly fromCheckout: boolean;
  readonly problems: readonly KernelProblem[];
}

export const bundledKernelRoot = (): string => join(packageRoot(), "benchmarks", "kernelbench");

const SHIPPED_NAME = /^[a-z][a-z0-9_]*$/;
const LEVEL_DIR = /^level(\d+)$/;
const CHECKOUT_FILE = /^(\d+)_([A-Za-z0-9_]+)\.py$/;

const isDirectory = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();

/** The folder holding `level1/`, `level2/`...: the checkout itself or its inner `KernelBench/`. */
function checkoutFolder(root: string): string | null {
  for (const folder of [join(root, "KernelBench"), root]) {
    if (isDirectory(folder) && readdirSync(folder).some((entry) => LEVEL_DIR.test(entry) && isDirectory(join(folder, entry)))) return folder;
  }
  return null;
}

function checkoutProblems(folder: string): KernelProblem[] {
  const levels = readdirSync(folder)
    .map((entry) => ({ entry, match: LEVEL_DIR.exec(entry) }))
    .filter((level) => level.match !== null && isDirectory(join(folder, level.entry)))
    .map((level) => ({ entry: level.entry, level: Number(level.match![1]) }))
    .sort((a, b) => a.level - b.level);
  return levels.flatMap(({ entry, level }) =>
    readdirSync(join(folder, entry))
      .map((file) => ({ file, match: CHECKOUT_FILE.exec(file) }))
      .filter((found) => found.match !== null)
      .map(({ file, match }) => ({ file, number: Number(match![1]) }))
      .sort((a, b) => a.number - b.number)
      .map(({ file, number }) => ({
        taskId: `kernelbench:level${level}_problem${number}`,
        name: file.slice(0, -".py".length),
        file: join(folder, entry, file),
        level,
        problemId: number,
      })),
  );
}

function shippedProblems(folder: string): KernelProblem[] {
  const names = readdirSync(folder)
    .filter((file) => file.endsWith(".py") && SHIPPED_NAME.test(file.slice(0, -".py".length)))
    .map((file) => file.slice(0, -".py".length))
    .sort();
  return names.map((name, index) => ({ taskId: `kernelbench:${name}`, name, file: join(folder, `${name}.py`), level: 1, problemId: index + 1 }));
}

/** The problems under `root` when it is a KernelBench checkout, else the shipped ones. */
export function discoverKernelProblems(root?: string): KernelProblemListing {
  const checkout = root === undefined ? null : checkoutFolder(root);
  if (checkout !== null) return { folder: checkout, fromCheckout: true, problems: checkoutProblems(checkout) };
  const folder = bundledKernelRoot();
  return { folder, fromCheckout: false, problems: isDirectory(folder) ? shippedProblems(folder) : [] };
}
