/** A large JSON artifact rendered piece by piece is byte for byte the one rendered whole. */
import { describe, expect, it } from "vitest";
import { PyFloat } from "../../../src/codec/python-json.js";
import { jsonArtifact } from "../../../src/events/projections/artifact-format.js";
import { jsonArtifactPieces } from "../../../src/events/projections/text-pieces.js";

const items = [
  { job_id: "a", score: new PyFloat(1), nested: { list: [1, 2.5, "x"], empty: {}, none: [] }, api_key: "sk-secret", maybe: undefined },
  { job_id: "b\u00e9\n", score: Number.NaN, values: [{ deep: [[]] }] },
  [],
  "plain",
  null,
];

describe("jsonArtifactPieces", () => {
  for (const ensureAscii of [false, true]) {
    it(`renders what jsonArtifact renders (ensureAscii ${ensureAscii}), each item sanitized`, () => {
      const head = { run_id: "r1", token: "hidden", nothing: undefined, notes: { a: 1, b: [new PyFloat(2)] } };
      const tail = { tags: ["t\u00e9"], after: {} };
      const pieces = jsonArtifactPieces(head, "jobs", () => items, tail, { ensureAscii });
      const whole = jsonArtifact({ ...head, jobs: items, ...tail }, { ensureAscii });
      expect(pieces.text()).toBe(whole);
      expect(whole).toContain("***REDACTED***");
      expect([...pieces.pieces()].length).toBeGreaterThan(items.length); // really in pieces
    });
  }

  it("an empty list, a list last, and a list that is read twice", () => {
    const pieces = jsonArtifactPieces({ run_dir: "." }, "jobs", () => []);
    expect(pieces.text()).toBe(jsonArtifact({ run_dir: ".", jobs: [] }));
    const last = jsonArtifactPieces({ run_dir: "." }, "jobs", () => items);
    expect(last.text()).toBe(jsonArtifact({ run_dir: ".", jobs: items }));
    expect(last.text()).toBe(last.text());
  });
});
