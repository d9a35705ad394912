/**
 * Why an LLM call did not produce a reply, as the engine needs to know it: whether to retry,
 * whether the whole run must stop (the key or the model is wrong for every job), and what to
 * record. Messages are one line and never contain an API key.
 */
export type LlmErrorKind =
  /** 401: the key is missing, wrong or revoked. Stops the run. */
  | "auth"
  /** 403: the key may not use this model or endpoint. Stops the run. */
  | "permission"
  /** 404 (or a 400 naming the model): the server does not know the model. Stops the run. */
  | "model_not_found"
  /** Another 4xx: this request is wrong; not retried. */
  | "bad_request"
  /** 429 after every retry. */
  | "rate_limited"
  /** 5xx after every retry. */
  | "server"
  /** Connection refused, reset, DNS... after every retry. */
  | "network"
  /** No answer within the per-call timeout, after every retry. */
  | "timeout"
  /** A 200 whose body is not a chat completion (no choices, not JSON). */
  | "malformed"
  /** The caller's signal aborted the call (job timeout, Ctrl-C, budget). */
  | "aborted";

/** Kinds that no retry and no other job can fix: the run stops at once. */
export const RUN_STOPPING_KINDS: ReadonlySet<LlmErrorKind> = new Set(["auth", "permission", "model_not_found"]);

export class LlmError extends Error {
  override readonly name = "LlmError";
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly httpStatus: number | null = null,
    /** Retries made before giving up (0 = the first request failed and was not retried). */
    readonly retries = 0,
  ) {
    super(message);
  }

  /** True when the error is the same for every job of the run (wrong key, unknown model). */
  get stopsRun(): boolean {
    return RUN_STOPPING_KINDS.has(this.kind);
  }
}

export const isLlmError = (error: unknown): error is LlmError => error instanceof LlmError;
