import { describe, expect, it } from "vitest";
import { AttemptAbort } from "../../../src/engine/attempt-abort.js";

const never = () => new Promise<never>(() => {});

describe("AttemptAbort", () => {
  it("ends every phase under way with the abort's reason, and aborts training with it", async () => {
    const abort = new AttemptAbort();
    const first = abort.until(never());
    const second = abort.until(never());
    const reason = new Error("job_timeout");
    abort.abort(reason);
    await expect(first).rejects.toBe(reason);
    await expect(second).rejects.toBe(reason);
    expect(abort.trainingSignal.aborted).toBe(true);
    expect(abort.trainingSignal.reason).toBe(reason);
    // A phase started after the abort ends at once.
    await expect(abort.until(Promise.resolve(1))).rejects.toBe(reason);
  });

  it("passes a phase's own value or error through", async () => {
    const abort = new AttemptAbort();
    await expect(abort.until(Promise.resolve(7))).resolves.toBe(7);
    const failure = new Error("task failed");
    await expect(abort.until(Promise.reject(failure))).rejects.toBe(failure);
    expect(abort.signal.aborted).toBe(false);
  });

  it("a spent budget aborts training alone: phases go on", async () => {
    const abort = new AttemptAbort();
    const budget = new Error("budget_exhausted");
    abort.abortTraining(budget);
    expect(abort.trainingSignal.reason).toBe(budget);
    expect(abort.signal.aborted).toBe(false);
    await expect(abort.until(Promise.resolve("final evaluation"))).resolves.toBe("final evaluation");
    // The attempt's own abort later does not replace the training's reason.
    abort.abort(new Error("cancelled"));
    expect(abort.trainingSignal.reason).toBe(budget);
  });
});
