/**
 * Which phase each active state of the job machine stands for. The runner looks the machine's
 * state up here, runs the phase, and records how it ended; the machine then says which state
 * (and so which phase) comes next. A new phase is a state in the machine, its file, and its row.
 */
import type { ActiveJobState } from "../../../machines/job.machine.js";
import { building } from "./building-phase.js";
import { evaluating } from "./evaluating-phase.js";
import type { JobPhase } from "./job-phase.js";
import { training } from "./training-phase.js";

export const JOB_PHASES: Readonly<Record<ActiveJobState, JobPhase>> = { building, training, evaluating };

/** The phase of `state`, or null when the machine is not in an active state (queued, or ended). */
export const phaseOf = (state: string): JobPhase | null => (Object.hasOwn(JOB_PHASES, state) ? JOB_PHASES[state as ActiveJobState] : null);
