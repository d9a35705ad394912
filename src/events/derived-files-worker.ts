/**
 * The worker thread that keeps a run's derived files level with its log: the jsonl mirrors and
 * the projections (results.csv, summary, each job's files). It reads the committed events itself,
 * through a read-only connection, whenever the writer says the log moved; so rendering and file
 * writes never sit on a job's path, and the writer's thread only commits.
 *
 * On start it does what opening a run always did: one read of the log folds the state and checks
 * every mirror against it (repairing what a crash left); projections behind their recorded
 * position are rewritten when the run finishes. Its position record is handed back to the
 * writer, the one process that writes the log.
 */
import { parentPort } from "node:worker_threads";
import { EventBus } from "./event-bus.js";
import { EventReader } from "./event-reader.js";
import { decodeRow } from "./event-store.js";
import { jobStream } from "./event-schema.js";
import { storedPayload, type EventRow } from "./log-database.js";
import { MirrorWriter, type MirrorCatchUp } from "./mirror-writer.js";
import { PROJECTIONS, ProjectionSubscriber } from "./projection-subscriber.js";
import { ProjectionWriter } from "./projection-writer.js";
import { RunState } from "./run-state.js";
import type { DerivedFilesReply, DerivedFilesRequest, DerivedFilesSetup, DerivedFilesStart } from "./derived-files-thread.js";

const port = parentPort!;
/**
 * The setup comes as the first message (a thread may be started before its run is known: see
 * `prewarmDerivedFilesThread`); requests that come before this thread is ready wait in `early`.
 */
let handleRequest: ((request: DerivedFilesRequest) => void) | null = null;
const early: DerivedFilesRequest[] = [];
const setup = await new Promise<DerivedFilesSetup>((resolve) =>
  port.on("message", (message: DerivedFilesRequest | DerivedFilesStart) => {
    if (message.type === "setup") resolve(message.setup);
    else if (handleRequest !== null) handleRequest(message);
    else early.push(message);
  }),
);
const send = (reply: DerivedFilesReply) => port.postMessage(reply);
const report = (text: string) => send({ type: "report", text });

/** Subscribers whose repair at start failed: retried with the next events, and at the finish. */
const behindAtStart: string[] = [];
function repair(work: () => void, name: string): void {
  try {
    work();
  } catch (error) {
    report(`${name}: ${error instanceof Error ? error.message : String(error)} (the log is intact; retrying)`);
    behindAtStart.push(name);
  }
}

const decoded = (row: EventRow) => {
  const event = decodeRow(row);
  storedPayload.set(event, row.data); // the mirrors copy the stored bytes
  return event;
};

const reader = EventReader.open(setup.runDir);
const state = new RunState();
/** The position the projections reflect once `catchUp` wrote them; the writer records it. */
let projectionsAt: number | null = null;
const mirrors = new MirrorWriter(setup.runDir, reader);
const projections = new ProjectionSubscriber(
  state,
  new ProjectionWriter(setup.runDir, setup.fresh),
  {
    readAfter: (afterSeq) => reader.readAfter(afterSeq),
    jobHistory: (jobId) => reader.readStream(jobStream(jobId)),
    subscriberPosition: (name) => reader.subscriberPosition(name),
    recordSubscriberPosition: (name, position) => {
      if (name === PROJECTIONS) projectionsAt = position;
    },
  },
  setup.refreshMs ?? 1000,
  true,
);
/**
 * Events are read and handed on at most this many at a time: a worker that fell behind (the jobs
 * commit faster than it writes their files) would otherwise hold the whole backlog in memory at
 * once; at 10,000 trivial jobs that was its largest heap. A batch is alive while its jobs' files
 * are written, so it is what this thread's young generation must hold: at 250 (instead of 2,000)
 * a young generation of a quarter of the size cost no time (derived-files-thread.ts).
 */
const FOLLOW_BATCH = 250;

// A new run's events (the writer may have committed some already) all go through `publish`; an
// existing run's are read once, a row at a time, to fold the state and check every mirror (each
// job's once its last row was read) for what a crash may have left behind. Its projections are
// trusted up to the position recorded for them and rewritten from there (the invocation that
// reopened it may have committed its start already).
let seen = 0;
if (!setup.fresh) {
  const filesAt = projections.recordedPosition();
  /** The position of each stream's last event (none known if it cannot be read: no job is released then). */
  let lastPositions = new Map<string, number>();
  let mirrorCheck: MirrorCatchUp | null = null;
  repair(() => {
    lastPositions = reader.lastPositions();
    mirrorCheck = mirrors.startCatchUp(lastPositions);
  }, mirrors.name);
  /** One step of the mirrors' check; a step that fails ends it (the mirrors are then behind, caught up from the log later). */
  const checkMirrors = (step: (check: MirrorCatchUp) => void) => {
    const check = mirrorCheck;
    if (check === null) return;
    repair(() => step(check), mirrors.name);
    if (!behindAtStart.includes(mirrors.name)) return;
    mirrorCheck = null;
    repair(() => check.abandon(), mirrors.name);
  };
  seen = reader.eachRowAfter(0, (row) => {
    state.apply(decoded(row));
    if (state.lastSeq === filesAt) projections.assumeCurrent();
    checkMirrors((check) => check.add(row));
    // A job whose last event is read and whose files on disk reflect it is not rendered again
    // unless it changes: its details are dropped, and folded again from the log if it does (a
    // reopened 10,000-job run held every job's log, evaluations and values otherwise).
    if (row.job_id !== null && row.seq <= filesAt && lastPositions.get(row.stream) === row.position) state.releaseDetail(row.job_id);
  });
  checkMirrors((check) => check.finish());
  // Projections behind (a kill after the last commit but before the last write) are not rewritten
  // here: the finish's `catchUp` writes every job changed since the recorded position and the
  // run-level files (reopening a finished 10,000-job run rendered its reports twice, about 1.2 s
  // more), and until then the recorded position still says they are behind.
}
const bus = new EventBus([mirrors, projections], report, seen);
for (const name of behindAtStart) bus.markBehind(name);

/** Hands every event committed since the last look to the subscribers. */
function follow(): void {
  for (;;) {
    const fresh = reader.rowsAfter(seen, FOLLOW_BATCH).map(decoded);
    if (fresh.length === 0) return;
    seen = fresh.at(-1)!.seq;
    bus.publish(fresh);
  }
}

handleRequest = (request: DerivedFilesRequest) => {
  try {
    follow();
    if (request.type !== "finish") return;
    const behind = bus.settle(request.upTo);
    try {
      projections.catchUp();
    } catch (error) {
      report(`projections: ${error instanceof Error ? error.message : String(error)}`);
      if (!behind.includes(projections.name)) behind.push(projections.name);
    }
    mirrors.close();
    reader.close();
    send({ type: "finished", behind, projectionsAt });
  } catch (error) {
    // The log itself could not be read: every derived file is behind, and replay rebuilds them.
    send({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  }
};
for (const request of early.splice(0)) handleRequest(request);
