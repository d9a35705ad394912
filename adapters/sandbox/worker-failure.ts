/** Why a sandbox worker pool's request got no answer. */
export class WorkerFailure extends Error {
  override readonly name = "WorkerFailure";
  constructor(
    readonly kind: "timeout" | "crashed" | "aborted" | "closed" | "unavailable",
    message: string,
  ) {
    super(message);
  }
}
