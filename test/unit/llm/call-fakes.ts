/** Small doubles for the LLM call recording tests: fake LLMs, a collecting `record`, histories. */
import type { Contents } from "../../../src/events/content-ref.js";
import type { EventBody, EventData, FinishedStatus } from "../../../src/events/event-schema.js";
import type { JournalContents } from "../../../src/llm/call-journal.js";
import { JobCalls, type JobCallsOptions, type RecordCallFacts } from "../../../src/llm/job-calls.js";
import { LlmError } from "../../../src/llm/llm-error.js";
import type { ChatRequest, ChatResponse, Llm, LlmUsage } from "../../../src/llm/llm.js";
import { requestHash } from "../../../src/llm/request-hash.js";
import { RunCalls, type RunCallsOptions } from "../../../src/llm/run-calls.js";

export type CallFact = Parameters<RecordCallFacts>[0][number];

export const MODEL = "fake-model";

/** Collects every record call: the facts in order and the contents stored with them. */
export function collector() {
  const batches: { facts: CallFact[]; contents: Map<string, string> }[] = [];
  const facts: CallFact[] = [];
  const contents = new Map<string, string>();
  let refuse: Error | null = null;
  const record: RecordCallFacts = (batch, stored?: Contents) => {
    if (refuse !== null) throw refuse;
    batches.push({ facts: [...batch], contents: new Map(stored ?? []) });
    facts.push(...batch);
    for (const [ref, text] of stored ?? []) contents.set(ref, text);
  };
  return {
    record,
    batches,
    facts,
    contents,
    /** Makes every later record call throw (the log refuses the facts). */
    refuseWith(error: Error) {
      refuse = error;
    },
    types: () => facts.map((f) => f.type),
    ofType<T extends CallFact["type"]>(type: T): EventData<T>[] {
      return facts.filter((f) => f.type === type).map((f) => f.data as EventData<T>);
    },
  };
}
export type Collector = ReturnType<typeof collector>;

export const usage = (prompt = 10, completion = 5, cached?: number): LlmUsage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  ...(cached !== undefined ? { cached_tokens: cached } : {}),
});

export const reply = (content: string, use: LlmUsage = usage(), extra: Partial<ChatResponse> = {}): ChatResponse => ({ content, usage: use, model: MODEL, estimated: false, ...extra });

export const request = (user: string, system = "You are an optimizer."): ChatRequest => ({
  messages: [
    { role: "system", content: system },
    { role: "user", content: user },
  ],
});

/** `request(user)` with a max_tokens: a request whose worst case is bounded. */
export const bounded = (user: string, maxTokens: number): ChatRequest => ({ ...request(user), maxTokens });

export const hashOf = (req: ChatRequest, model = MODEL) => requestHash(model, req);

/** A fake LLM: `answer` gets the request, the signal and the 1-based number of the call. */
export function fakeLlm(answer: (request: ChatRequest, signal: AbortSignal | undefined, n: number) => ChatResponse | Promise<ChatResponse>, model = MODEL) {
  const requests: ChatRequest[] = [];
  const llm: Llm & { requests: ChatRequest[] } = {
    model,
    requests,
    async complete(req, signal) {
      requests.push(req);
      return answer(req, signal, requests.length);
    },
  };
  return llm;
}

/** A fake LLM answering `reply-<n>` with 10 + 5 tokens. */
export const echoLlm = (model = MODEL) => fakeLlm((_r, _s, n) => reply(`reply-${n}`), model);

/** A promise settled from outside. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A fake LLM that never answers by itself, but rejects with kind `aborted` when its signal aborts. */
export function hangingLlm() {
  return fakeLlm(
    (_r, signal) =>
      new Promise<ChatResponse>((_res, rej) => {
        signal?.addEventListener("abort", () => rej(new LlmError("aborted", "request aborted")), { once: true });
      }),
  );
}

export const priceOf = (usd = 0.001) => (_model: string, use: LlmUsage) => use.total_tokens * usd;

export function runCalls(options: Partial<RunCallsOptions> = {}) {
  return new RunCalls({ journaling: true, price: priceOf(), budget: {}, ...options });
}

export const NO_JOURNAL: JournalContents = { entries: [], unanswered: [] };

export function jobCalls(c: Collector, options: Partial<JobCallsOptions> = {}) {
  return new JobCalls({
    attempt: 2,
    run: options.run ?? runCalls(),
    record: c.record,
    journal: NO_JOURNAL,
    replies: new Map(),
    onBudgetExhausted: () => {},
    ...options,
  });
}

// ---- histories ----

export const queued = (attempt: number): EventBody => ({ type: "JobQueued", data: { attempt, invocation: attempt } });

export const started = (attempt: number, call: number, hash: string): EventBody => ({
  type: "LlmCallStarted",
  data: { attempt, call, role: "optimizer", model: MODEL, request_hash: hash, messages: [] },
});

export const completed = (attempt: number, call: number, replyRef: string, extra: Partial<Extract<EventBody, { type: "LlmCallCompleted" }>["data"]> = {}): EventBody => ({
  type: "LlmCallCompleted",
  data: {
    attempt,
    call,
    role: "optimizer",
    model: MODEL,
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    cached_tokens: 40,
    latency_ms: 900,
    estimated: false,
    retries: 1,
    cost_usd: 0.25,
    reply_ref: replyRef,
    replayed: false,
    ...extra,
  },
});

export const failed = (attempt: number, call: number): EventBody => ({
  type: "LlmCallFailed",
  data: { attempt, call, role: "optimizer", model: MODEL, error_class: "server", http_status: 500, retries: 3, message: "boom", latency_ms: 5 },
});

export const finished = (attempt: number, status: FinishedStatus): EventBody => ({
  type: "JobFinished",
  data: {
    attempt,
    status,
    feedback: "",
    score_val_initial: null,
    score_val_final: null,
    score_val: null,
    score_test: null,
    time_seconds: 1,
    resolved: { optimizer: null, guide: null, logger: null, trainer_kwargs: {}, optimizer_kwargs: {}, guide_kwargs: {}, logger_kwargs: {} },
    agent: null,
    parameters: [],
    initial_values: null,
    final_values: null,
    best_values: null,
  },
});
