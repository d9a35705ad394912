/**
 * Parity scenario ps-presets: SequentialUpdate, SequentialSearch and BeamSearch on A1 (one example,
 * target 3), OptoPrimeV2 memory 5, num_epochs 2. On the pinned commit all three raise TypeError
 * before any call (they call the keyword-only train positionally); we run what the upstream fix
 * (not pinned) records. SequentialSearch proposes 1 candidate per step by default, as there.
 */
import { describe, expect, it } from "vitest";
import { readPresetOptions, type PresetId } from "../../../../src/opt/trainers/priority-search-presets.js";
import { a1, fixture, label, runRecorded, type RecordedRun } from "./support.js";

const recorded = fixture<{ with_upstream_positional_fix_NOT_PINNED: Record<string, RecordedRun> }>("ps-presets");

describe("parity ps-presets", () => {
  for (const [name, run] of Object.entries(recorded.with_upstream_positional_fix_NOT_PINNED)) {
    const preset = name.split("_")[0] as PresetId;
    it(`ps-presets ${name}: ${run.calls.length} calls, memory rounds ${JSON.stringify(run.calls.map((c) => c.memory_rounds))}, final ${run.final.values.value}`, async () => {
      const { options } = readPresetOptions(run.train_kwargs, preset);
      const got = await runRecorded(a1([0], [3]), run.calls, options, { memory_size: 5 });
      expect(got.remaining).toBe(0);
      expect(got.memoryRounds).toEqual(run.calls.map((c) => c.memory_rounds));
      expect(got.shown).toEqual(run.calls.map((c) => c.shown[0]));
      run.iterations.slice(1).forEach((it, i) => {
        const s = got.snapshots[i]!;
        expect([label(s.best.id), s.best.values, s.best.mean]).toEqual([it.best.label, it.best.values, it.best.mean_score]);
        expect(s.exploration.map((c) => label(c.id))).toEqual(it.exploration);
      });
      expect(got.values).toEqual(run.final.values);
    });
  }
});
