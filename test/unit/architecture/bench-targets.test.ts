/**
 * The bench's targets live in docs/performance.md ("## Targets"), not in the bench scripts: the
 * table reads, every key in it is one a script names, the scripts carry no threshold of their own,
 * and the report judges a row by the table.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BENCH = join(ROOT, "bench");

interface Target {
  readonly op: "<=" | ">=";
  readonly value: number;
  readonly unit: string;
}
interface Row {
  readonly id: string;
  readonly measurement: string;
  readonly value: number;
  readonly unit: string;
  readonly digits: number;
  readonly key?: string;
  readonly target?: Target | null;
  readonly targetProblem?: string;
}
interface Report {
  readTargets(path?: string): Map<string, Target>;
  withTargets(rows: readonly Row[], targets?: Map<string, Target>): Row[];
  verdict(row: Row): string;
}

// A specifier the compiler does not resolve: bench/ is plain JavaScript, without declarations.
const reportUrl = new URL("../../../bench/report.mjs", import.meta.url).href;
const report = async () => (await import(reportUrl)) as Report;
const scripts = () => readdirSync(BENCH).filter((name) => name.endsWith(".mjs"));

describe("the bench's targets", () => {
  it("the table in docs/performance.md reads, and a script names each of its keys", async () => {
    const targets = (await report()).readTargets();
    expect(targets.size).toBeGreaterThan(10);
    const sources = scripts()
      .map((name) => readFileSync(join(BENCH, name), "utf8"))
      .join("\n");
    expect([...targets.keys()].filter((key) => !sources.includes(`"${key}"`))).toEqual([]);
  });

  it("no bench script writes a fixed threshold of its own", () => {
    // A target the script computes (a relation between its own figures) is written with a name, not a number.
    const fixed = /\{\s*op:\s*"[<>]=",\s*value:\s*[\d.]/;
    expect(scripts().filter((name) => fixed.test(readFileSync(join(BENCH, name), "utf8")))).toEqual([]);
  });

  it("a row is judged by its key's target, and a key the table lacks or a unit it does not share is said", async () => {
    const { readTargets, withTargets, verdict } = await report();
    const startup = readTargets().get("startup")!;
    const row = (value: number, key: string, unit = startup.unit): Row => ({ id: "6", measurement: "start-up", value, unit, digits: 0, key });
    const below = startup.value - 1;
    const above = startup.value + 1;
    const [met, missed, unknown, otherUnit] = withTargets([row(startup.op === "<=" ? below : above, "startup"), row(startup.op === "<=" ? above : below, "startup"), row(1, "no-such-key"), row(1, "startup", "furlongs")]);
    expect([met, missed, unknown, otherUnit].map((r) => verdict(r!))).toEqual(["ok", "MISSED", "NO TARGET", "NO TARGET"]);
    expect(unknown!.targetProblem).toContain("no-such-key");
    expect(otherUnit!.targetProblem).toContain("furlongs");
  });
});
