/**
 * Every LLM call of one job attempt, recorded around the request: `LlmCallStarted` is committed
 * before the request leaves the process, then exactly one outcome (`LlmCallCompleted`,
 * `LlmCallFailed` or `LlmCallAborted`). Prompts and replies go to the content table, referenced
 * by hash. A re-run of an interrupted job is answered from its journal while the requests match.
 *
 * The attempt's calls share one position counter (the `call` of each event), the job budget and
 * the counts that decide an honest outcome (every call failed → `llm_unavailable`).
 *
 * Budgets are hard: during training a request is sent only once its worst case (its prompt's
 * tokens at most plus its max_tokens, and their price) is reserved in the job's and the run's
 * budget, beside what concurrent requests reserved; one that cannot fit is not sent and the job
 * ends `budget_exhausted`. One that would fit once the requests in flight settle waits for them.
 *
 * A task's calls (its agent's and guide's, through `TaskCalls`) carry a slot: their place in the
 * job (which batch of examples, which example, which call of that example), the same whatever
 * order concurrent examples send them in; the journal answers them by slot. They are budgeted in
 * every phase (an evaluation whose agent may not call gets no score) and counted apart from the
 * optimizer's calls, whose counts decide training's verdict.
 *
 * A trainer's other calls (POLCA's embeddings, role `embedding`, and its summarizer) take the same
 * path and are counted apart too. An embedding is recorded like a chat call whose one message is
 * the text and whose reply is the vector as JSON; its worst case is its prompt (max_tokens 0).
 */
import type { Contents } from "../events/content-ref.js";
import { contentRef } from "../events/content-ref.js";
import type { NewEvent } from "../events/event-schema.js";
import { BudgetLedger, NOTHING, type Spend } from "./budget-ledger.js";
import { CallJournal, type JournalContents } from "./call-journal.js";
import { LlmError, isLlmError } from "./llm-error.js";
import type { ChatRequest, ChatResponse, Embedder, EmbeddingRequest, EmbeddingResponse, Llm, LlmRole } from "./llm.js";
import { embeddingRequestHash, requestHash } from "./request-hash.js";
import { requestWorstCase, type RequestWorstCase } from "./request-worst-case.js";
import type { RunBudgetJudge } from "./run-budget-judge.js";
import type { RunCalls } from "./run-calls.js";

type CallFact = Extract<NewEvent, { type: "LlmCallStarted" | "LlmCallCompleted" | "LlmCallFailed" | "LlmCallAborted" | "JournalDiverged" | "ReplyUnusable" }>;
/** Commits facts of the attempt (throws when the log refuses them: then no request is sent). */
export type RecordCallFacts = (facts: CallFact[], contents?: Contents) => void;

/** A budget stopped the job: the call was not sent. */
export class BudgetExhausted extends Error {
  override readonly name = "BudgetExhausted";
}

interface InFlight {
  readonly call: number;
  readonly slot?: string;
  readonly role: LlmRole;
  readonly model: string;
  readonly started: number;
  /** What it holds reserved in the budgets (nothing outside training). */
  readonly worst: Spend;
  /** What of it the run's budget judge admitted (nothing when no judge was asked). */
  readonly judged: Spend;
}

/** A trainer's calls that are not the optimizer's: they decide no verdict. */
const isTrainerSideRole = (role: LlmRole) => role === "embedding" || role === "summarizer";

const oneLine = (text: string) => text.split("\n")[0]!.slice(0, 500);
const errorText = (error: unknown) => oneLine(error instanceof Error ? error.message : String(error));

export interface JobCallsOptions {
  readonly attempt: number;
  readonly run: RunCalls;
  readonly record: RecordCallFacts;
  /** What earlier attempts received (used only when the run journals). */
  readonly journal: JournalContents;
  /** The journal's reply texts, by ref. */
  readonly replies: ReadonlyMap<string, string>;
  /** Aborted when a budget is spent: training stops, the job keeps its best state. */
  readonly onBudgetExhausted: (reason: string) => void;
  /**
   * What earlier attempts of the job may have been billed for calls cut off without a bill
   * (aborted, lost), at most: it counts against the job's budget.
   */
  readonly spentBefore?: Spend;
  /** The run's budget held by another process (a bullmq worker's coordinator): it admits each request the run's budget limits. */
  readonly judge?: RunBudgetJudge;
}

/** How long a request the judge may admit later (once calls in flight elsewhere settle) waits before it asks again. */
const JUDGE_RETRY_MS = 100;

export class JobCalls {
  private position = 0;
  private readonly inFlight = new Map<number, InFlight>();
  private readonly journal: CallJournal;
  /** The job's budget: what this attempt spent (replies replayed from the journal included), reserved by calls in flight. */
  private readonly ledger: BudgetLedger;
  private budgetReason: string | null = null;
  /** Whether budgets are enforced: during training only (evaluations always finish). */
  private training = false;
  /** The optimizer's calls (the training verdict reads them). */
  readonly counts = { started: 0, completed: 0, replayed: 0, failed: 0, aborted: 0, usable: 0, unusable: 0 };
  /** The task's calls (agents, guides): slotted, budgeted in every phase. */
  readonly taskCounts = { started: 0, completed: 0, replayed: 0, failed: 0, aborted: 0 };
  /** The trainer's calls that are not the optimizer's (embeddings, the summarizer): they decide no verdict. */
  readonly trainerSideCounts = { started: 0, completed: 0, replayed: 0, failed: 0, aborted: 0 };
  lastFailure: string | null = null;
  lastUnusable: string | null = null;

  constructor(private readonly options: JobCallsOptions) {
    // An entry whose reply text is missing cannot be replayed: its request is treated like one an
    // earlier attempt sent unanswered (it goes live and the replay goes on), so the journal never
    // counts it as replayed (JournalDiverged.replayed was one too high for each such entry).
    const { entries, unanswered } = options.journal;
    const replayable = entries.filter((e) => options.replies.has(e.replyRef));
    const missing = entries.filter((e) => !options.replies.has(e.replyRef)).map((e) => e.requestHash);
    this.journal = new CallJournal(options.run.journaling ? { entries: replayable, unanswered: [...unanswered, ...missing] } : { entries: [], unanswered: [] });
    this.ledger = new BudgetLedger("job", options.run.jobTokenLimit, options.run.jobCostLimit, options.spentBefore ?? NOTHING);
  }

  /** What this attempt spent so far (replayed replies included; calls cut off at their worst case). */
  get spent(): Spend {
    return this.ledger.spent;
  }

  /** Why a budget stopped the job, or null. */
  get budgetExhausted(): string | null {
    return this.budgetReason;
  }

  setTraining(on: boolean): void {
    this.training = on;
  }

  /** `inner` with every call recorded under `role`. */
  llm(inner: Llm, role: LlmRole): Llm {
    return { model: inner.model, complete: (request, signal) => this.complete(inner, role, request, signal) };
  }

  /** An optimizer reply that could or could not be applied (unusable replies are recorded). */
  noteReply(usable: boolean, reason: string): void {
    if (usable) {
      this.counts.usable += 1;
      return;
    }
    this.counts.unusable += 1;
    this.lastUnusable = reason;
    this.options.record([{ type: "ReplyUnusable", data: { attempt: this.options.attempt, reason } }]);
  }

  /**
   * The calls still waiting for a reply, as `LlmCallAborted` facts (marked settled, so their late
   * outcome records nothing): the attempt is ending (timeout, cancel) and records them with its end.
   */
  abortInFlight(reason: string): CallFact[] {
    const now = performance.now();
    // Their bills are unknown: each counts at its worst case.
    for (const f of this.inFlight.values()) this.settle(f.worst, f.judged, f.worst);
    const facts = [...this.inFlight.values()].map(
      (f): CallFact => ({ type: "LlmCallAborted", data: { attempt: this.options.attempt, call: f.call, role: f.role, model: f.model, reason, latency_ms: Math.round(now - f.started) } }),
    );
    for (const f of this.inFlight.values()) this.countsOf(f.role, f.slot !== undefined).aborted += 1;
    this.inFlight.clear();
    return facts;
  }

  /** Which counts a call adds to: the task's, the optimizer's, or the trainer's other calls. */
  private countsOf(role: LlmRole, task: boolean): { started: number; completed: number; replayed: number; failed: number; aborted: number } {
    return task ? this.taskCounts : isTrainerSideRole(role) ? this.trainerSideCounts : this.counts;
  }

  /**
   * One text embedded by `inner`, recorded with role `embedding`: journaled (a resumed job gets
   * the vector from the log), budgeted by its prompt, priced with the embedding model's price.
   */
  async embed(inner: Embedder, request: EmbeddingRequest, signal?: AbortSignal): Promise<EmbeddingResponse> {
    const asChat: ChatRequest = { messages: [{ role: "user", content: request.input }], maxTokens: 0 };
    const viaChat: Llm = {
      model: inner.model,
      complete: async (_chat, callSignal) => {
        const reply = await inner.embed(request, callSignal);
        return { content: JSON.stringify(reply.embedding), usage: reply.usage, model: reply.model, estimated: reply.estimated, ...(reply.retries !== undefined ? { retries: reply.retries } : {}) };
      },
    };
    const reply = await this.complete(viaChat, "embedding", asChat, signal, undefined, embeddingRequestHash(inner.model, request));
    const vector: unknown = JSON.parse(reply.content);
    if (!Array.isArray(vector) || !vector.every((x) => typeof x === "number")) throw new LlmError("malformed", "the embedding is not a list of numbers");
    return { embedding: vector as number[], usage: reply.usage, model: reply.model, estimated: reply.estimated, ...(reply.retries !== undefined ? { retries: reply.retries } : {}) };
  }

  /** Stops training (once) for `reason`. */
  private stopTraining(reason: string): void {
    if (this.budgetReason !== null) return;
    this.budgetReason = reason;
    this.options.onBudgetExhausted(reason);
  }

  /** A budget reached: training stops now rather than at its next call. */
  private checkBudgets(): void {
    const stop = this.options.run.ledger.spentOut() ?? this.ledger.spentOut();
    if (stop !== null) this.stopTraining(stop);
  }

  /**
   * A call ended: its reservation goes from both budgets, what it spent stays. The judge is told
   * of what it admitted (`judged`), and nothing more: releasing what it never reserved would free
   * room other workers' requests hold.
   */
  private settle(worst: Spend, judged: Spend, actual: Spend, billed = actual): void {
    this.ledger.settle(worst, actual);
    this.options.run.ledger.settle(worst, billed);
    this.options.judge?.settle(judged, billed);
    this.options.run.noteJobSpent(this.ledger.spent);
  }

  /**
   * The judge's admission of a request reserved here already: refused for good, it is released
   * here and training stops as when this process refuses it; refused for now, it asks again once
   * a call settles or after JUDGE_RETRY_MS (the calls in flight it waits on may be another worker's).
   */
  private async admitted(judge: RunBudgetJudge, shape: RequestWorstCase, worst: Spend, signal?: AbortSignal): Promise<void> {
    const run = this.options.run;
    const release = () => {
      this.ledger.settle(worst, NOTHING);
      run.ledger.settle(worst, NOTHING);
    };
    for (;;) {
      let refusal;
      try {
        refusal = await judge.admit(worst);
      } catch (error) {
        release();
        throw error;
      }
      if (refusal === null) return;
      if (!refusal.mayFitLater) {
        release();
        run.noteRunRefusal(refusal.reason);
        // Worded as this process words its own refusal (the job's feedback says it).
        const reason = `${refusal.reason} (${shape.prompt_tokens_at_most} prompt tokens at most + max_tokens ${shape.max_tokens})`;
        this.stopTraining(reason);
        throw new BudgetExhausted(`not sent: ${reason}`);
      }
      let onAbort = () => {};
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.ledger.settled(),
        run.ledger.settled(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, JUDGE_RETRY_MS);
          onAbort = resolve;
          signal?.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) {
        release();
        throw new LlmError("aborted", "not sent: the job was stopped");
      }
    }
  }

  /**
   * The request's worst case, reserved in the job's and the run's budget; "wait" when it fits
   * only once calls in flight settle. Throws BudgetExhausted (training stops) when it cannot fit.
   */
  private tryReserve(model: string, shape: RequestWorstCase, task = false): Spend | "wait" {
    if (this.budgetReason !== null) throw new BudgetExhausted(`not sent: ${this.budgetReason}`);
    const run = this.options.run;
    const refuse = (reason: string): never => {
      this.stopTraining(reason);
      throw new BudgetExhausted(`not sent: ${reason}`);
    };
    const spentOut = run.ledger.spentOut() ?? this.ledger.spentOut();
    if (spentOut !== null) refuse(spentOut);
    if (!this.ledger.limited && !run.ledger.limited) return NOTHING;
    if (shape.max_tokens === null) {
      refuse(
        task
          ? "a request of the task's agent or guide without maxTokens has no bound on its tokens, so no budget can admit it; give its requests maxTokens"
          : "a request without max_tokens has no bound on its tokens, so no budget can admit it; set optimizer_kwargs.max_tokens",
      );
    }
    const max = shape.max_tokens!;
    const worst: Spend = {
      tokens: shape.tokens,
      cost: run.price(model, { prompt_tokens: shape.prompt_tokens_at_most, completion_tokens: max, total_tokens: shape.tokens }) ?? 0,
    };
    const detail = ` (${shape.prompt_tokens_at_most} prompt tokens at most + max_tokens ${max})`;
    run.noteWorstCase(worst);
    const job = this.ledger.reserve(worst);
    if (job !== null) return job.mayFitLater ? "wait" : refuse(job.reason + detail);
    const whole = run.ledger.reserve(worst);
    if (whole === null) return worst;
    this.ledger.settle(worst, NOTHING);
    if (whole.mayFitLater) return "wait";
    run.noteRunRefusal(whole.reason);
    return refuse(whole.reason + detail);
  }

  /** tryReserve, waiting while the request fits only once calls in flight settle. */
  private async reserveWhenFits(model: string, shape: RequestWorstCase, task: boolean, signal?: AbortSignal): Promise<Spend> {
    for (;;) {
      const reserved = this.tryReserve(model, shape, task);
      if (reserved !== "wait") return reserved;
      let onAbort = () => {};
      const aborted = new Promise<void>((resolve) => {
        onAbort = resolve;
        signal?.addEventListener("abort", onAbort, { once: true });
      });
      await Promise.race([this.ledger.settled(), this.options.run.ledger.settled(), aborted]);
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) throw new LlmError("aborted", "not sent: the job was stopped");
    }
  }

  /**
   * A call of the task's agent or guide at `slot` (its place in the job, see TaskCalls): recorded,
   * journaled by slot, budgeted in every phase.
   */
  taskCall(inner: Llm, role: LlmRole, slot: string, request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    return this.complete(inner, role, request, signal, slot);
  }

  private async complete(inner: Llm, role: LlmRole, request: ChatRequest, signal?: AbortSignal, slot?: string, hashOf?: string): Promise<ChatResponse> {
    const { attempt, run, record } = this.options;
    const task = slot !== undefined;
    const counts = this.countsOf(role, task);
    // A task's calls are budgeted in every phase: an evaluation's agent calls spend like training's.
    const enforced = this.training || task;
    const stoppedBy = run.stoppedBy;
    if (stoppedBy !== null) throw new LlmError(stoppedBy.kind, `not sent: the run stopped after ${stoppedBy.message}`, stoppedBy.httpStatus);
    const model = inner.model;
    const shape = requestWorstCase(request);
    let worst = NOTHING;
    let judged = NOTHING;
    if (enforced) {
      // Reserved at once when it fits (no turn of the event loop, so concurrent calls keep their order).
      const reserved = this.tryReserve(model, shape, task);
      worst = reserved === "wait" ? await this.reserveWhenFits(model, shape, task, signal) : reserved;
      // Reserved here; where the run's budget is held elsewhere, it must admit the request too.
      if (this.options.judge !== undefined && run.ledger.limited) {
        await this.admitted(this.options.judge, shape, worst, signal);
        judged = worst;
      }
    }
    if (signal?.aborted) {
      this.settle(worst, judged, NOTHING);
      throw new LlmError("aborted", "not sent: the job was stopped");
    }

    const call = ++this.position;
    const hash = hashOf ?? requestHash(model, request);
    const contents = new Map<string, string>();
    const messages = request.messages.map((m) => {
      const ref = contentRef(m.content);
      contents.set(ref, m.content);
      return { role: m.role, ref };
    });
    const started: CallFact = {
      type: "LlmCallStarted",
      data: { attempt, call, role, model, request_hash: hash, messages, max_tokens: shape.max_tokens, prompt_tokens_at_most: shape.prompt_tokens_at_most, ...(task ? { slot } : {}) },
    };

    const answer = this.journal.answer(call, hash, slot);
    if (answer.kind === "replay") {
      const e = answer.entry;
      const reply = this.options.replies.get(e.replyRef);
      // A reply missing from the content table cannot be replayed: the call goes live.
      if (reply !== undefined) {
        try {
          record(
          [
            started,
            {
              type: "LlmCallCompleted",
              data: { attempt, call, role, model, prompt_tokens: e.prompt_tokens, completion_tokens: e.completion_tokens, total_tokens: e.total_tokens, cached_tokens: e.cached_tokens, latency_ms: 0, estimated: e.estimated, retries: 0, cost_usd: e.cost_usd, reply_ref: e.replyRef, replayed: true },
            },
          ],
          contents,
          );
        } catch (error) {
          this.settle(worst, judged, NOTHING);
          throw error;
        }
        counts.started += 1;
        counts.completed += 1;
        counts.replayed += 1;
        // The job's budget counts the reply as the original attempt did; the run pays nothing again.
        this.settle(worst, judged, { tokens: e.total_tokens, cost: e.cost_usd ?? 0 }, NOTHING);
        // Like a live completion: a replay that spends the job budget stops training now, not at the next call.
        if (enforced) this.checkBudgets();
        return { content: reply, model: e.model, estimated: e.estimated, retries: 0, usage: { prompt_tokens: e.prompt_tokens, completion_tokens: e.completion_tokens, total_tokens: e.total_tokens, cached_tokens: e.cached_tokens } };
      }
    }
    const diverged: CallFact[] =
      answer.kind === "diverged" ? [{ type: "JournalDiverged", data: { attempt, call, request_hash: hash, journaled_hash: answer.journaledHash, replayed: this.journal.replayed } }] : [];
    try {
      record([...diverged, started], contents);
    } catch (error) {
      this.settle(worst, judged, NOTHING);
      throw error;
    }
    counts.started += 1;

    const begun = performance.now();
    this.inFlight.set(call, { call, role, model, started: begun, worst, judged, ...(task ? { slot } : {}) });
    const latency = () => Math.round(performance.now() - begun);
    let response: ChatResponse;
    try {
      response = await inner.complete(request, signal);
    } catch (error) {
      if (!this.inFlight.delete(call)) throw error; // the attempt already recorded it aborted
      if (signal?.aborted || (isLlmError(error) && error.kind === "aborted")) {
        const reason = signal?.aborted ? errorText(signal.reason ?? "aborted") : errorText(error);
        // Cut off: the provider may bill it, up to its worst case.
        this.settle(worst, judged, worst);
        counts.aborted += 1;
        record([{ type: "LlmCallAborted", data: { attempt, call, role, model, reason, latency_ms: latency() } }]);
        throw error;
      }
      const llmError = isLlmError(error) ? error : null;
      const message = errorText(error);
      // An error reply is not billed.
      this.settle(worst, judged, NOTHING);
      counts.failed += 1;
      if (!task && !isTrainerSideRole(role)) this.lastFailure = message;
      // Stop the run first: even if the log refuses the outcome, no other job may send the same doomed request.
      if (llmError?.stopsRun) run.stopRun(llmError);
      record([
        {
          type: "LlmCallFailed",
          data: { attempt, call, role, model, error_class: llmError?.kind ?? "error", http_status: llmError?.httpStatus ?? null, retries: llmError?.retries ?? 0, message, latency_ms: latency() },
        },
      ]);
      throw error;
    }
    if (!this.inFlight.delete(call)) return response; // recorded aborted: the attempt has ended
    const usage = response.usage;
    const cost = run.price(model, usage);
    const replyRef = contentRef(response.content);
    record(
      [
        {
          type: "LlmCallCompleted",
          data: {
            attempt,
            call,
            role,
            model,
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            total_tokens: usage.total_tokens,
            cached_tokens: usage.cached_tokens ?? 0,
            latency_ms: latency(),
            estimated: response.estimated,
            retries: response.retries ?? 0,
            cost_usd: cost,
            reply_ref: replyRef,
            replayed: false,
          },
        },
      ],
      new Map([[replyRef, response.content]]),
    );
    counts.completed += 1;
    this.settle(worst, judged, { tokens: usage.total_tokens, cost: cost ?? 0 });
    if (enforced) this.checkBudgets();
    return response;
  }
}
