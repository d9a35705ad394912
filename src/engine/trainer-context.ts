/**
 * Builds what a trainer works with for one job: its optimizers on the job's recorded LLM (every
 * call an event; every reply that cannot be applied counted), rollouts that count evaluations,
 * and `emit`, which turns a step into an IterationCompleted event with the job's LLM-call and
 * evaluation counts so far.
 */
import { toPlain, type Kwargs } from "../config/kwargs.js";
import { withTaskObjective } from "../opt/objectives/task-objective.js";
import { JobCalls } from "../llm/job-calls.js";
import { RunCalls } from "../llm/run-calls.js";
import type { TaskCalls } from "../llm/task-calls.js";
import type { ChatRequest, Embedder, Llm } from "../llm/llm.js";
import type { Optimizer, Proposal } from "../opt/optimizer.js";
import { createOptimizer } from "../opt/optimizers/optimizer-registry.js";
import type { ParameterValues } from "../domain/parameter.js";
import { buildProblem } from "../opt/problem.js";
import { createRng } from "../opt/rng.js";
import { rolloutMany } from "../opt/rollout.js";
import type { TrainerContext } from "../opt/trainer.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import type { JobFact } from "./job-decider.js";
import type { CandidateLedger } from "./candidate-ledger.js";

export interface TrainerContextInput {
  readonly bundle: TaskBundle;
  readonly initialValues: ParameterValues;
  /** Resolved trainer kwargs (may hold PyFloats; the trainer gets plain values). */
  readonly trainerKwargs: Kwargs;
  readonly seed: number;
  readonly optimizer: { readonly name: string; readonly kwargs: unknown };
  /** Records facts of the running attempt (throws when the log cannot take them). */
  readonly recorder: { readonly attempt: number; readonly record: (facts: JobFact[], contents?: ReadonlyMap<string, string>) => void };
  /** Records every candidate the trainer evaluates (none when absent: a trainer run outside a job). */
  readonly candidates?: CandidateLedger;
  readonly llm: Llm;
  /** Records the attempt's LLM calls (default: recorded through `recorder`, no journal, no budget). */
  readonly calls?: JobCalls;
  /** The LLM the task's agent and guide call in rollouts (none when absent). */
  readonly taskCalls?: TaskCalls;
  /** The embeddings endpoint, by model (none when absent). */
  readonly embedder?: (model?: string) => Embedder;
  /** The summarizer's LLM, built on its first call (none when absent). */
  readonly summarizer?: () => Llm;
  readonly signal: AbortSignal;
  /** Called with the values of every emitted step (the job keeps the latest for a timeout report). */
  readonly onValues: (values: ParameterValues) => void;
}

export function createTrainerContext(input: TrainerContextInput): TrainerContext {
  const { bundle, recorder, signal } = input;
  const counters = { evaluations: 0, iterations: 0 };
  const ledger = input.candidates;
  let notes: string[] = [];
  const kwargs = withTaskObjective(toPlain(input.trainerKwargs), bundle);
  const concurrency = typeof kwargs.num_threads === "number" && kwargs.num_threads > 0 ? kwargs.num_threads : 1;
  const calls = input.calls ?? unlimitedCalls(recorder);
  const llm = calls.llm(input.llm, "optimizer");
  const optimizerKwargs = toPlain(input.optimizer.kwargs) as Kwargs | Kwargs[];
  return {
    parameters: bundle.parameters,
    initialValues: input.initialValues,
    agent: bundle.agent,
    guide: bundle.guide,
    train: bundle.train_dataset,
    ...(bundle.validate_dataset ? { validate: bundle.validate_dataset } : {}),
    kwargs,
    rng: createRng(input.seed),
    signal,
    emit(report) {
      input.onValues(report.values);
      const data = {
        attempt: recorder.attempt,
        ...report,
        values: { ...report.values },
        llm_calls: calls.counts.completed,
        evaluations: counters.evaluations,
        ...(notes.length > 0 ? { notes } : {}),
      };
      notes = [];
      counters.iterations += 1;
      recorder.record([{ type: "IterationCompleted", data }]);
    },
    createOptimizer: () => countingReplies(createOptimizer(input.optimizer.name, optimizerKwargs, llm), calls, ledger),
    rollout: async (values, examples, request = {}) => {
      const rollouts = await rolloutMany(bundle.agent, bundle.guide, values, examples, {
        signal,
        concurrency,
        log: (text) => recorder.record([{ type: "TaskOutput", data: { attempt: recorder.attempt, text } }]),
        minScore: request.minScore ?? null,
        // Each rollout is a batch of the job's task calls, numbered as it starts.
        ...(input.taskCalls !== undefined ? { llmFor: input.taskCalls.nextBatch(signal) } : {}),
        onEvaluation: () => {
          counters.evaluations += 1;
        },
      });
      if (ledger !== undefined) {
        const { fact, contents } = ledger.evaluated(recorder.attempt, counters.iterations + 1, values, examples, rollouts);
        recorder.record([fact], contents);
      }
      return rollouts;
    },
    problem: (values, rollouts, feedbackSuffix) => {
      const problem = buildProblem({ parameters: bundle.parameters, values, agent: bundle.agent, rollouts, ...(feedbackSuffix !== undefined ? { feedbackSuffix } : {}) });
      ledger?.problemBuilt(problem, values);
      return problem;
    },
    derived(values, parents) {
      ledger?.derived(values, parents);
    },
    note(text) {
      notes.push(text);
    },
    ...(input.embedder !== undefined
      ? {
          embed: async (texts: readonly string[], model?: string) => {
            const embedder = input.embedder!(model);
            // Started together, in order: each call takes its position now, whatever order the replies come in.
            const replies = await Promise.all(texts.map((text) => calls.embed(embedder, { input: text }, signal)));
            return replies.map((r) => [...r.embedding]);
          },
        }
      : {}),
    ...(input.summarizer !== undefined ? { summarize: (request: ChatRequest) => calls.llm(input.summarizer!(), "summarizer").complete(request, signal) } : {}),
  };
}

/** Calls recorded through the recorder alone: no journal, no prices, no budgets (trainers run outside a run). */
function unlimitedCalls(recorder: TrainerContextInput["recorder"]): JobCalls {
  return new JobCalls({
    attempt: recorder.attempt,
    run: new RunCalls({ journaling: false, price: () => null, budget: {} }),
    record: (facts) => recorder.record(facts),
    journal: { entries: [], unanswered: [] },
    replies: new Map(),
    onBudgetExhausted: () => {},
  });
}

/** Why a proposal's reply could not be applied, or null when it could (a change, or TERMINATE). */
export function unusableReason(proposal: Proposal): string | null {
  if (proposal.terminated || Object.keys(proposal.update).length > 0) return null;
  const unreadable = proposal.notes.find((n) => n.startsWith("unreadable reply"));
  if (unreadable !== undefined) return unreadable;
  return proposal.notes.length > 0 ? `no proposed value could be used: ${proposal.notes.join("; ")}` : null;
}

/** The optimizer, counting each reply as usable or not, and noting the candidate it proposes (forks count too). */
function countingReplies(optimizer: Optimizer, calls: JobCalls, ledger: CandidateLedger | undefined): Optimizer {
  return {
    get name() {
      return optimizer.name;
    },
    async propose(problem, signal) {
      const proposal = await optimizer.propose(problem, signal);
      const reason = unusableReason(proposal);
      calls.noteReply(reason === null, reason ?? "");
      ledger?.proposed(problem, proposal);
      return proposal;
    },
    fork: () => countingReplies(optimizer.fork(), calls, ledger),
  };
}
