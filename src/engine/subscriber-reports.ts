/**
 * What a writing session's subscribers report (a mirror or projection that cannot write, one that
 * caught up again), told as it happens, except where a full disk would make it noise. The derived
 * files share the run directory's disk with the log: once the log cannot write, the run stops with
 * one line that names the cause and the fix (exit 2), and the subscribers' failures from the same
 * full disk only repeat it, a line each (issue 32, item 14). So:
 *
 * - once the log has failed, nothing more is told (the resuming run brings every file level);
 * - a subscriber that fails for want of space while the log still writes is held, with whatever is
 *   reported after it, until the session settles at its finish: dropped if the log failed by then,
 *   told otherwise (the run goes on, and its closing says which reports are behind).
 *
 * Any other failure while the log is fine is told at once, as before.
 */

/** A report with the error behind it, if any (which says whether the disk is full). */
export type SubscriberReport = (text: string, cause?: unknown) => void;

export class SubscriberReports {
  private logFailed = false;
  private settled = false;
  /** The reports held since a subscriber found the disk full (null: none held). */
  private held: (() => void)[] | null = null;

  /** A report that reaches `sink` through this gate. */
  to(sink: (text: string) => void): SubscriberReport {
    return (text, cause) => this.tell(() => sink(text), cause);
  }

  /** The log cannot be written any more: the run stops with its own line, which says it all. */
  logHasFailed(): void {
    this.logFailed = true;
    this.held = null;
  }

  /** The session finished: what was held is told unless the log failed; later reports are told at once. */
  settle(): void {
    const held = this.held ?? [];
    this.held = null;
    this.settled = true;
    if (!this.logFailed) for (const say of held) say();
  }

  private tell(say: () => void, cause: unknown): void {
    if (this.logFailed) return;
    if (this.held === null && !this.settled && isDiskFull(cause)) this.held = [];
    if (this.held !== null) this.held.push(say);
    else say();
  }
}

/** The file system's or SQLite's "no space left". */
function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return code === "ENOSPC" || code === "SQLITE_FULL";
}
