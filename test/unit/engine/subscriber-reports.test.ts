import { describe, expect, it } from "vitest";
import { SubscriberReports } from "../../../src/engine/subscriber-reports.js";

const noSpace = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
const sqliteFull = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
const permission = Object.assign(new Error("EACCES: permission denied, open 'results.csv'"), { code: "EACCES" });

function gate() {
  const told: string[] = [];
  const reports = new SubscriberReports();
  return { reports, report: reports.to((text) => told.push(text)), told };
}

describe("SubscriberReports: what the subscribers say while the disk fills", () => {
  it("tells a failure at once while the log is fine and the disk is not full", () => {
    const { reports, report, told } = gate();
    report("projections: EACCES (the log is intact; retrying)", permission);
    expect(told).toEqual(["projections: EACCES (the log is intact; retrying)"]);
    reports.settle();
    expect(told).toHaveLength(1);
  });

  it("holds a full-disk failure, and what follows it, until the finish when the log kept writing", () => {
    const { reports, report, told } = gate();
    report("mirrors: fine so far");
    report("projections: ENOSPC (the log is intact; retrying)", noSpace);
    report("projections: caught up with the log");
    expect(told).toEqual(["mirrors: fine so far"]);
    reports.settle();
    expect(told).toEqual(["mirrors: fine so far", "projections: ENOSPC (the log is intact; retrying)", "projections: caught up with the log"]);
    report("finished-run record: database or disk is full", sqliteFull); // after the finish: told at once
    expect(told.at(-1)).toBe("finished-run record: database or disk is full");
  });

  it("drops what it held, and says nothing more, once the log has failed: the run's own line says it", () => {
    const { reports, report, told } = gate();
    report("projections: ENOSPC (the log is intact; retrying)", noSpace);
    reports.logHasFailed();
    report("projections: ENOSPC", noSpace);
    report("console: cannot draw", new Error("cannot draw"));
    reports.settle();
    expect(told).toEqual([]);
  });
});
