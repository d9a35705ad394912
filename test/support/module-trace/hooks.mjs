// Module-resolution hooks (run in Node's hooks thread, see register.mjs): every module that is
// loaded through the ESM loader is appended, as its URL, to the file named by the data.
import { appendFileSync } from "node:fs";

let logFile;

export function initialize(data) {
  logFile = data.logFile;
}

export async function load(url, context, nextLoad) {
  // Written before the module runs, so a process that exits early has still listed it.
  appendFileSync(logFile, `${url}\n`);
  return nextLoad(url, context);
}
