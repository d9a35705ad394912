import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EventStore } from "../../../src/events/event-store.js";
import { mirrorLine } from "../../../src/events/log-database.js";
import { jobMirrorPath, MirrorWriter, RUN_MIRROR } from "../../../src/events/mirror-writer.js";
import { tempDir } from "../../support/cli.js";
import { appendEvents, finishedJob, RUN_ID, runStarted } from "../../support/events.js";

const stores: EventStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

/** A log with one finished job, and mirrors written live by a MirrorWriter subscriber. */
function loggedRun(): { dir: string; store: EventStore } {
  const dir = tempDir();
  const store = EventStore.open(dir, RUN_ID, { command: "test" });
  stores.push(store);
  const mirrors = new MirrorWriter(dir, store);
  mirrors.handle(appendEvents(store, [runStarted(["a", "b"]), ...finishedJob("a")]));
  mirrors.close();
  return { dir, store };
}

/** What each mirror must hold: the log's rows, byte for byte. */
function expectMirrorsMatch(dir: string, store: EventStore): void {
  const rows = store.rowsAfter(0);
  expect(readFileSync(join(dir, RUN_MIRROR), "utf8")).toBe(rows.map(mirrorLine).join(""));
  expect(readFileSync(jobMirrorPath(dir, "a"), "utf8")).toBe(rows.filter((r) => r.job_id === "a").map(mirrorLine).join(""));
}

const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean);
const rewrite = (path: string, keep: string[]) => writeFileSync(path, keep.map((l) => `${l}\n`).join(""));

describe("MirrorWriter: every mirror equals the log after catchUp", () => {
  it("live appends write the same bytes the log stores", () => {
    const { dir, store } = loggedRun();
    expectMirrorsMatch(dir, store);
  });

  it("completes a mirror that lags behind the log (a crash between commit and mirror write)", () => {
    const { dir, store } = loggedRun();
    for (const path of [join(dir, RUN_MIRROR), jobMirrorPath(dir, "a")]) rewrite(path, lines(path).slice(0, -3));
    new MirrorWriter(dir, store).catchUp();
    expectMirrorsMatch(dir, store);
  });

  it("completes a torn (half-written) last line", () => {
    const { dir, store } = loggedRun();
    const path = jobMirrorPath(dir, "a");
    writeFileSync(path, lines(path).slice(0, -1).map((l) => `${l}\n`).join("") + '{"seq":11,"v":2,"str');
    appendFileSync(join(dir, RUN_MIRROR), '{"seq":12,"ty');
    new MirrorWriter(dir, store).catchUp();
    expectMirrorsMatch(dir, store);
  });

  it("rewrites a mirror with a corrupt line in the middle, a duplicated line, or lines the log does not hold", () => {
    const { dir, store } = loggedRun();
    const run = lines(join(dir, RUN_MIRROR));
    rewrite(join(dir, RUN_MIRROR), [...run.slice(0, 4), run[4]!.replace('"attempt":1', '"attempt":7'), ...run.slice(5)]);
    const job = lines(jobMirrorPath(dir, "a"));
    rewrite(jobMirrorPath(dir, "a"), [...job.slice(0, 3), job[2]!, ...job.slice(3)]);
    new MirrorWriter(dir, store).catchUp();
    expectMirrorsMatch(dir, store);
    appendFileSync(jobMirrorPath(dir, "a"), '{"seq":99,"type":"JobQueued"}\n');
    writeFileSync(join(dir, RUN_MIRROR), "garbage\n");
    new MirrorWriter(dir, store).catchUp();
    expectMirrorsMatch(dir, store);
  });

  it("a catch-up whose stream positions were read before the writer committed more keeps each job's mirror whole", () => {
    const { dir, store } = loggedRun();
    rewrite(jobMirrorPath(dir, "a"), lines(jobMirrorPath(dir, "a")).slice(0, -2));
    const positions = store.lastPositions(); // read at the start, as a reopening worker does
    appendEvents(store, finishedJob("a", 2)); // committed while it reads
    const catchUp = new MirrorWriter(dir, store).startCatchUp(positions);
    for (const row of store.rowsAfter(0)) catchUp.add(row);
    catchUp.finish();
    expectMirrorsMatch(dir, store);
  });
});
