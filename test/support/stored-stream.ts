/** A job's events as the rows a log stores them in (seq, stream, position), for verifier tests. */
import { streamOf, type EventBody, type NewEvent, type StoredEvent } from "../../src/events/event-schema.js";
import { RUN_ID } from "./events.js";

export function storedStream(events: readonly NewEvent[], options: { jobId?: string; firstSeq?: number } = {}): StoredEvent[] {
  const positions = new Map<string, number>();
  return events.map((event, i) => {
    const jobId = event.job_id ?? options.jobId ?? null;
    const stream = streamOf(jobId);
    const position = (positions.get(stream) ?? 0) + 1;
    positions.set(stream, position);
    const body: EventBody = { type: event.type, data: event.data } as EventBody;
    return { ...body, seq: (options.firstSeq ?? 1) + i, v: 2, stream, position, run_id: RUN_ID, job_id: jobId, ts: "2026-01-01T00:00:00.000Z" } as StoredEvent;
  });
}
