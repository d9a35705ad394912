/**
 * How a job's attempt is stopped: one signal for the whole attempt (its deadline or the run's
 * end aborts it) and the training's own, which the attempt's also aborts and a spent budget
 * aborts alone (the job then still scores its best state).
 *
 * `until` lets a phase's promise end when the attempt's signal is aborted, through one listener
 * for the whole attempt: each phase adding and removing a listener of its own (and a listener
 * linking the two signals) was a few percent of a trivial job's time.
 */
export class AttemptAbort {
  private readonly attempt = new AbortController();
  private readonly training = new AbortController();
  /** The rejections of the phases under way. */
  private readonly waiting = new Set<(reason: Error) => void>();

  constructor() {
    this.attempt.signal.addEventListener(
      "abort",
      () => {
        const reason = this.attempt.signal.reason as Error;
        this.training.abort(reason);
        for (const reject of this.waiting) reject(reason);
        this.waiting.clear();
      },
      { once: true },
    );
  }

  get signal(): AbortSignal {
    return this.attempt.signal;
  }

  get trainingSignal(): AbortSignal {
    return this.training.signal;
  }

  abort(reason: Error): void {
    this.attempt.abort(reason);
  }

  abortTraining(reason: Error): void {
    this.training.abort(reason);
  }

  /**
   * `promise`, or its end when the attempt's signal is aborted: a task or trainer that ignores
   * the signal still stops holding the job at its deadline (what it does later is never recorded).
   */
  until<A>(promise: Promise<A>): Promise<A> {
    if (this.attempt.signal.aborted) return Promise.reject(this.attempt.signal.reason as Error);
    return new Promise<A>((resolve, reject) => {
      this.waiting.add(reject);
      promise.then(
        (value) => {
          this.waiting.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.waiting.delete(reject);
          reject(error as Error);
        },
      );
    });
  }
}
