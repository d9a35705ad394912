/** A job's `stdout.log` text, one line per event of every attempt, kept on its view as the events come. */
import { JOB_EVENT_TYPES } from "../event-schema.js";
import { jobLogLine } from "../projections/job-log.js";
import { flattened } from "../../runtime/flat-string.js";
import type { JobProjection } from "./projection.js";

export const jobLogProjection: JobProjection = {
  canHandle: JOB_EVENT_TYPES,
  evolve(view, event) {
    const line = jobLogLine(event);
    if (line !== null) view.log += line;
    // Appended line by line, the log is kept once its job finished: flattened then.
    if (event.type === "JobFinished") view.log = flattened(view.log);
  },
};
