import { describe, expect, it } from "vitest";
import { parseCsv, parseCsvRecords } from "../../../src/codec/python-csv.js";
import { csvCell, csvLine } from "../../../src/events/projections/artifact-format.js";

describe("parseCsv", () => {
  it("reads back what the projections write: commas, quotes, newlines inside cells", () => {
    const cells = ["plain", "a,b", 'say "hi"', "two\r\nlines", "", "x\ny"];
    const text = csvLine(["h1", "h2", "h3", "h4", "h5", "h6"]) + csvLine(cells.map((c) => csvCell(c)));
    expect(parseCsv(text)).toEqual([["h1", "h2", "h3", "h4", "h5", "h6"], cells]);
  });

  it("records keyed by header; a short row's missing cells are empty; no trailing newline needed", () => {
    expect(parseCsvRecords("a,b,c\n1,2\n3,4,5")).toEqual([
      { a: "1", b: "2", c: "" },
      { a: "3", b: "4", c: "5" },
    ]);
  });
});
