/**
 * A run's derived files kept level with its log: the jsonl mirrors and the projections
 * (results.csv, summary, each job's files). They are kept on the writer's thread, but off the
 * jobs' path: `handle` queues the committed events it is handed (the very objects the commit
 * made, with the payload as stored: one pass from commit to file, nothing read back or decoded
 * twice) and schedules a look; the work comes in paced steps (src/runtime/paced-steps.ts: one
 * batch of events rendered and written, then a rest as long as the step took), so that while
 * jobs run they keep at least half the thread. The files are rendered from the run's one view
 * store, which the writer folded the events into at their commit (`DerivedFilesSetup.state`):
 * nothing is folded twice. The log itself (a read-only connection of its own) is read only when
 * the queue cannot say what was committed: on reopening, after a gap or a failure (`catchUp`), and
 * when the queue would outgrow its bound (a follower far behind holds one batch, never the
 * backlog). Run-level files and jobs that lag are written at `finish`, which brings everything level.
 *
 * They had a worker thread of their own, whose isolate and heap cost more memory than keeping them
 * beside the jobs, at the price of the second core's time (docs/performance.md: ledger, d42e845).
 *
 * On a reopened run it first does what opening a run always did, in the same steps: one read of
 * the log folds the state and checks every mirror against it (repairing what a crash left);
 * projections behind their recorded position are rewritten at `finish`. The position the
 * projections then reflect is handed back for the writer to record: it is the one that writes
 * the log.
 */
import { PacedSteps } from "../runtime/paced-steps.js";
import type { Subscriber } from "./event-bus.js";
import { EventBus } from "./event-bus.js";
import { EventReader } from "./event-reader.js";
import { decodeEvent, jobStream, type StoredEvent } from "./event-schema.js";
import { payloadOfRow } from "./event-store.js";
import { payloadOf, RecordedEvent, storedPayload, type EventRow } from "./log-database.js";
import { MirrorWriter, type MirrorCatchUp } from "./mirror-writer.js";
import { PROJECTIONS, ProjectionSubscriber } from "./projection-subscriber.js";
import { ProjectionWriter } from "./projection-writer.js";
import type { RunState } from "./run-state.js";

export interface DerivedFilesSetup {
  readonly runDir: string;
  /**
   * The run's views, which the writer folds every commit into before the derived files hear of
   * it; they render from them, and drop each job's details once its files are written.
   */
  readonly state: RunState;
  /** The log was empty when the writer opened it: nothing on disk is a projection yet. */
  readonly fresh: boolean;
  /** How often run-level files are refreshed while jobs finish (ms). */
  readonly refreshMs?: number;
}

export interface DerivedFilesOutcome {
  /** Subscribers whose files are behind the log (`trace-bench replay` rebuilds them). */
  readonly behind: string[];
  /** The log position the projections now reflect in full (to record), or null. */
  readonly projectionsAt: number | null;
}

/** How long commits gather before the first step (the files trail the log by about this much). */
const NOTIFY_EVERY_MS = 50;
/**
 * Events read and handed on per step: a follower that fell behind (jobs commit faster than their
 * files are written) holds one batch in memory, never the backlog; a batch is alive while its
 * jobs' files are written, so a small one dies young.
 */
const FOLLOW_BATCH = 250;
/** Rows of a reopened run's log folded per step (a row is only folded and compared, not rendered). */
const REOPEN_BATCH = 1000;
/**
 * Committed events queued beyond this are dropped and read from the log instead: what a follower
 * far behind holds stays bounded (a few batches), whatever the backlog.
 */
const MAX_QUEUED = 8 * FOLLOW_BATCH;
const ALL_BEHIND = ["mirrors", "projections"];

/**
 * A row read back from the log, as the writer's commit would have handed it over: the payload
 * text travels on the event (for the mirrors), not in a table beside it. A module-wide WeakMap
 * of every event read grew with the events read between two full collections and V8 does not
 * shrink one the collector emptied (docs/performance.md: ledger, c9589eb).
 */
const decoded = (row: EventRow) =>
  asRead(new RecordedEvent(row.seq, row.v, row.stream, row.position, row.type, row.run_id, row.job_id, row.ts, row.data, payloadOfRow(row)) as unknown as StoredEvent);

/**
 * A committed event as a reader of the log gets it (an older payload shape upgraded), keeping the
 * payload as stored for the mirrors: usually the event itself.
 */
const asRead = (event: StoredEvent) => {
  const read = decodeEvent(event);
  if (read !== event) storedPayload.set(read, payloadOf(event));
  return read;
};

/** Everything the follower holds while it runs: dropped as a whole when it stops. */
class LogFollower {
  readonly reader: EventReader;
  readonly state: RunState;
  readonly mirrors: MirrorWriter;
  readonly projections: ProjectionSubscriber;
  /** Subscribers whose repair on reopening failed: retried with the next events, and at the finish. */
  readonly behindAtStart: string[] = [];
  /** The position the projections reflect once `catchUp` wrote them; the writer records it. */
  projectionsAt: number | null = null;
  /** The last seq handed on to the subscribers. */
  seen = 0;
  /** Committed events handed over and not yet handed on, in seq order (from `queueStart`). */
  private queue: StoredEvent[] = [];
  private queueStart = 0;
  /** The queue cannot say what was committed (reopening, a gap, a failure, an overflow): the log is read until it is level. */
  private fromLog = true;
  /** A reopened run's fold, while it lasts. */
  reopening: ReopenFold | null = null;
  bus: EventBus | null = null;

  constructor(
    setup: DerivedFilesSetup,
    readonly report: (text: string, cause?: unknown) => void,
  ) {
    this.reader = EventReader.open(setup.runDir);
    this.state = setup.state;
    this.mirrors = new MirrorWriter(setup.runDir, this.reader);
    this.projections = new ProjectionSubscriber(
      this.state,
      new ProjectionWriter(setup.runDir, setup.fresh),
      {
        jobHistory: (jobId) => this.reader.readStream(jobStream(jobId)),
        subscriberPosition: (name) => this.reader.subscriberPosition(name),
        recordSubscriberPosition: (name, position) => {
          if (name === PROJECTIONS) this.projectionsAt = position;
        },
      },
      setup.refreshMs ?? 1000,
    );
    if (setup.fresh) {
      this.fromLog = false;
      this.startFollowing();
    } else this.reopening = new ReopenFold(this);
    // Each job's details are kept until its files are written (see `readFromLog` for when not).
    this.state.releaseFinished = this.fromLog;
  }

  /** Committed events, in order: queued to be handed on by the next steps (or read from the log, see `fromLog`). */
  take(events: readonly StoredEvent[]): void {
    if (this.fromLog || events.length === 0) return;
    const expected = this.queue.length === 0 ? this.seen + 1 : this.queue.at(-1)!.seq + 1;
    if (events[0]!.seq !== expected || this.queue.length - this.queueStart + events.length > MAX_QUEUED) return this.readFromLog();
    for (const event of events) this.queue.push(event);
  }

  /**
   * Whatever was handed over may not be all that was committed: the log says. Meanwhile the views
   * drop each job's details at its finish (its files get them back from its own events): a
   * follower far behind would otherwise have the views hold every job it has yet to render.
   */
  readFromLog(): void {
    this.fromLog = true;
    this.queue = [];
    this.queueStart = 0;
    this.state.releaseFinished = true;
  }

  /** One step of work; returns whether more is waiting. Throws only when the log cannot be read. */
  step(): boolean {
    if (this.reopening !== null) {
      if (this.reopening.fold(REOPEN_BATCH)) return true;
      this.reopening = null;
      this.startFollowing();
      return true;
    }
    return this.follow(FOLLOW_BATCH) === FOLLOW_BATCH;
  }

  /**
   * Everything level with the log up to `upTo` at least, and the projections with `ahead` too
   * (events about to be committed, in the order they will be).
   */
  level(upTo: number, ahead: readonly StoredEvent[] = []): DerivedFilesOutcome {
    while (this.reopening !== null) this.step();
    while (this.follow(FOLLOW_BATCH) === FOLLOW_BATCH);
    if (this.seen < upTo) this.readFromLog(); // committed without being handed over
    while (this.follow(FOLLOW_BATCH) === FOLLOW_BATCH);
    const behind = this.bus!.settle(upTo);
    try {
      this.projections.catchUp(ahead);
    } catch (error) {
      this.report(`projections: ${error instanceof Error ? error.message : String(error)}`, error);
      if (!behind.includes(this.projections.name)) behind.push(this.projections.name);
      this.projectionsAt = null;
    }
    return { behind, projectionsAt: this.projectionsAt };
  }

  /**
   * The files as `finish` leaves them: everything level with the log up to `upTo`. Projections
   * already written that far by `level` are not rendered again (a big run's tables take long).
   */
  finish(upTo: number): DerivedFilesOutcome {
    if (this.projectionsAt === null || this.projectionsAt < upTo) return this.level(upTo);
    while (this.follow(FOLLOW_BATCH) === FOLLOW_BATCH);
    if (this.seen < upTo) this.readFromLog();
    while (this.follow(FOLLOW_BATCH) === FOLLOW_BATCH);
    return { behind: this.bus!.settle(upTo), projectionsAt: this.projectionsAt };
  }

  close(): void {
    this.reopening?.stop();
    this.reopening = null;
    try {
      this.mirrors.close();
    } finally {
      this.reader.close();
    }
  }

  /** Runs `work`; a failure is reported and leaves `name` behind, to be retried with the next events and at the finish. */
  repair(work: () => void, name: string): void {
    try {
      work();
    } catch (error) {
      this.report(`${name}: ${error instanceof Error ? error.message : String(error)} (the log is intact; retrying)`, error);
      this.behindAtStart.push(name);
    }
  }

  private startFollowing(): void {
    this.bus = new EventBus([this.mirrors, this.projections], this.report, this.seen);
    for (const name of this.behindAtStart) this.bus.markBehind(name);
  }

  /** Hands at most `limit` events committed since the last look to the subscribers; returns how many. */
  private follow(limit: number): number {
    const fresh = this.fromLog ? this.readLog(limit) : this.dequeue(limit);
    if (fresh.length === 0) return 0;
    this.seen = fresh.at(-1)!.seq;
    this.bus!.publish(fresh);
    return fresh.length;
  }

  /** Up to `limit` queued events after `seen`. */
  private dequeue(limit: number): StoredEvent[] {
    const { queue } = this;
    while (this.queueStart < queue.length && queue[this.queueStart]!.seq <= this.seen) this.queueStart++;
    const fresh = queue.slice(this.queueStart, this.queueStart + limit).map(asRead);
    this.queueStart += fresh.length;
    if (this.queueStart === queue.length) {
      this.queue = [];
      this.queueStart = 0;
    }
    return fresh;
  }

  /** Up to `limit` rows after `seen` from the log; once it has no more, the queue takes over again. */
  private readLog(limit: number): StoredEvent[] {
    const fresh = this.reader.rowsAfter(this.seen, limit).map(decoded);
    // Everything committed so far was read (events are committed and handed over on this thread).
    if (fresh.length < limit) {
      this.fromLog = false;
      this.state.releaseFinished = false;
    }
    return fresh;
  }
}

/**
 * An existing run's log read once, a row at a time, to check every mirror (each job's once its last
 * row was read) for what a crash may have left behind, and to learn which jobs' files on disk are
 * still what the views render: those of jobs with no event after the position recorded for the
 * projections, rendered in the same LLM columns. The rest are rewritten at the finish (the
 * invocation that reopened it may have committed its start already). Nothing is folded: the views
 * are the writer's, level with the log. A row at a time: each invocation adds a `RunStarted` with
 * the whole matrix (megabytes for a big run), and a page of rows held them all (docs/performance.md:
 * ledger, 48564e2).
 */
class ReopenFold {
  private filesAt = 0;
  /** The position of each stream's last event (none known if it cannot be read: no mirror is checked then). */
  private lastPositions = new Map<string, number>();
  private mirrorCheck: MirrorCatchUp | null = null;
  /** The log's rows, from the first step on (opening the run does none of this work). */
  private rows: IterableIterator<EventRow> | null = null;
  /** Jobs with events after `filesAt`: their files on disk are behind. */
  private readonly changed = new Set<string>();
  /** The LLM columns of the latest start at `filesAt`, as JSON (what the job files on disk show). */
  private llmAtFiles: string | null = null;

  constructor(private readonly follower: LogFollower) {}

  /** Reads up to `limit` rows; returns whether rows may remain. */
  fold(limit: number): boolean {
    const { follower } = this;
    this.rows ??= this.start();
    for (let n = 0; n < limit; n++) {
      const next = this.rows.next();
      if (next.done === true) {
        this.checkMirrors((check) => check.finish());
        // Projections behind (a kill after the last commit but before the last write) are not
        // rewritten here: the finish's `catchUp` writes every job changed since the recorded
        // position and the run-level files (rendering them here too rendered a big run's reports
        // twice; docs/performance.md: ledger, d42e845), and until then the recorded position says
        // they are behind.
        this.assumeCurrent();
        return false;
      }
      const row = next.value;
      follower.seen = row.seq;
      if (row.seq > this.filesAt) {
        if (row.job_id !== null) this.changed.add(row.job_id);
      } else if (row.type === "RunStarted") {
        const start = decoded(row);
        if (start.type === "RunStarted") this.llmAtFiles = llmColumns(start.data);
      }
      this.checkMirrors((check) => check.add(row));
    }
    return true;
  }

  /** Ends the read early (the follower closes): a connection cannot close while a read is in progress. */
  stop(): void {
    this.rows?.return?.();
  }

  private start(): IterableIterator<EventRow> {
    const { follower } = this;
    this.filesAt = follower.projections.recordedPosition();
    follower.repair(() => {
      this.lastPositions = follower.reader.lastPositions();
      this.mirrorCheck = follower.mirrors.startCatchUp(this.lastPositions);
    }, follower.mirrors.name);
    return follower.reader.rowsOneByOne(0);
  }

  /**
   * A job whose files on disk reflect its every event is not rendered again unless it changes (a
   * reopened 10,000-job run rendered or compared every job's files otherwise). Its view's position
   * is at or before `filesAt` (the views are folded past it only for jobs with later events).
   */
  private assumeCurrent(): void {
    const { state } = this.follower;
    if (this.filesAt === 0 || this.llmAtFiles !== llmColumns(state.started)) return;
    this.follower.projections.assumeCurrent((job) => job.lastSeq > 0 && job.lastSeq <= this.filesAt && !this.changed.has(job.job_id));
  }

  /** One step of the mirrors' check; a step that fails ends it (the mirrors are then behind, caught up from the log later). */
  private checkMirrors(step: (check: MirrorCatchUp) => void): void {
    const check = this.mirrorCheck;
    if (check === null) return;
    const { follower } = this;
    follower.repair(() => step(check), follower.mirrors.name);
    if (!follower.behindAtStart.includes(follower.mirrors.name)) return;
    this.mirrorCheck = null;
    follower.repair(() => check.abandon(), follower.mirrors.name);
  }
}

/** A run start's LLM columns as a job's files show them (projection-writer.ts: what a render depends on). */
const llmColumns = (started: { readonly llm?: unknown } | null): string => JSON.stringify(started?.llm ?? null);

/** The writer's subscriber that keeps the derived files (see the file's comment). */
export class DerivedFiles implements Subscriber {
  readonly name = "derived-files";
  private follower: LogFollower | null = null;
  private failure: string | null = null;
  private readonly steps = new PacedSteps(
    () => this.follower?.step() ?? false,
    (error) => {
      this.fail(error);
      this.stop();
    },
  );

  constructor(
    private readonly setup: DerivedFilesSetup,
    private readonly report: (text: string, cause?: unknown) => void,
  ) {
    try {
      this.follower = new LogFollower(setup, report);
    } catch (error) {
      this.fail(error);
    }
    // A reopened run's fold starts at once (in steps); a new run's files wait for its first commit.
    if (!setup.fresh) this.schedule(0);
  }

  handle(events: readonly StoredEvent[]): void {
    this.follower?.take(events);
    this.schedule(NOTIFY_EVERY_MS);
  }

  catchUp(): void {
    this.follower?.readFromLog();
    this.schedule(NOTIFY_EVERY_MS);
  }

  /**
   * Brings the derived files level with the log up to `upTo`, and the projections with `ahead`
   * (the run's closing event, rendered before it is committed), and goes on following the log.
   */
  level(upTo: number, ahead: StoredEvent): DerivedFilesOutcome {
    this.steps.cancel();
    const follower = this.follower;
    if (follower === null) return { behind: ALL_BEHIND, projectionsAt: null };
    try {
      return follower.level(upTo, [ahead]);
    } catch (error) {
      this.fail(error);
      this.stop();
      return { behind: ALL_BEHIND, projectionsAt: null };
    }
  }

  /** Brings the derived files level with the log up to `upTo` and stops; says what stayed behind. */
  finish(upTo: number): DerivedFilesOutcome {
    this.steps.cancel();
    const follower = this.follower;
    if (follower === null) return { behind: ALL_BEHIND, projectionsAt: null };
    try {
      return follower.finish(upTo);
    } catch (error) {
      this.fail(error);
      return { behind: ALL_BEHIND, projectionsAt: null };
    } finally {
      this.stop();
    }
  }

  /** Stops following and lets go of everything the follower held; the views no longer keep details for it. */
  close(): void {
    this.steps.cancel();
    const follower = this.follower;
    this.follower = null;
    this.dropDetails();
    follower?.close();
  }

  private schedule(delayMs: number): void {
    if (this.follower !== null) this.steps.schedule(delayMs);
  }

  /** Nothing renders from the views any more: what only a job's files need is not kept. */
  private dropDetails(): void {
    const { state } = this.setup;
    if (state.releaseFinished) return;
    state.releaseFinished = true;
    for (const view of state.jobs.values()) if (view.finished !== null) state.releaseDetail(view.job_id);
  }

  /**
   * `close` where a failure to close must not undo what was done (the files written at the finish)
   * nor escape a timer (it would end the job thread): it is reported instead.
   */
  private stop(): void {
    try {
      this.close();
    } catch (error) {
      this.report(`derived files: closing the log reader failed: ${error instanceof Error ? error.message : String(error)}`, error);
    }
  }

  /** The log could not be read: every derived file is behind, and replay rebuilds them. */
  private fail(error: unknown): void {
    if (this.failure !== null) return;
    this.failure = error instanceof Error ? error.message : String(error);
    this.report(`derived files: ${this.failure} (the log is intact; rebuild them with 'trace-bench replay')`, error);
  }
}
