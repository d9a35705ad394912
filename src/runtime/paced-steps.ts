/**
 * Background work on a busy thread, in steps: each step runs from a timer, and when more is
 * waiting the next one comes after a rest as long as the step took, so that whatever else the
 * thread runs (a run's jobs) keeps at least half of it. The timer never keeps the process alive:
 * whoever owns the work brings it to its end in one go when it must (`cancel`, then its own loop).
 */
import { performance } from "node:perf_hooks";

export class PacedSteps {
  private timer: ReturnType<typeof setTimeout> | null = null;

  /**
   * @param step one step of the work; returns whether more is waiting.
   * @param failed what a step that threw becomes (no further step is scheduled after it).
   */
  constructor(
    private readonly step: () => boolean,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** A step in `delayMs`, unless one is scheduled already. */
  schedule(delayMs: number): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => this.run(), delayMs);
    this.timer.unref();
  }

  /** No step until the next `schedule`. */
  cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private run(): void {
    this.timer = null;
    const started = performance.now();
    let more: boolean;
    try {
      more = this.step();
    } catch (error) {
      return this.failed(error);
    }
    if (more) this.schedule(performance.now() - started);
  }
}
