/**
 * The bundled knapsack task scores what its problem text asks to maximise (the packed value), so
 * a heuristic that packs more scores higher; the original's negated sign is an opt-in kwarg.
 */
import { afterEach, describe, expect, it } from "vitest";
import { bundledLlm4adRoot, Llm4adSuite } from "../../../adapters/tasks/llm4ad/llm4ad-suite.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";

const suites: Llm4adSuite[] = [];
afterEach(() => {
  for (const suite of suites.splice(0)) suite.close();
});

function suite(): Llm4adSuite {
  const s = new Llm4adSuite(bundledLlm4adRoot(), { workers: 1, memoryMb: 1024 });
  suites.push(s);
  return s;
}

const score = async (bundle: TaskBundle, code: string) => (await bundle.guide.evaluate(bundle.train_dataset.inputs[0], code, bundle.train_dataset.infos[0], {})).score;

/** Packs nothing: the worst heuristic there is. */
const PACK_NOTHING = "def select_next_item(remaining_capacity, remaining_items):\n    return None";

describe("bundled optimization/knapsack_construct", () => {
  it("by default a heuristic that packs more value scores higher, as the problem text says (maximise the packed value)", async () => {
    const bundle = await suite().load("llm4ad:optimization/knapsack_construct", {});
    expect(String(bundle.train_dataset.inputs[0])).toContain("maximise the total value packed");
    const template = await score(bundle, String(bundle.parameters[0]!.value));
    // The optimal (dynamic programming) alternative the task offers its stub.
    const optimal = await score(bundle, String(bundle.stubAlternatives!.__code![1]));
    expect(template).toBe(467.65625);
    expect(optimal).toBeGreaterThan(template);
    expect(await score(bundle, PACK_NOTHING)).toBe(0);
    expect(await score(bundle, PACK_NOTHING)).toBeLessThan(template);
  });

  it("upstream_sign: true gives the original's negated score (the template's −467.65625)", async () => {
    const bundle = await suite().load("llm4ad:optimization/knapsack_construct", { upstream_sign: true });
    expect(await score(bundle, String(bundle.parameters[0]!.value))).toBe(-467.65625);
  });
});
