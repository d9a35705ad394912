/**
 * validate's notes for kwargs the pinned Python harness silently ignores (issue #13 item 2; parity
 * scenarios ps-options harness_batch_size_alias, ucbsearch harness_validate_set_and_constructor_kwargs,
 * ps-presets, gepa-names-harness): src/engine/config-checks.ts comparabilityNotes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadRunConfig } from "../../../src/config/run-config.js";
import { comparabilityNotes } from "../../../src/engine/config-checks.js";

const tmp = mkdtempSync(join(tmpdir(), "trace-bench-notes-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function notesFor(yaml: string) {
  const path = join(tmp, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, `mode: stub\ntasks: [internal:numeric_param]\n${yaml}`);
  return comparabilityNotes(loadRunConfig(path)).map((n) => `${n.text} [${n.where.replace(`${path}:`, "line ")}]`);
}

describe("comparabilityNotes", () => {
  it("notes PrioritySearch batch_size (the harness renames it train_batch_size, which PrioritySearch ignores), once per key, at its line", () => {
    const notes = notesFor("trainers:\n  - id: PrioritySearch\n    params_variants:\n      - batch_size: 2\n      - batch_size: 4\n        ps_steps: 2\n");
    expect(notes).toEqual([
      "trainer PrioritySearch: batch_size is honoured here but ignored by the Python harness (the harness renames it train_batch_size, which PrioritySearch does not know, and runs batch 1): this variant's results are not comparable with the Python harness [line 6]",
    ]);
  });

  it("notes UCBSearchAlgorithm max_buffer_size and ucb_exploration_factor given as params (constructor-only in the reference)", () => {
    const notes = notesFor("trainers:\n  - id: UCBSearchAlgorithm\n    params_variants:\n      - max_buffer_size: 2\n        ucb_exploration_factor: 0.1\n        num_search_iterations: 4\n");
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^trainer UCBSearchAlgorithm: max_buffer_size is honoured here but ignored by the Python harness \(.*buffer 10\)\): this variant's results are not comparable/);
    expect(notes[1]).toMatch(/^trainer UCBSearchAlgorithm: ucb_exploration_factor .*factor 1\.0/);
  });

  it("notes the presets' memory_size, default_score and validate_proposals (forwarded to the optimizer there)", () => {
    const notes = notesFor("trainers:\n  - id: SequentialSearch\n    params_variants:\n      - validate_proposals: false\n        num_proposals: 3\n");
    expect(notes).toEqual([expect.stringMatching(/^trainer SequentialSearch: validate_proposals is honoured here but ignored by the Python harness \(the preset passes it on to the optimizer/)]);
  });

  it("notes that the harness runs ParetobasedPS for the GEPA names (their class names included), once per trainer", () => {
    const notes = notesFor("trainers:\n  - id: GEPAUCBSearch\n    params_variants:\n      - gepa_iters: 1\n      - gepa_iters: 2\n");
    expect(notes).toEqual([expect.stringMatching(/^trainer GEPA-UCB: runs the GEPA algorithm here; the Python harness runs ParetobasedPS for this name/)]);
  });

  it("says nothing where the harness runs the job as configured", () => {
    expect(notesFor("trainers:\n  - id: PrioritySearch\n    params_variants:\n      - ps_steps: 2\n        num_candidates: 3\n  - id: UCBSearchAlgorithm\n  - id: ParetobasedPS\n    params_variants:\n      - batch_size: 2\n")).toEqual([]);
  });
});
